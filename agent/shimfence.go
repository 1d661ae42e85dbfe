package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ShimFenceArg, followed by the fence file's path, the attempt's TaskID
// (TaskID.String) and the number of the preemption's signal, says that
// the shim applies the fence the file describes (fencefile.go) once the
// agent that wrote it is gone.
const ShimFenceArg = "--fence"

// shimFence is a shim's fence: it watches the fence file while the task
// runs and, once the file's writer is gone and the fence's time has come,
// asks the task to checkpoint and kills its group at the end of the
// grace, as the agent's fence does.
type shimFence struct {
	path, id    string
	sig         syscall.Signal
	preemptFile string
	exitFile    string
	// agentPID is the agent that started the shim (ShimDrainArg), 0 when
	// not known: while the shim is its child, the agent fences the task,
	// and a fence file another agent left is not this one's.
	agentPID int

	// killAsked reports whether the task's group was sent SIGTERM
	// (earlySignals.termCaught): with no preempt file, the agent's kill,
	// as a preemption writes the file before its signal. nil: unknown.
	killAsked func() bool

	mu     sync.Mutex
	why    string    // why the fence stopped the task; "" until it did
	at     time.Time // when it did
	killed bool      // the group was killed at the grace's end
}

// shimFenceArgs takes ShimFenceArg FENCEFILE TASKID SIGNAL off the front
// of args, if there; nil without ShimFenceArg.
func shimFenceArgs(args []string) (*shimFence, []string, error) {
	if len(args) == 0 || args[0] != ShimFenceArg {
		return nil, args, nil
	}
	if len(args) < 6 || args[1] == "" || args[2] == "" {
		return nil, nil, fmt.Errorf("expected %s FENCEFILE TASKID SIGNAL EXITFILE PROGRAM [ARGS...]", ShimFenceArg)
	}
	sig, err := strconv.Atoi(args[3])
	if err != nil || sig <= 0 || sig >= 65 {
		return nil, nil, fmt.Errorf("%s: expected the preemption's signal number, got %q", ShimFenceArg, args[3])
	}
	return &shimFence{path: args[1], id: args[2], sig: syscall.Signal(sig)}, args[4:], nil
}

// watch polls the fence file until done (the task has exited) or the
// fence stops the task; pgid is the task's process group, the shim's.
func (fs *shimFence) watch(pgid int, done <-chan struct{}) {
	tick := time.NewTicker(orphanPoll)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		if fs.agentPID != 0 && os.Getppid() == fs.agentPID && !processStopped(fs.agentPID) {
			continue
		}
		f, ok, err := ReadFenceFile(fs.path)
		if err != nil || !ok || (f.WriterAlive() && !processStopped(f.AgentPID)) {
			// A live agent fences itself (a stopped one, kill -STOP,
			// cannot); an unreadable file is the writer's to mend, and
			// without one nothing is known.
			continue
		}
		askAt, grace, ok := f.Times(fs.id)
		if now := time.Now(); ok && !now.Before(askAt) {
			// The grace counts from the request, as the agent's does.
			fs.stop(pgid, now.Sub(f.Contact), now.Add(grace), slices.Contains(f.Held, fs.id), done)
			return
		}
	}
}

// FenceStopped begins why an attempt ended (the exit file's Fenced, and
// so its agent's report) when its task shim's fence stopped it: the
// master reads it in a late report of an attempt it ended lost.
const FenceStopped = "stopped by its task shim's fence"

// FenceKilled ends it when the fence killed the task at the end of its
// grace, the checkpoint asked for not finished.
const FenceKilled = "killed at the end of its grace"

