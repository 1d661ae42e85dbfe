package master

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// The notes in a job's event log of a node gone and back (trial 29e E4:
// after its node was lost and came back within lost_node_grace, `allot
// job events` said nothing of either, though the master logged both):
// a note of each held task's open attempt when its node is lost or left
// and the attempt is held through lost_node_grace (store.CauseNodeLost),
// and one when the node registers again with the attempt still running
// there (store.CauseNodeBack). Notes keep the task's state (From = To):
// the what-if export, the decision log and the restores take no move
// from them, so the replay reads the history as before.

// heldEventReason is the reason of the note that a node gone (why:
// the loss's or leave's own reason, which names it and since when it
// counts, lostAt) holds a task's attempt until lost_node_grace ends.
func heldEventReason(why string, lostAt time.Time, grace time.Duration) string {
	return fmt.Sprintf("%s; the task is held until %s (lost_node_grace %s): its attempt ends then unless the node comes back",
		why, msgTime(lostAt.Add(grace)), configSpan(grace))
}

// noteHeld records, in the batch under way, that node n's loss (or
// leave, for why) holds task t's attempt (holdsThroughLoss). Callers
// hold mu.
func noteHeld(ctx context.Context, m *Master, t *mtask, n *mnode, why string) error {
	_, err := m.batches.w().TransitionTask(ctx, store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
		From: t.rec.State, To: t.rec.State, Attempt: t.rec.Attempt, At: m.now(), Cause: store.CauseNodeLost,
		Reason: heldEventReason(why, n.lostAt, m.cfg.LostNodeGrace)})
	if err != nil {
		return fmt.Errorf("note task %s held on node %s: %w", t.id(), n.rec.Name, err)
	}
	return nil
}

// noteBack records, for each attempt on node n that its agent lists
// running (running) as it registers again after the node was lost or
// left (was, the node's state before), that the node is back and the
// attempt goes on. A failed note is logged, not returned: the
// registration stands without it. Callers hold mu.
func noteBack(ctx context.Context, m *Master, n *mnode, was store.NodeState, running []agent.TaskID) {
	if was != store.NodeLost && was != store.NodeLeft {
		return
	}
	now := m.now()
	gone := "after it was " + string(was)
	if !n.lostAt.IsZero() {
		gone = fmt.Sprintf("%s after it was %s", configSpan(now.Sub(n.lostAt).Round(time.Second)), was)
	}
	for _, t := range m.tasksOn(n.rec.Name) {
		p := t.part(n.rec.Name)
		if p == nil || p.state == partExited || p.exitSaid || !slices.Contains(running, t.id()) {
			continue
		}
		_, err := m.st.TransitionTask(ctx, store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
			From: t.rec.State, To: t.rec.State, Attempt: t.rec.Attempt, At: now, Cause: store.CauseNodeBack,
			Reason: fmt.Sprintf("node %s back, %s: its agent still runs the task, which goes on", n.rec.Name, gone)})
		if err != nil {
			m.log.Warn("noting a task's node back in its event log", "task", t.id().String(), "node", n.rec.Name, "err", err)
		}
	}
}
