package master

import (
	"context"
	"fmt"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A gang's part that its agent stopped (trial n, F13). An agent that
// shuts down under allot agent --on-exit kill, or whose fence stops its
// tasks in a master outage, preempts its parts with the checkpoint grace
// and reports them preempted. For a one-node task that report ends the
// attempt preempted (finish), which requeues the task by its exit
// actions. For a gang whose other parts run on, the master used to wait
// for them and, at the node's leave a few milliseconds later, ended the
// attempt lost and killed the other parts at once: the rank that had
// saved its checkpoint read "lost", and the others lost theirs. Now the
// report makes the task preempting, as a pass's preemption would
// (persisted first, store.CauseAgentStopped: no pass asked it, and the
// what-if export writes the attempt as its job's agent_preempted, not a
// decision), the other parts get the preempt with the pool's checkpoint
// grace, and once they have exited the attempt ends preempted (finish,
// lifecycle.EndPreempted) and the task waits again by its exit actions.
// The node's leave then finds the attempt's part there ended and leaves
// the attempt to its other parts (nodeGone).

// agentStopped makes running task t, whose part on node its agent
// reported preempted while its other parts run, preempting, and asks
// those parts to checkpoint with the pool's grace. Callers hold mu.
func (ag *agents) agentStopped(ctx context.Context, t *mtask, node string) error {
	reason := fmt.Sprintf("node %s's agent stopped its part: checkpointing the others", node)
	rec, err := ag.m.batches.w().TransitionTask(ctx, store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
		From: t.rec.State, To: store.TaskPreempting, Attempt: t.rec.Attempt, At: ag.m.now(), Reason: reason,
		Cause: store.CauseAgentStopped})
	if err != nil {
		return err
	}
	ag.m.setTask(t, rec)
	t.att.stoppedBy = node
	ag.m.sendAll(t, api.CommandPreempt, poolGrace(ag.m.cfg, t.job.rec.Pool))
	ag.m.log.Info("preempting task", "task", t.id().String(), "reason", reason)
	return nil
}

// stoppedThere reports whether t's attempt lost nothing when node goes:
// its agent stopped the attempt's part there, reported preempted, and
// the others are checkpointing (agentStopped).
func stoppedThere(t *mtask, node string) bool {
	return t.att != nil && t.att.stoppedBy == node && t.rec.State == store.TaskPreempting
}

// agentStops gives back, to job j's tasks restored preempting as an
// agent stopped a part of theirs (store.CauseAgentStopped), that part:
// the one on a node that left since. The store keeps no part's exit
// and restoreTask restores every part running, so the node's loss
// (checkLostNodes) or its agent's word would end the attempt lost after
// a restart, where the master before it waited for the other parts.
func (r *restorer) agentStops(ctx context.Context, j *mjob) error {
	var since time.Time
	for _, t := range j.tasks {
		if t.att != nil && !t.Replacement.Replacing() && t.rec.State == store.TaskPreempting && (since.IsZero() || t.rec.UpdatedAt.Before(since)) {
			since = t.rec.UpdatedAt
		}
	}
	if since.IsZero() {
		return nil
	}
	evs, err := r.m.st.Events(ctx, store.EventFilter{JobID: j.rec.ID, To: string(store.TaskPreempting), Since: since.Add(-time.Second)})
	if err != nil {
		return fmt.Errorf("read the stops of its agents: %w", err)
	}
	for _, e := range evs {
		if e.Cause != store.CauseAgentStopped || e.Index < 0 || e.Index >= len(j.tasks) {
			continue
		}
		t := j.tasks[e.Index]
		if t.att == nil || t.rec.State != store.TaskPreempting || e.Attempt != t.rec.Attempt {
			continue
		}
		for _, p := range t.att.parts {
			if n := r.m.nodes[p.node]; n != nil && n.rec.State == store.NodeLeft {
				p.state, p.outcome, p.exitedAt = partExited, agent.OutcomePreempted, e.At
				t.att.stoppedBy = p.node
			}
		}
	}
	return nil
}
