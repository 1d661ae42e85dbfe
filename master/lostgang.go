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
// When the last of them has ended, the store records it (an event of
// the attempt, store.NoteLeftEnded) before the hold is let go of, so
// that the what-if export gives the simulator, which holds those parts'
// slots and the task as well (lifecycle's Tasks.Leave), the time they
// took (leftTook).
//
// The hold lives in memory, as a stray's, but the attempt is in the
// store (ended lost, its task waiting to resume, no left_ended event),
// so a restarted master follows it again (restoreLefts, lostgangend.go)
// and records that end exactly as it would have without the restart:
// a part its agent lists running at its registration is held again as
// a lost gang's (stray), a part that ended while the master was down
// ends at the exit its agent reports (listed exited, its report to
// come), else at the registration that lists it no more (when the
// master learnt of it), and a part whose node is lost, left or deleted
// first ends at that loss. The part held again gets a fresh grace from
// the registration, the master's kill after it included: the store
// does not say whether, or when, the first request reached the agent
// (it may have been queued for a sync that never came), and counting
// from the loss could kill, before it checkpoints, a part that never
// had it; an agent that had it keeps its first deadline (agent.Task's
// Preempt: a second changes nothing), so the part itself ends as it
// would have.

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
// request, each part held until it ends (strayBook.holdLeft), their
// attempt followed until the last has (leftWait). A node up whose agent
// has not registered with this master (restarted) gets nothing now: its
// registration lists the part, which the master then holds by the same
// rule (stray), or does not (registeredLefts). Callers hold mu, and call
// it before the attempt's end changes t.
func (ag *agents) stopLeft(t *mtask, checkpoint bool) {
	id := t.id()
	type ask struct {
		n    *mnode
		gpus []int
	}
	var asks []ask
	var unheard []*mpart
	for _, p := range ag.leftParts(t) {
		n := ag.m.nodes[p.node]
		switch {
		case !n.registered && checkpoint:
			unheard = append(unheard, p)
		case !n.registered:
		case !checkpoint:
			ag.m.batches.send(n, api.Command{Type: api.CommandKill, Task: id})
		default:
			gpus := make([]int, 0, len(p.gpus))
			for _, g := range p.gpus {
				gpus = append(gpus, g.Index)
			}
			asks = append(asks, ask{n, gpus})
		}
	}
	if len(asks) == 0 && len(unheard) == 0 {
		return
	}
	ag.m.batches.later(func() {
		ag.strays.waitLeft(t, id, ag.m.now(), unheard)
		for _, a := range asks {
			ag.strays.holdLeft(a.n, t, id, a.gpus)
		}
	})
}

// holdLeft asks the part on node n of attempt id of task t, which the
// master ended lost while the part runs on (stopLeft), to checkpoint
// with the pool's grace, and holds gpus and t's start until it has ended
// (stray.go). Callers hold mu.
func (sb *strayBook) holdLeft(n *mnode, t *mtask, id agent.TaskID, gpus []int) {
	grace := poolGrace(sb.m.cfg, t.job.rec.Pool)
	h := sb.hold(strayKey{id, n.rec.Name}, t, gpus, grace, sb.m.now())
	h.left = true
	sb.m.log.Warn("asking the part of a lost gang on a node still up to checkpoint; "+
		"its GPUs and its task wait for its end", "node", n.rec.Name, "task", id.String(), "gpus", gpus, "grace", grace)
	n.send(h.stop(id, grace))
}
