package agentd

import (
	"errors"
	"io"
	"os"
	"slices"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// Fields a master must announce (api.RegisterReply.Accepts). The master
// decodes an agent's body strictly and refuses a field it does not know,
// so a field newer than the protocol's first goes out only when the
// reply of the latest registration named it. The reports queued keep
// what the agent knows whatever the master: a report queued for one
// master may go to another after a re-registration (an older one after
// a rollback), so the fields are dropped as a sync is sent
// (forMasterLocked), not as the report is made.

// masterCaps is what the master the agent last registered with takes.
// Guarded by Agent.mu.
type masterCaps struct {
	accepts []string
}

// heardLocked takes a registration reply's list in; the caller holds mu.
func (c *masterCaps) heardLocked(accepts []string) { c.accepts = slices.Clone(accepts) }

// takes reports whether the master announced field (an api.Accept
// constant).
func (c *masterCaps) takes(field string) bool { return slices.Contains(c.accepts, field) }

// forMasterLocked is reps as the master takes them: without
// Checkpoint unless it announced it. reps is not changed.
func (c *masterCaps) forMasterLocked(reps []api.Report) []api.Report {
	if c.takes(api.AcceptReportCheckpoint) {
		return reps
	}
	var out []api.Report
	for i, r := range reps {
		if r.Checkpoint == "" {
			continue
		}
		if out == nil {
			out = slices.Clone(reps)
		}
		out[i].Checkpoint = ""
	}
	if out == nil {
		return reps
	}
	return out
}

// startingLocked lists the deferred starts (deferstart.go) for a sync to
// a master that takes the list; nil for one that does not. The caller
// holds mu.
func (a *Agent) startingLocked() []agent.TaskID {
	if !a.caps.takes(api.AcceptSyncStarting) || len(a.defers.starts) == 0 {
		return nil
	}
	ids := make([]agent.TaskID, 0, len(a.defers.starts))
	for id := range a.defers.starts {
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids
}

// checkpointState says what checkpoint directory dir holds as an
// attempt ends (api.Report.Checkpoint): written when it has any entry,
// none when it is empty or missing (the task removed it), "" when the
// agent cannot tell (dir unknown, or unreadable). Only whether something
// is there: a task that wrote a partial checkpoint and was killed
// leaves something, and whether it can resume from it is the task's.
func checkpointState(dir string) string {
	if dir == "" {
		return ""
	}
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return api.CheckpointNone
	}
	if err != nil {
		return ""
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	switch {
	case len(names) > 0:
		return api.CheckpointWritten
	case errors.Is(err, io.EOF):
		return api.CheckpointNone
	}
	return ""
}

// checkpointDirOf is the checkpoint directory to record for an attempt
// of spec as it starts (stateRecord.CheckpointDir); "" when it cannot be
// resolved, which leaves its exit report without Checkpoint.
func checkpointDirOf(spec agent.TaskSpec) string {
	dir, err := spec.CheckpointPath()
	if err != nil {
		return ""
	}
	return dir
}
