package master

import (
	"time"

	"github.com/allot-sched/allot/api"
)

// fence is what node n's agent is told, with every registration and sync
// reply, of how the master would end the node's work were the agent to
// fall silent: the agent timeout and lost_node_grace in force, the
// checkpoint grace of its pool, and the attempts held through a loss
// (holdsThroughLoss), so that the agent can stop the others before the
// master runs them elsewhere (agentd's fence; docs/reliability.md). nil
// when the configuration turns the fence off. Callers hold mu.
func (ag *agents) fence(n *mnode) *api.Fence {
	cfg := ag.m.cfg
	if cfg.NoFence {
		return nil
	}
	f := &api.Fence{AgentTimeoutMS: agentTimeout(cfg).Milliseconds(), LostNodeGraceMS: cfg.LostNodeGrace.Milliseconds(),
		GraceS: int64(poolGrace(cfg, n.pool) / time.Second)}
	for _, t := range ag.m.tasksOn(n.rec.Name) {
		if p := t.part(n.rec.Name); p != nil && p.state != partExited && ag.holdsThroughLoss(t) {
			f.Held = append(f.Held, t.id())
		}
	}
	return f
}
