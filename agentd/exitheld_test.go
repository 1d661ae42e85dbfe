package agentd

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestSyncSaysExitHeld (trial r R3): while an attempt's exit report waits
// for its logs (the master refuses them, as through a store outage), the
// syncs list it as exited, not as running (trial 2026-11-29a A10: an
// attempt that ended is not said to run), so that the master asks no
// kill of it; once the report is sent, neither.
func TestSyncSaysExitHeld(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
	fm.set(func(fm *fakeMaster) { fm.failLogs = 1 << 20 })
	s := spec(0, 0, `echo done`)
	fm.send(startCmd(s))
	said := func(fm *fakeMaster) bool {
		return slices.ContainsFunc(fm.syncs, func(y api.Sync) bool {
			return slices.Contains(y.Exited, s.ID()) && !slices.Contains(y.Running, s.ID())
		})
	}
	fm.waitFor("a sync saying the attempt exited", said)
	fm.set(func(fm *fakeMaster) { fm.failLogs = 0 })
	fm.waitFor("the exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		last := fm.syncs[len(fm.syncs)-1]
		if len(last.Exited) != 0 && !slices.ContainsFunc(last.Reports, func(r api.Report) bool { return r.Event == api.EventExited }) {
			t.Errorf("a sync after the exit report still says exited %v", last.Exited)
		}
	})
}
