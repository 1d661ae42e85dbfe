//go:build linux

package agentd

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// TestStoppedAgentReportsTheTrueExit: an agent process stopped (kill
// -STOP) while its task exits reports, once continued, the exit time
// the task's shim recorded, not when it woke: the master charges usage
// until api.Report.At.
func TestStoppedAgentReportsTheTrueExit(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	child := startChildAgent(t, fm, dir)
	// Cleanups run last first: a stopped child is continued before it is killed.
	t.Cleanup(func() { _ = child.Process.Signal(syscall.SIGCONT) })
	s := spec(0, 0, `echo start; sleep 1; echo end`, 0)
	s.WorkDir = filepath.Join(dir, "task")
	fm.send(startCmd(s))
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	if err := child.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	exitFile := filepath.Join(s.WorkDir, agent.StateDir, agent.ExitFileName(0, 0))
	var st agent.ExitStatus
	ctxWait(t, "the task to end under a stopped agent", func() bool {
		var ok bool
		st, ok, _ = agent.ReadExitFile(exitFile)
		return ok
	})
	time.Sleep(time.Second)
	woke := time.Now()
	if err := child.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		r, _ := fm.exitOf(s.ID())
		if r.Outcome != string(agent.OutcomeCompleted) || !r.At.Equal(st.ExitedAt) || !r.At.Before(woke) {
			t.Errorf("exit report %+v, want completed at %v, when the shim saw the task exit (the agent woke at %v)",
				r, st.ExitedAt, woke)
		}
	})
}
