package master

import (
	"context"
	"errors"
	"strconv"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
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
// parts in the agents' running lists and holds them again (stray). When
// the last of them has ended, the store records it (an event of the
// attempt, store.NoteLeftEnded) before the hold is let go of, so that
// the what-if export gives the simulator, which holds those parts' slots
// and the task as well (lifecycle's Tasks.Leave), the time they took
// (leftTook).

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
	h.left = true
	sb.m.log.Warn("asking the part of a lost gang on a node still up to checkpoint; "+
		"its GPUs and its task wait for its end", "node", n.rec.Name, "task", id.String(), "gpus", gpus, "grace", grace)
	n.send(h.stop(id, grace))
}

// lastLeft says whether key is the last part of its attempt held as a
// lost gang's part on a node up (holdLeft).
func (sb *strayBook) lastLeft(key strayKey) bool {
	for k, h := range sb.holds {
		if k != key && k.id == key.id && h.left {
			return false
		}
	}
	return true
}

// leftEnded records that the parts of key's attempt left running on
// nodes up (holdLeft) have ended, now, their last, key's, on key.node
// (store.NoteLeftEnded), and reports whether the hold may be let go of:
// not when the store failed (the next sync or check tries again). An
// attempt the store does not have ended lost, or has no more, is let go
// of with a warning. Callers hold mu.
func (sb *strayBook) leftEnded(key strayKey, h *strayHold) bool {
	jid, err := strconv.ParseInt(key.id.JobID, 10, 64)
	if err != nil {
		return true
	}
	note := "its parts on nodes still up, asked to checkpoint at its loss, have ended (the last on node " + key.node + ")"
	err = sb.m.batches.w().NoteLeftEnded(context.Background(), jid, key.id.TaskIndex, key.id.Attempt, sb.m.now(), note)
	switch {
	case errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound):
		sb.m.log.Warn("end of a lost gang's parts not recorded", "task", key.id.String(), "err", err)
	case err != nil:
		sb.m.log.Error("recording the end of a lost gang's parts", "task", key.id.String(), "err", err)
		return false
	}
	h.noted = true
	return true
}
