package agentd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestStartWaitsForStoppedHolder: a start on a GPU that an attempt being
// killed still holds, sent in the same reply as the kill (a restarted
// master's new attempt of a gang: trial 2026-11-29c C12), starts only
// once that attempt has exited; one the master kills meanwhile never
// starts and is reported killed.
func TestStartWaitsForStoppedHolder(t *testing.T) {
	for _, c := range []struct {
		name   string
		killed bool // the master kills the waiting attempt before it starts
	}{
		{"starts after the exit", false},
		{"killed while waiting", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			startAgent(t, testConfig(t, fm, t.TempDir()))
			done := filepath.Join(t.TempDir(), "old.done")
			// The old attempt takes a while to exit once asked, as a
			// process whose GPU memory is still being freed.
			old := spec(0, 1, `trap 'sleep 0.3; : > `+done+`; exit 0' TERM; echo ready; while :; do sleep 0.05; done`, 0, 1)
			next := spec(0, 2, `if [ -e `+done+` ]; then echo after; else echo before; fi`, 1, 2)
			fm.send(startCmd(old))
			fm.waitFor("the old attempt ready", func(fm *fakeMaster) bool { return fm.hasLine(old.ID(), "ready") })
			cmds := []api.Command{stopCmd(api.CommandKill, old.ID(), 5), startCmd(next)}
			if c.killed {
				cmds = append(cmds, stopCmd(api.CommandKill, next.ID(), 0))
			}
			fm.send(cmds...)
			fm.waitFor("the old attempt's exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(old.ID()); return ok })
			if c.killed {
				fm.locked(func(fm *fakeMaster) {
					exit, _ := fm.exitOf(next.ID())
					if exit.Outcome != string(agent.OutcomeKilled) || !strings.Contains(exit.Error, "stopped before it started") {
						t.Errorf("waiting attempt killed: exit %+v, want killed before it started", exit)
					}
					for _, r := range fm.reports {
						if r.Task == next.ID() && r.Event == api.EventRunning {
							t.Errorf("the attempt killed while waiting started: %+v", r)
						}
					}
				})
				return
			}
			fm.waitFor("the new attempt's exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(next.ID()); return ok })
			fm.locked(func(fm *fakeMaster) {
				if !fm.hasLine(next.ID(), "after") {
					t.Errorf("new attempt's lines %q, want it started after the old one exited", fm.logText(next.ID()))
				}
				exit, _ := fm.exitOf(next.ID())
				if exit.Outcome != string(agent.OutcomeCompleted) {
					t.Errorf("new attempt: exit %+v, want completed", exit)
				}
			})
		})
	}
}