// fenceWhy says why the shim's fence stopped its task, after silent
// without word from the master, in words that fit what the master does
// with the attempts of a node it lost (lifecycle.HoldsThroughLoss): one
// being killed it ends, killed; one it held through the loss (held: a
// non-preemptible job's that ran) it fails once lost_node_grace is over,
// before the fence stops it; any other it ends and, if the job may run
// again (preemptible, retries left), requeues. "Requeues the attempt
// elsewhere" was said of all three (trial 2026-11-29g G8); the subject is
// the master, as in agentd's variant (trial 2026-11-29h H6).
func fenceWhy(silent time.Duration, held, killing bool) string {
	then := "the master ends the attempt, and requeues the task elsewhere if its job may run again"
	switch {
	case killing:
		then = "the master ends the attempt, which was being killed"
	case held:
		then = "the master fails the attempt, as it held it only for lost_node_grace"
	}
	return fmt.Sprintf(FenceStopped+": the agent was gone and the master not heard for %s, after which %s", silent.Round(time.Second), then)
}

// fenceAsk says what the task is asked for by deadline: to checkpoint
// only when the attempt may be followed by another that resumes from it,
// not when it was being killed or is failed (trial 2026-11-29h H6).
func fenceAsk(held, killing bool, deadline time.Time) string {
	what := "checkpoint and exit"
	if held || killing {
		what = "exit"
	}
	return fmt.Sprintf("the task must %s by %s", what, deadline.UTC().Format(time.DateTime+" MST"))
}

// stop asks the task to checkpoint, as Task.Preempt does (the preempt
// file with the deadline, then the signal to the group), unless a
// preemption was asked already, and kills the group at the deadline if
// the task has not exited by then. held says the master holds the
// attempt through the node's loss (FenceFile.Held).
func (fs *shimFence) stop(pgid int, silent time.Duration, deadline time.Time, held bool, done <-chan struct{}) {
	asked, already := preemptDeadline(fs.preemptFile)
	killing := !already && fs.killAsked != nil && fs.killAsked()
	fs.mu.Lock()
	fs.why = fenceWhy(silent, held, killing)
	fs.at = time.Now().UTC()
	fs.mu.Unlock()
	if already {
		deadline = minTime(deadline, asked)
	}
	// The shim's stderr is the task's: the line reaches the job's log
	// through the output file, which the next agent delivers.
	fmt.Fprintf(os.Stderr, "[allot task shim] %s: %s\n", fs.why, fenceAsk(held, killing, deadline))
	if !already {
		_ = writeFileAtomic(fs.preemptFile, []byte(deadline.UTC().Format(time.RFC3339Nano)+"\n"))
		_ = syscall.Kill(-pgid, fs.sig)
	}
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case <-done:
		return
	case <-wait.C:
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.killed = true
	// The shim dies with its group: the exit file says how first.
	_ = writeExitFile(fs.exitFile, ExitStatus{ExitCode: -1, Signal: "SIGKILL", ExitedAt: time.Now().UTC(),
		Fenced: fs.why + "; " + FenceKilled, FencedAt: fs.at})
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// record fills in st what the fence did, and reports whether the shim
// should write the exit file itself: not once the fence has killed the
// group and written it. It holds the fence's lock until end is called,
// so that the fence's kill does not cross the shim's own write.
func (fs *shimFence) record(st *ExitStatus) (write bool, end func()) {
	fs.mu.Lock()
	st.Fenced, st.FencedAt = fs.why, fs.at
	return !fs.killed, fs.mu.Unlock
}

// preemptDeadline reads the deadline a preemption already asked for.
func preemptDeadline(path string) (time.Time, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false
	}
	d, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
	return d, err == nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// setFencePaths names the files of the attempt whose exit file is
// exitFile: the preempt file is in the same state directory.
func (fs *shimFence) setFencePaths(exitFile string) {
	fs.exitFile = exitFile
	fs.preemptFile = filepath.Join(filepath.Dir(exitFile), PreemptFileName)
}

// readFenced is why the shim's fence stopped the attempt whose exit file
// is path; "" when it did not, or there is no file to say.
func readFenced(path string) (why string, at time.Time) {
	if path == "" {
		return "", time.Time{}
	}
	st, ok, err := ReadExitFile(path)
	if err != nil || !ok {
		return "", time.Time{}
	}
	return st.Fenced, st.FencedAt
}
