package agent

// The life of a started task: its accessors, the preemption protocol
// (request, grace deadline, kill), the kill (SIGTERM, grace, SIGKILL) and
// following the process group to its end.

import (
	"fmt"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ID returns the attempt's identity.
func (t *Task) ID() TaskID { return t.id }

// Pid returns the process id of the group leader (the shell), which is also
// the process group id.
func (t *Task) Pid() int { return t.pid }

// PreemptFile returns the path of the file that Preempt creates.
func (t *Task) PreemptFile() string { return t.preemptFile }

// MetricsFile returns ALLOT_METRICS_FILE, where the task appends its
// metrics as JSON lines.
func (t *Task) MetricsFile() string { return t.metricsFile }

// Done is closed when the attempt has ended and Wait will not block.
func (t *Task) Done() <-chan struct{} { return t.done }

// ExitFile is where the task's shim records its exit status; "" when the
// runner has no shim.
func (t *Task) ExitFile() string { return t.exitFile }

// OutputFile is where the task's shim keeps its output once the agent
// that started it is gone (ShimOutputArg); "" when the runner has no shim,
// or when an adopted task's shim keeps no output file (an older agent
// started it). An adopted task's lines come from it.
func (t *Task) OutputFile() string { return t.outputFile }

// Wait blocks until the attempt has ended and returns its result. By then
// no process of the task's group is left, the output pipes are closed, and
// OnLog has returned for the last line.
func (t *Task) Wait() Result {
	<-t.done
	return t.result
}

// Preempt asks the task to checkpoint and exit, and kills it if it has not
// done so by the deadline, now + grace. It returns at once; Wait gives the
// result, whose outcome is OutcomePreempted (KilledAtDeadline tells the two
// cases apart) unless Kill comes first.
//
// The request goes two ways: PreemptFile is created holding the deadline
// (RFC 3339, UTC, one line), and then the Runner's PreemptSignal is sent
// to the whole process group. If the group leader exits before the
// deadline, the agent waits, until the deadline, for the rest of the group
// too, so that a process still writing its checkpoint under an exited
// shell is not cut short. A second call changes nothing; the first
// deadline holds. After the leader has exited, Preempt returns
// ErrTaskDone. An error writing the file is returned, but the signal and
// the deadline still apply.
func (t *Task) Preempt(grace time.Duration) error {
	grace = max(grace, 0)
	t.mu.Lock()
	switch {
	case t.leaderExited || t.killRequested:
		t.mu.Unlock()
		return ErrTaskDone
	case !t.preemptAt.IsZero():
		t.mu.Unlock()
		return nil
	}
	now := time.Now()
	t.preemptAt = now.UTC()
	deadline := now.Add(grace)
	t.timer = time.AfterFunc(grace, t.deadlineKill)
	t.mu.Unlock()

	err := writeFileAtomic(t.preemptFile, []byte(deadline.UTC().Format(time.RFC3339Nano)+"\n"))
	t.signalGroup(t.preemptSig)
	if err != nil {
		return fmt.Errorf("preempt task %s: write the preempt file (the signal was sent and the deadline holds): %w", t.id, err)
	}
	return nil
}

// Kill ends the task; the outcome is OutcomeKilled. With a grace of 0 or
// less it SIGKILLs the whole process group at once. Otherwise it sends
// SIGTERM to the group, so that a task that traps it (a batch script's
// `trap 'save; exit' TERM`) can save its state and exit, and SIGKILLs what
// is left of the group at now + grace; a group gone earlier ends the
// attempt then, and a leader that exits first leaves the rest of its
// group until the deadline, as in a preemption. A later call may bring
// the deadline forward (a kill with grace 0 after one with a grace is a
// SIGKILL now), never back. A kill during a preemption keeps the
// preemption's deadline if it is earlier. It returns ErrTaskDone if the
// task had already exited on its own.
func (t *Task) Kill(grace time.Duration) error {
	grace = max(grace, 0)
	t.mu.Lock()
	if t.finished || (t.leaderExited && t.preemptAt.IsZero() && !t.killRequested) {
		t.mu.Unlock()
		return ErrTaskDone
	}
	first := !t.killRequested
	deadline := time.Now().Add(grace)
	if !first && !deadline.Before(t.killAt) {
		t.mu.Unlock()
		return nil
	}
	t.killRequested, t.killAt = true, deadline
	if first {
		t.killAsked = time.Now().UTC()
	}
	if t.killTimer != nil {
		t.killTimer.Stop()
	}
	if grace == 0 {
		t.mu.Unlock()
		t.hardKillGroup()
		return nil
	}
	t.killTimer = time.AfterFunc(grace, t.deadlineKill)
	t.mu.Unlock()
	if first {
		t.signalGroup(syscall.SIGTERM)
	}
	return nil
}

// hardKillGroup SIGKILLs the group and wakes those waiting for it.
func (t *Task) hardKillGroup() {
	t.signalGroup(syscall.SIGKILL)
	t.killOnce.Do(func() { close(t.hardKill) })
}

// deadlineKill runs at a preemption's deadline and at the end of a kill's
// grace, whichever comes first: it SIGKILLs what is left of the group.
func (t *Task) deadlineKill() {
	t.mu.Lock()
	if t.finished {
		t.mu.Unlock()
		return
	}
	leaderExited := t.leaderExited
	t.mu.Unlock()
	select {
	case <-t.hardKill:
		return // killed already, at once or at the other deadline
	default:
	}
	// The flag is set before the signal, so that the result, which the
	// signal may bring about at once, sees it.
	if !leaderExited || groupAlive(t.pid) {
		t.mu.Lock()
		t.killedAtDeadline = true
		t.mu.Unlock()
	}
	t.hardKillGroup()
}

// signalGroup sends sig to the task's process group, unless the leader has
// been reaped and its id may belong to someone else.
func (t *Task) signalGroup(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.reaped {
		return
	}
	// An adopted leader is not this process's child: nothing keeps its
	// pid reserved once it is gone, unless members of its group are left.
	if t.adoptTicks != 0 && !leaderAlive(t.pid, t.adoptTicks) && !groupAlive(t.pid) {
		return
	}
	_ = syscall.Kill(-t.pid, sig) // ESRCH: the group is gone already
}

// wait follows the attempt to its end and publishes the result.
func (t *Task) wait() {
	var problems []string
	var waitErr error
	fallback := waitExit(t.pid) != nil
	if fallback {
		// Without waitid(WNOWAIT) the leader must be reaped to learn of
		// its exit; the group is still signalled below.
		waitErr = t.cmd.Wait()
	}
	// The shim, the leader, wrote its exit file before it exited.
	exited, err := readExitTime(t.exitFile, t.started, time.Now().UTC())
	if err != nil {
		problems = append(problems, err.Error()+"; the exit time is when the agent noticed the exit")
	}
	if p := t.endGroup(); p != "" {
		problems = append(problems, p)
	}
	if why, at := readFenced(t.exitFile); why != "" {
		// The shim's fence stopped it while this agent was stopped.
		problems = append(problems, why)
		t.fencedByShim(at)
	}
	if !fallback {
		t.mu.Lock()
		t.reaped = true
		t.mu.Unlock()
		waitErr = t.cmd.Wait()
	}

	if p := t.drainOutput(); p != "" {
		problems = append(problems, p)
	}

	res := Result{ID: t.id, ExitCode: -1, StartedAt: t.started, ExitedAt: exited}
	if !t.setExitStatus(&res) && waitErr != nil {
		problems = append(problems, "wait: "+waitErr.Error())
	}
	res.LogLines, res.DroppedLines = t.queue.counts()
	t.finishResult(res, problems)
}

// endGroup ends the group once its leader has exited, for wait and
// followAdopted: nothing of the task outlives it, so background children
// and orphans of the group are killed, and the result waits until they
// are gone; a preempted group, or one killed with a grace, first gets
// until the deadline to finish its checkpoint or its trap. It returns
// the problem to report, "" if none.
func (t *Task) endGroup() (problem string) {
	t.mu.Lock()
	t.leaderExited = true
	// A kill at once has closed hardKill already, so awaitGroup returns.
	stopping := !t.preemptAt.IsZero() || t.killRequested
	t.mu.Unlock()
	if stopping {
		t.awaitGroup()
	}
	t.signalGroup(syscall.SIGKILL)
	if !t.awaitGone(groupGoneTimeout) {
		return fmt.Sprintf("processes of the group still alive %v after SIGKILL", groupGoneTimeout)
	}
	return ""
}

// drainOutput waits for the readers to reach EOF, at most outputGrace
// (then it closes the pipes itself and returns the problem to report),
// and then for the last OnLog call to return.
func (t *Task) drainOutput() (problem string) {
	select {
	case <-t.readersDone:
	case <-time.After(t.outputGrace):
		problem = fmt.Sprintf(
			"output still open %v after the task's process group ended (a process left the group and holds it); closed it", t.outputGrace)
		t.rOut.Close()
		t.rErr.Close()
		<-t.readersDone
	}
	t.rOut.Close()
	t.rErr.Close()
	t.queue.close()
	<-t.deliverDone
	return problem
}

// setExitStatus fills in res's exit code or signal from the reaped
// leader's status; it reports false when there is no status to read.
func (t *Task) setExitStatus(res *Result) bool {
	st := t.cmd.ProcessState
	if st == nil {
		return false
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = unix.SignalName(ws.Signal())
		if res.Signal == "" {
			res.Signal = "signal " + strconv.Itoa(int(ws.Signal()))
		}
	} else {
		res.ExitCode = st.ExitCode()
	}
	return true
}

// groupGoneTimeout bounds the wait for SIGKILLed processes to die; only
// a process stuck in the kernel (on a dead NFS server, say) takes long.
const groupGoneTimeout = 5 * time.Second

// awaitGone waits until no live process is left in the group, at most
// timeout; it reports whether none is.
func (t *Task) awaitGone(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; groupAlive(t.pid); delay = min(2*delay, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
	}
	return true
}

// awaitGroup waits, after the leader's exit during a preemption or a
// kill with a grace, until no live process is left in the group or a
// SIGKILL was sent (at a deadline or by a kill at once).
func (t *Task) awaitGroup() {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for groupAlive(t.pid) {
		select {
		case <-t.hardKill:
			return
		case <-tick.C:
		}
	}
}
