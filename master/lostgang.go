package master

import (
	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// A gang that loses one of its nodes (trial 2026-11-29b B18). The master
// ends the attempt lost at the loss (endAttempt), on no agent's word, as
// for any task there. Its parts on the nodes that stayed up used to be
// killed at once (SIGKILL, no grace), so the rank that writes a
// torchrun job's checkpoint (rank 0, on a healthy node) lost its work,
// while the part on the lost node checkpointed by its shim's fence. When
// the task waits to resume (its job preemptible, its exit actions
// rescheduling it: lifecycle.CheckpointsOnLoss), those parts are now
// stopped as a preemption stops them: CommandPreempt with the pool's
// grace (the preempt file and SIGTERM, the agent's SIGKILL at the
// deadline). Each is held as a stray is (stray.go): its GPUs stay out of
// every plan, and its task does not start again anywhere, until its
// agent no longer lists it; past the grace and strayMargin the master
// kills it and holds on until its end. So the next attempt resumes from
// the checkpoint the healthy ranks wrote, and no two attempts write one
// checkpoint at once. A task that fails by the loss (its job is not
// preemptible) has nothing to resume: its parts are killed, as before.
// The hold lives in memory, as a stray's: a restarted master finds the
// parts in the agents' running lists and holds them again (stray).

// leftParts are the parts of t's open attempt that may still run on
// nodes that are up: those a loss leaves running.
func (ag *agents) leftParts(t *mtask) []*mpart {
	var out []*mpart
	for _, p := range t.att.parts {
		if n := ag.m.nodes[p.node]; p.state != partExited && n != nil && n.up() {
			out = append(out, p)
		}
	}
	return out
}

// stopLeft stops the parts of t's attempt, which the master is ending on
// no agent's word, that run on nodes up (leftParts), once that end is
// durable: a kill at once, or, with checkpoint, the pool's checkpoint
// request, each part held until it ends (strayBook.holdLeft). A node up
// whose agent has not registered with this master (restarted) gets
// nothing now: its registration lists the part, which the master then
// stops by the same rule (stray). Callers hold mu, and call it before
// the attempt's end changes t.
func (ag *agents) stopLeft(t *mtask, checkpoint bool) {
	id := t.id()
	for _, p := range ag.leftParts(t) {
		n := ag.m.nodes[p.node]
		if !n.registered {
			continue
		}
		if !checkpoint {
			ag.m.batches.send(n, api.Command{Type: api.CommandKill, Task: id})
			continue
		}
		gpus := make([]int, 0, len(p.gpus))
		for _, g := range p.gpus {
			gpus = append(gpus, g.Index)
		}
		ag.m.batches.later(func() { ag.strays.holdLeft(n, t, id, gpus) })
	}
}

// holdLeft asks the part on node n of attempt id of task t, which the
// master ended lost while the part runs on (stopLeft), to checkpoint
// with the pool's grace, and holds gpus and t's start until it has ended
// (stray.go). Callers hold mu.
func (sb *strayBook) holdLeft(n *mnode, t *mtask, id agent.TaskID, gpus []int) {
	grace := poolGrace(sb.m.cfg, t.job.rec.Pool)
	h := sb.hold(strayKey{id, n.rec.Name}, t, gpus, grace, sb.m.now())
	sb.m.log.Warn("asking the part of a lost gang on a node still up to checkpoint; "+
		"its GPUs and its task wait for its end", "node", n.rec.Name, "task", id.String(), "gpus", gpus, "grace", grace)
	n.send(h.stop(id, grace))
}
