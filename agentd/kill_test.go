package agentd

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestKillHonoursGrace: a kill command with GraceS sends SIGTERM; an
// attempt that traps it saves and exits with its own code within the
// grace, one that ignores it is SIGKILLed at the grace's end, and both
// are reported killed, the second saying why it was SIGKILLed.
func TestKillHonoursGrace(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	const loop = `echo ready; while :; do sleep 0.05; done`
	saves := spec(0, 0, `trap 'echo saved; exit 0' TERM; `+loop)
	ignores := spec(1, 0, `trap '' TERM; `+loop)
	fm.send(startCmd(saves), startCmd(ignores))
	fm.waitFor("both ready", func(fm *fakeMaster) bool {
		return fm.hasLine(saves.ID(), "ready") && fm.hasLine(ignores.ID(), "ready")
	})
	const graceS = 1
	sent := time.Now()
	fm.send(stopCmd(api.CommandKill, saves.ID(), 5), stopCmd(api.CommandKill, ignores.ID(), graceS))
	var savedAt time.Time
	fm.waitFor("the trap's exit", func(fm *fakeMaster) bool {
		_, ok := fm.exitOf(saves.ID())
		savedAt = time.Now()
		return ok
	})
	fm.waitFor("the SIGKILLed exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(ignores.ID()); return ok })
	killedAfter := time.Since(sent)
	fm.locked(func(fm *fakeMaster) {
		exit, _ := fm.exitOf(saves.ID())
		if exit.Outcome != string(agent.OutcomeKilled) || exit.ExitCode == nil || *exit.ExitCode != 0 || !fm.hasLine(saves.ID(), "saved") {
			t.Errorf("trapping attempt: exit %+v, lines %q; want killed with exit code 0 after its trap", exit, fm.logText(saves.ID()))
		}
		exit, _ = fm.exitOf(ignores.ID())
		if exit.Outcome != string(agent.OutcomeKilled) || exit.ExitCode != nil || !strings.Contains(exit.Error, "end of the kill grace") {
			t.Errorf("ignoring attempt: exit %+v; want killed by SIGKILL at the end of the kill grace", exit)
		}
	})
	if savedAt.Sub(sent) >= 5*time.Second {
		t.Errorf("the trapping attempt ended %v after the kill, want before its grace's end", savedAt.Sub(sent))
	}
	if killedAfter < graceS*time.Second {
		t.Errorf("the attempt ignoring SIGTERM ended %v after the kill, before its grace of %ds", killedAfter, graceS)
	}
}
