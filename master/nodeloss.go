package master

import (
	"context"
	"fmt"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// Nodes whose agents went silent: the loss of a node and of the attempts
// on it, the tasks held through lost_node_grace and the end of that
// grace, and the check that finds silent agents.

// loseNode marks a node lost and ends the attempts on it, except those
// held through the loss (holdsThroughLoss), which wait for the node to
// come back for lost_node_grace. Callers hold mu.
func (ag *agents) loseNode(ctx context.Context, n *mnode, reason string) error {
	ag.m.log.Warn("node lost", "node", n.rec.Name, "reason", reason)
	held, err := ag.nodeGone(ctx, n, store.NodeLost, reason)
	if err != nil {
		return err
	}
	if held > 0 {
		ag.m.log.Warn("non-preemptible tasks on the lost node wait for it to come back", "node", n.rec.Name,
			"tasks", held, "grace", ag.m.cfg.LostNodeGrace)
	}
	ag.m.kick()
	return nil
}

// nodeGone stores that node n is no longer up (lost, or left by its
// agent's goodbye) and ends the attempts still open on it with reason,
// but those held through its loss (holdsThroughLoss), whose number it
// returns. A lost node must register again; one that left stays
// registered, since the reply to its final sync may be lost and the
// agent's retry must be acknowledged, not told to register. Callers
// hold mu.
func (ag *agents) nodeGone(ctx context.Context, n *mnode, to store.NodeState, reason string) (held int, err error) {
	// Syncs store the heartbeat every third of the agent timeout; the
	// last contact is stored exactly before the node reads lost or left,
	// as it is what the node shows from now on, across restarts too.
	ag.m.batches.touchNode(n)
	if n.seen.After(n.savedBeat) {
		if err := ag.m.batches.w().Heartbeat(ctx, n.rec.Name, n.seen); err != nil {
			return 0, err
		}
		n.savedBeat = n.seen
	}
	if err := ag.m.batches.w().SetNodeState(ctx, n.rec.Name, store.NodeUp, to, ag.m.now()); err != nil {
		return 0, err
	}
	n.rec.State = to
	n.registered = n.registered && to == store.NodeLeft
	n.commands = nil
	n.lostAt = ag.m.now()
	for _, t := range ag.m.tasksOn(n.rec.Name) {
		if stoppedThere(t, n.rec.Name) {
			continue // its part there was reported preempted (agentstop.go)
		}
		if ag.holdsThroughLoss(t) {
			held++
			if err := noteHeld(ctx, ag.m, t, n, reason); err != nil { // nodeheld.go
				return held, err
			}
			continue
		}
		if err := ag.loseAttempt(ctx, t, reason, ""); err != nil {
			return held, err
		}
	}
	return held, nil
}

// holdsThroughLoss reports whether a task on a lost node keeps its attempt
// for lost_node_grace, by the rule the simulator follows
// (lifecycle.HoldsThroughLoss): a task that must not run twice (not
// preemptible), is not being killed, and may have run (mayHaveRun: a
// part reported running, or its start reached the agent).
func (ag *agents) holdsThroughLoss(t *mtask) bool {
	return lifecycle.HoldsThroughLoss(ag.m.cfg.LostNodeGrace, t.job.rec.Preemptible, t.rec.State == store.TaskKilling, t.mayHaveRun())
}

// killHeld ends at once, killed, the attempts of job j being killed that
// are held through their node's loss: no agent there can report the kill
// (the node's return finds the attempt no longer its and kills it), and
// a kill ends a task at once, held or not (lifecycle.HoldsThroughLoss
// holds no task being killed; the simulator's kill), so they end at the
// kill rather than at the next tick's checkLostNodes. Callers hold mu.
func (ag *agents) killHeld(ctx context.Context, j *mjob, reason string) error {
	for _, t := range j.tasks {
		if t.rec.State != store.TaskKilling || t.att == nil {
			continue
		}
		for _, p := range t.att.parts {
			if n := ag.m.nodes[p.node]; p.state != partExited && n != nil && !n.up() {
				if err := ag.endAttempt(ctx, t, reason, "", lifecycle.EndKilled); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// checkLostNodes ends the attempts held on lost nodes whose grace is over,
// and at once those being killed. Callers hold mu.
func (ag *agents) checkLostNodes(ctx context.Context) {
	now := ag.m.now()
	for _, n := range ag.m.nodes {
		if n.up() || (len(n.used) == 0 && n.zeroUsed == 0) {
			continue
		}
		if n.lostAt.IsZero() {
			n.lostAt = now       // lost with no history of it (restoreLosses)
			ag.m.pub.markNode(n) // its jobs' reasons say since when (lostview.go)
		}
		over := lifecycle.GraceOver(now.Sub(n.lostAt), ag.m.cfg.LostNodeGrace)
		for _, t := range ag.m.tasksOn(n.rec.Name) {
			if p := t.part(n.rec.Name); p == nil || p.state == partExited || (!over && ag.holdsThroughLoss(t)) {
				continue
			}
			reason := fmt.Sprintf("node %s lost for %s (lost_node_grace %s)", n.rec.Name,
				configSpan(now.Sub(n.lostAt).Round(time.Second)), configSpan(ag.m.cfg.LostNodeGrace))
			if err := ag.loseAttempt(ctx, t, reason, ""); err != nil {
				ag.m.log.Error("ending an attempt on a lost node", "node", n.rec.Name, "task", t.id().String(), "err", err)
			}
		}
	}
}

// startGrace is how long an agent has to report a start before the
// attempt may be ended as lost: a tenth of the agent timeout, at most 10 s.
func (ag *agents) startGrace() time.Duration {
	return min(agentTimeout(ag.m.cfg)/10, maxStartGrace)
}

// maxStartGrace bounds startGrace.
const maxStartGrace = 10 * time.Second

// checkAgents marks nodes lost whose agent has been silent longer than the
// agent timeout. Callers hold mu.
func (ag *agents) checkAgents(ctx context.Context) {
	now := ag.m.now()
	limit := agentTimeout(ag.m.cfg)
	for _, n := range ag.m.nodes {
		if !n.up() || n.polling > 0 || now.Sub(n.lastSeen) <= limit {
			continue
		}
		reason := fmt.Sprintf("node %s lost: no contact for %s", n.rec.Name, now.Sub(n.lastSeen).Round(time.Second))
		// One transaction for the node and every attempt it ends, not
		// one per attempt: a partition can lose many nodes at once.
		if err := ag.m.batches.inBatch(ctx, func() error { return ag.loseNode(ctx, n, reason) }); err != nil {
			ag.m.log.Error("marking node lost", "node", n.rec.Name, "err", err)
		}
	}
	ag.checkLostNodes(ctx)
	ag.strays.checkStrays(now)
}
