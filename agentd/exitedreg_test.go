package agentd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// TestExitedAttemptIsNotListedRunning: an attempt that exits while the
// master is away, its last output line not yet delivered, waits for that
// line before its exit report; meanwhile neither the registration with a
// restarted master nor a sync with one that came back lists it as
// running, since the master charges an attempt its agent lists until
// then (trial 2026-11-29a A10: charged and timed until the registration,
// 7-18 s after the exit). The registration lists it as exited, so that
// the master waits for its report instead of ending it as not run; a
// master older than that list gets the attempt as running, as before.
// The report, the exit's time in it, follows the line.
func TestExitedAttemptIsNotListedRunning(t *testing.T) {
	tests := []struct {
		name      string
		restarted bool // the master comes back without the node: the agent registers again
		old       bool // and refuses api.Register.Exited
		// what the registration after the return lists
		wantRunning, wantExited bool
	}{
		{name: "the master restarted: registered as exited", restarted: true, wantExited: true},
		{name: "the master came back: not in the syncs"},
		{name: "a master older than the list: registered as running", restarted: true, old: true, wantRunning: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			r := startAgent(t, testConfig(t, fm, dir))
			s := spec(0, 1, "")
			s.Entrypoint = "while [ ! -f " + filepath.Join(dir, "release") + " ]; do sleep 0.05; done; echo bye"
			id := s.ID()
			fm.send(startCmd(s))
			fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(id)) == 1 })

			fm.set(func(fm *fakeMaster) { fm.down = true })
			fm.waitFor("a refused try", func(fm *fakeMaster) bool { return fm.refused > 0 })
			if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			ctxWait(t, "the attempt's exit, its line undelivered", func() bool {
				r.a.mu.Lock()
				defer r.a.mu.Unlock()
				att := r.a.tasks[id]
				return att != nil && att.exited
			})
			var regs, syncs int
			fm.set(func(fm *fakeMaster) {
				// Its line is not delivered until the master has heard what runs.
				fm.down, fm.failLogs = false, 1<<30
				fm.known = fm.known && !tt.restarted
				fm.refuseExited = tt.old
				regs, syncs = len(fm.registers), len(fm.syncs)
			})
			back := time.Now()
			fm.waitFor("a sync after the return", func(fm *fakeMaster) bool {
				return len(fm.syncs) > syncs && (!tt.restarted || len(fm.registers) > regs)
			})
			fm.set(func(fm *fakeMaster) { fm.failLogs = 0 })
			fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(id); return ok })

			fm.locked(func(fm *fakeMaster) {
				for i, reg := range fm.registers[regs:] {
					if got := slices.Contains(reg.Running, id); got != tt.wantRunning {
						t.Errorf("registration %d after the return lists %s running: %v, want %v (%+v)", i, id, got, tt.wantRunning, reg)
					}
					if got := slices.Contains(reg.Exited, id); got != tt.wantExited {
						t.Errorf("registration %d after the return lists %s exited: %v, want %v (%+v)", i, id, got, tt.wantExited, reg)
					}
				}
				if tt.restarted != (len(fm.registers) > regs) {
					t.Errorf("%d registrations after the return, want some: %v", len(fm.registers)-regs, tt.restarted)
				}
				for i, s := range fm.syncs[syncs:] {
					if slices.Contains(s.Running, id) {
						t.Errorf("sync %d after the return lists %s running: %+v", i, id, s)
					}
				}
				exit, _ := fm.exitOf(id)
				if exit.Outcome != string(agent.OutcomeCompleted) || !exit.At.Before(back) {
					t.Errorf("exit report %+v, want completed at the exit, before the master's return at %v", exit, back)
				}
				if !fm.hasLine(id, "bye") || fm.exitLogs[id] != len(fm.logText(id)) {
					t.Errorf("%d of the lines %q stored at the exit report, want all, \"bye\" among them",
						fm.exitLogs[id], fm.logText(id))
				}
			})
		})
	}
}
