package agent

// Adoption: a restarted agent takes over an attempt that an earlier agent
// process started under a task shim and left running (it was killed, or
// stopped with its tasks kept). The new process is not the leader's
// parent, so it cannot wait for it: it polls the leader's liveness and
// start time in /proc, and once the group is gone reads the exit status
// from the shim's exit file. Its output comes from the shim's output file
// (ShimOutputArg), which the shim fills once the agent that started it is
// gone, and which the adopting agent reads from its start as it grows.

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Orphan is what an agent recorded of an attempt it started, which a
// later agent process may adopt.
type Orphan struct {
	ID TaskID
	// Pid is the leader's (the shim's) pid, also the process group id.
	Pid int
	// StartTicks is the leader's start time (/proc/PID/stat field 22),
	// which tells it apart from a later process given the same pid.
	StartTicks uint64
	WorkDir    string
	NodeRank   int
	// ExitFile is where the shim records the task's exit status; its
	// output file (OutputFileName) is beside it.
	ExitFile  string
	StartedAt time.Time
	// OutputSeqBase numbers the output file's lines: line n (from 1) is
	// delivered with Seq OutputSeqBase+n. It should be above any Seq the
	// agent process that started the task used.
	OutputSeqBase uint64
}

// ErrNotAdoptable says that an orphan cannot be adopted: it has no shim
// to record its exit status, its leader is gone or is not provably the
// recorded one, or the platform cannot tell (no /proc).
var ErrNotAdoptable = errors.New("attempt cannot be adopted")

// AdoptPoll is how often an adopted attempt's leader is checked; its exit
// is noticed within this.
const AdoptPoll = 250 * time.Millisecond

// Adopt takes over a running attempt from an earlier agent process. The
// Task behaves as a started one: Preempt writes the preempt file and
// signals the group, Kill SIGKILLs it, and Wait returns once no process
// of the group is left, with the outcome from the exit file (a run that
// exited 0 is completed). A preemption the earlier agent asked for (its
// preempt file is still there) goes on with its deadline. The lines of
// the shim's output file go to OnLog, which may block (they wait in the
// file), from the file's start, all of them before Wait returns.
func (r *Runner) Adopt(o Orphan) (*Task, error) {
	fail := func(why string) (*Task, error) {
		return nil, fmt.Errorf("adopt task %s (pid %d): %s: %w", o.ID, o.Pid, why, ErrNotAdoptable)
	}
	switch {
	case o.ExitFile == "":
		return fail("it runs without a task shim, so its exit status would be unknown")
	case o.Pid <= 1 || o.StartTicks == 0:
		return fail("no leader start time was recorded")
	case !leaderAlive(o.Pid, o.StartTicks):
		return fail("its leader is not alive with the recorded start time")
	}
	stateDir := filepath.Join(o.WorkDir, StateDir)
	outputFile := filepath.Join(filepath.Dir(o.ExitFile), OutputFileName(o.ID.Attempt, o.NodeRank))
	t := &Task{
		id:          o.ID,
		pid:         o.Pid,
		adoptTicks:  o.StartTicks,
		preemptSig:  orDefault(r.PreemptSignal, syscall.SIGTERM),
		preemptFile: filepath.Join(stateDir, PreemptFileName),
		metricsFile: filepath.Join(stateDir, MetricsFileName(o.ID.Attempt, o.NodeRank)),
		exitFile:    o.ExitFile,
		started:     o.StartedAt,
		hardKill:    make(chan struct{}),
		done:        make(chan struct{}),
	}
	if shimKeepsOutput(o.Pid) {
		// A shim an older agent started keeps no output file: OutputFile
		// says so, and the reader below finds none.
		t.outputFile = outputFile
	}
	t.tail = &outputTail{reader: NewOutputReader(outputFile, o.OutputSeqBase), onLog: r.OnLog,
		stop: make(chan struct{}), done: make(chan struct{})}
	t.resumePreemption()
	go t.tail.run(t.id)
	go t.followAdopted()
	return t, nil
}

// Adopted reports whether the task was taken over by Adopt.
func (t *Task) Adopted() bool { return t.adoptTicks != 0 }

