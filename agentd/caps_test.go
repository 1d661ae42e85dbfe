package agentd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestCheckpointState: what a checkpoint directory holds, as an exit
// report says it.
func TestCheckpointState(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	full := filepath.Join(dir, "full")
	file := filepath.Join(dir, "file")
	for _, d := range []string{empty, filepath.Join(full, "step-10")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, want string
	}{
		{"unknown directory", "", ""},
		{"empty", empty, api.CheckpointNone},
		{"missing (removed by the task)", filepath.Join(dir, "gone"), api.CheckpointNone},
		{"an entry", full, api.CheckpointWritten},
		{"not a directory", file, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := checkpointState(c.dir); got != c.want {
				t.Errorf("checkpointState(%q) = %q, want %q", c.dir, got, c.want)
			}
		})
	}
}

// TestExitReportsCheckpoint: an attempt's exit report says whether its
// checkpoint directory held anything as it ended, to a master that
// announced the field; to one that did not (older than it), the field
// is left out, as its strict decoding would refuse it.
func TestExitReportsCheckpoint(t *testing.T) {
	all := []string{api.AcceptReportCheckpoint, api.AcceptSyncStarting}
	for _, c := range []struct {
		name       string
		accepts    []string
		entrypoint string
		want       string
	}{
		{"wrote one", all, `echo step > "$ALLOT_CHECKPOINT_DIR/ckpt"`, api.CheckpointWritten},
		{"wrote none", all, `true`, api.CheckpointNone},
		{"an older master", nil, `echo step > "$ALLOT_CHECKPOINT_DIR/ckpt"`, ""},
		{"a master that takes other fields only", []string{api.AcceptSyncStarting}, `echo step > "$ALLOT_CHECKPOINT_DIR/ckpt"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			fm.set(func(fm *fakeMaster) { fm.accepts = c.accepts })
			startAgent(t, testConfig(t, fm, t.TempDir()))
			s := spec(0, 1, c.entrypoint)
			fm.send(startCmd(s))
			fm.waitFor("the exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
			fm.locked(func(fm *fakeMaster) {
				exit, _ := fm.exitOf(s.ID())
				if exit.Checkpoint != c.want || exit.Outcome != string(agent.OutcomeCompleted) {
					t.Errorf("exit %+v, want completed with checkpoint %q", exit, c.want)
				}
			})
		})
	}
}

// TestDeferredStartListed: a start deferred for GPUs an attempt being
// stopped still holds is listed starting in the syncs (api.Sync.Starting)
// while it waits, so that the master does not end it as not run past its
// start grace; a master older than the list gets none.
func TestDeferredStartListed(t *testing.T) {
	for _, c := range []struct {
		name    string
		accepts []string
		listed  bool
	}{
		{"a master that takes the list", []string{api.AcceptSyncStarting}, true},
		{"an older master", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			fm.set(func(fm *fakeMaster) { fm.accepts = c.accepts })
			startAgent(t, testConfig(t, fm, t.TempDir()))
			gate := filepath.Join(t.TempDir(), "gate")
			// The old attempt exits only once the test opens the gate.
			old := spec(0, 1, `trap 'while [ ! -e `+gate+` ]; do sleep 0.02; done; exit 0' TERM; echo ready; while :; do sleep 0.05; done`, 0)
			next := spec(1, 1, `true`, 0)
			fm.send(startCmd(old))
			fm.waitFor("the old attempt ready", func(fm *fakeMaster) bool { return fm.hasLine(old.ID(), "ready") })
			fm.send(stopCmd(api.CommandKill, old.ID(), 30), startCmd(next))
			if c.listed {
				fm.waitFor("a sync listing the deferred start", func(fm *fakeMaster) bool {
					return slices.ContainsFunc(fm.syncs, func(s api.Sync) bool { return slices.Contains(s.Starting, next.ID()) })
				})
			} else {
				// Two syncs after the one that carried the start: the
				// agent has deferred it by then.
				n := 0
				fm.locked(func(fm *fakeMaster) { n = len(fm.syncs) })
				fm.waitFor("two more syncs", func(fm *fakeMaster) bool { return len(fm.syncs) >= n+2 })
			}
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			fm.waitFor("the new attempt's exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(next.ID()); return ok })
			fm.locked(func(fm *fakeMaster) {
				for _, s := range fm.syncs {
					if len(s.Starting) > 0 && !c.listed {
						t.Errorf("sync %+v lists starts to a master that does not take the list", s)
					}
					if slices.Contains(s.Starting, next.ID()) && slices.Contains(s.Running, next.ID()) {
						t.Errorf("sync %+v lists the attempt both starting and running", s)
					}
				}
				if exit, _ := fm.exitOf(next.ID()); exit.Outcome != string(agent.OutcomeCompleted) {
					t.Errorf("new attempt: exit %+v, want completed", exit)
				}
			})
		})
	}
}
