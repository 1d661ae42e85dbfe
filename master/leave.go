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
// that will not run them. The Final sync, which carries the agent's last
// reports and lists nothing running, marks the node left at once rather
// than lost at the agent timeout: its attempts ended as reported, none
// is lost. An attempt still open on it then (a gang's, whose other parts
// run on, or a start the agent never got) ends at once as on a lost
// node (loseNode): lost, its other parts killed, unless it is held
// through the loss. Callers hold mu.
func (ag *agents) leave(ctx context.Context, n *mnode, s api.Sync) error {
	if !s.Leaving && !s.Final {
		return nil
	}
	if !n.leaving {
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