// resumePreemption continues a preemption the earlier agent asked for:
// its preempt file holds the deadline (an unreadable one ends it now).
func (t *Task) resumePreemption() {
	data, err := os.ReadFile(t.preemptFile)
	if err != nil {
		return
	}
	deadline, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
	if err != nil {
		deadline = time.Now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.preemptAt = time.Now().UTC()
	t.timer = time.AfterFunc(time.Until(deadline), t.deadlineKill)
}

// followAdopted is wait for an adopted attempt: it polls for the leader's
// end, then ends the group as wait does and reads the exit file.
func (t *Task) followAdopted() {
	tick := time.NewTicker(AdoptPoll)
	for leaderAlive(t.pid, t.adoptTicks) {
		select {
		case <-tick.C:
		case <-t.hardKill:
			// SIGKILL was sent: poll fast, the leader dies at once.
			tick.Reset(5 * time.Millisecond)
		}
	}
	tick.Stop()
	exited := time.Now().UTC()
	var problems []string
	if p := t.endGroup(); p != "" {
		problems = append(problems, p)
	}
	// The shim is gone: its output file is complete.
	close(t.tail.stop)
	<-t.tail.done
	res := Result{ID: t.id, ExitCode: -1, StartedAt: t.started, ExitedAt: exited}
	problems = append(problems, t.tail.finish(&res)...)
	st, ok, err := ReadExitFile(t.exitFile)
	switch {
	case err != nil:
		problems = append(problems, err.Error())
	case !ok:
		problems = append(problems, "the task shim ended without recording the exit status (killed with SIGKILL?)")
	default:
		res.ExitCode, res.Signal, res.ExitedAt = st.ExitCode, st.Signal, exitTime(st, ok, t.started, exited)
		res.LogLines += st.OutputDropped
		if st.Fenced != "" {
			// The shim's fence asked for the checkpoint, after this agent
			// adopted the task and before it heard the master.
			problems = append(problems, st.Fenced)
			t.fencedByShim(st.FencedAt)
		}
		if st.OutputDropped > 0 || st.OutputError != "" {
			problems = append(problems, fmt.Sprintf("the task shim dropped %d output lines written while no agent ran (%s)",
				st.OutputDropped, cmp.Or(st.OutputError, "no reason given")))
		}
	}
	t.finishResult(res, problems)
}

// fencedByShim marks the attempt preempted when its shim's fence asked
// for the checkpoint.
//
// at is when the fence asked (zero from a shim older than the record:
// the preempt file's time, else now). It counts where it is earlier
// than a stop of this agent's: an agent that was stopped and woke past
// its own fence's time asks again, after the task ended by the shim's
// request, and the attempt is still the shim fence's preemption.
func (t *Task) fencedByShim(at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if at.IsZero() {
		if !t.preemptAt.IsZero() {
			return
		}
		at = time.Now().UTC()
		if fi, err := os.Stat(t.preemptFile); err == nil {
			at = fi.ModTime().UTC()
		}
	}
	if t.preemptAt.IsZero() || at.Before(t.preemptAt) {
		t.preemptAt = at
	}
}

// outputTail delivers an adopted task's output file to OnLog.
type outputTail struct {
	reader *OutputReader
	onLog  func(TaskID, LogLine)
	stop   chan struct{} // closed once the shim is gone
	done   chan struct{} // closed once the file is read to its end
	err    error
}

// run reads the file every AdoptPoll until stop, then to its end.
func (o *outputTail) run(id TaskID) {
	defer close(o.done)
	deliver := func(l LogLine) {
		if o.onLog != nil {
			o.onLog(id, l)
		}
	}
	tick := time.NewTicker(AdoptPoll)
	defer tick.Stop()
	for {
		if err := o.reader.Read(deliver); err != nil {
			o.err = err
			return
		}
		select {
		case <-o.stop:
			o.err = o.reader.Read(deliver)
			return
		case <-tick.C:
		}
	}
}

// finish closes the reader, counts its lines in res and returns the
// problems to report.
func (o *outputTail) finish(res *Result) (problems []string) {
	records, dropped, torn := o.reader.Close()
	res.LogLines, res.DroppedLines = records, dropped
	if o.err != nil {
		problems = append(problems, "the task's output since the agent restarted may be incomplete: "+o.err.Error())
	}
	if dropped > 0 {
		problems = append(problems, fmt.Sprintf("%d lines of the output file %s were not sound and were dropped", dropped, o.reader.path))
	}
	if torn {
		problems = append(problems, "the output file ends in a line the task shim did not finish writing (it was killed, or the disk was full); it is lost")
	}
	return problems
}

// finishResult sets the outcome, publishes the result and closes done.
func (t *Task) finishResult(res Result, problems []string) {
	t.mu.Lock()
	for _, tm := range []*time.Timer{t.timer, t.killTimer} {
		if tm != nil {
			tm.Stop()
		}
	}
	res.PreemptedAt = t.preemptAt
	// A stop asked after the task had exited (as its shim recorded) did
	// not end it: an agent frozen past its fence's time (SIGSTOP, a VM
	// paused) wakes up and may stop an attempt before it has noticed
	// the exit, which then read as preempted, and its job ran again or
	// failed as lost (trial 2026-11-29b B19). Without a shim's record the
	// exit time is when the agent noticed it, after any stop.
	asked := func(at time.Time) bool { return !at.IsZero() && !res.ExitedAt.Before(at) }
	switch {
	case t.killRequested && asked(t.killAsked):
		res.Outcome = OutcomeKilled
		res.KilledAtDeadline = t.killedAtDeadline
	case asked(t.preemptAt):
		res.Outcome = OutcomePreempted
		res.KilledAtDeadline = t.killedAtDeadline
	case res.ExitCode == 0:
		res.Outcome = OutcomeCompleted
	default:
		res.Outcome = OutcomeFailed
	}
	res.Error = strings.Join(problems, "; ")
	t.result = res
	t.finished = true
	t.mu.Unlock()
	close(t.done)
}
