package master

import (
	"context"
	"fmt"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// leave handles an agent's goodbye (api.Sync.Leaving and Final), once the
// sync's reports are applied. From the first leaving sync on, the node
// takes no new task (draining): the agent is stopping its tasks, and the
// ones their exit reports requeue must go elsewhere, not to an agent
// that will not run them. That sync, unless it is the final one too, is
// recorded in the node history (store.NodeLeaving) before the node is
// marked, so that the what-if export drains the node from then, as the
// master did (whatif_nodestates.go). The Final sync, which carries the agent's last
// reports and lists nothing running, marks the node left at once rather
// than lost at the agent timeout: its attempts ended as reported, none
// is lost. A gang's attempt whose part there the agent reported
// preempted checkpoints its other parts and ends preempted once they
// have (agentstop.go): the leave leaves it to them. Any other attempt
// still open on it then (a start the agent never got) ends at once as on
// a lost node (loseNode): lost, its other parts killed, unless it is held
// through the loss. A sync without Leaving does not end a leave: only a
// registration does (register), which says whether the agent leaves.
// Callers hold mu.
func (ag *agents) leave(ctx context.Context, n *mnode, s api.Sync) error {
	if !s.Leaving && !s.Final {
		return nil
	}
	if !n.leaving {
		if n.up() && !s.Final {
			// A goodbye that is final at once leaves no time between.
			ag.m.batches.touchNode(n)
			if err := ag.m.batches.w().NodeLeaving(ctx, n.rec.Name, ag.m.now()); err != nil {
				return err
			}
		}
		n.leaving = true
		ag.m.pub.markNode(n)
		ag.m.log.Info("agent leaving: no new task goes to the node", "node", n.rec.Name, "running", len(s.Running))
	}
	if !s.Final || !n.up() {
		return nil
	}
	ag.m.log.Info("node left", "node", n.rec.Name)
	if _, err := ag.nodeGone(ctx, n, store.NodeLeft, fmt.Sprintf("node %s left with the attempt open on it", n.rec.Name)); err != nil {
		return err
	}
	ag.m.kick()
	return nil
}
