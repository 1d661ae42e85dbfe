package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// Consolidation (sched.Plan.Moves) and elastic growth (sched.Plan.Resizes)
// both re-place a running task: the task checkpoints and resumes on its
// new slots at once, in the same attempt. The part of its old placement
// that the new one does not reuse drains like a preempted task's slots
// for the pool's checkpoint cost: a move leaves all of it, a resize
// whatever of it the new placement does not cover (per node, old minus
// new slots). Until then the simulator keeps that part as a task record
// of its own, marked moving, which the snapshot reports as a Preempting,
// Moving allocation beside the running one, as the core expects.

// move re-places running task ti on nodes; its whole old placement
// drains, and the move counts against its project's preemption budget.
func (s *sim) move(ti int32, nodes []sched.NodeSlots) {
	s.rec.moves++
	s.replace(ti, nodes, lifecycle.Move)
}

// resize re-places running task ti of an elastic job on nodes, its new
// and complete placement; what it held on each node beyond its new slots
// there drains.
func (s *sim) resize(ti int32, nodes []sched.NodeSlots) {
	s.rec.resizes++
	s.replace(ti, nodes, lifecycle.Resize)
}

// replace re-places running task ti on nodes as r says (lifecycle's
// rule, the master's too): what of its old placement drains, and whether
// its project's budget is charged.
func (s *sim) replace(ti int32, nodes []sched.NodeSlots, r lifecycle.Replace) {
	t := &s.tasks[ti]
	s.scratch = lifecycle.Draining(s.scratch[:0], r, t.nodes, nodes)
	if r.ChargesBudget() {
		s.noteBudget(s.jobs[t.job].qp)
	}
	s.restart(ti, nodes, s.scratch)
}

// restart checkpoints running task ti and resumes it on nodes at once;
// drain, the part of its old placement it lets go of, drains as a moving
// record of its own.
func (s *sim) restart(ti int32, nodes, drain []sched.NodeSlots) {
	if len(drain) > 0 {
		oi := s.newTask() // may grow s.tasks: take pointers after it
		t, o := &s.tasks[ti], &s.tasks[oi]
		o.job, o.id, o.attempt, o.start, o.from, o.work = t.job, t.id, -1, t.start, t.from, 0
		o.nodes = append(o.nodes[:0], drain...)
		o.ver++
		o.preempting, o.moving, o.backfilled, o.limited, o.alive = true, true, false, false, true
		o.preemptAt = s.now
		s.running = append(s.running, oi)
		j := &s.jobs[t.job]
		s.q.push(event{at: s.now + s.in.Pools[j.spec.Pool].CheckpointCost, kind: evCheckpoint, ref: oi, ver: o.ver})
		j.moving++
	}
	t := &s.tasks[ti]
	j := &s.jobs[t.job]
	t.lost += s.checkpointNow(t)
	delta := sched.Slots(nodes) + sched.Slots(drain) - sched.Slots(t.nodes)
	t.from = s.now
	t.nodes = append(t.nodes[:0], nodes...)
	s.rec.moveAttempt(t, nodes)
	t.backfilled = false
	t.ver++ // the end event of the old placement no longer applies
	j.held += delta
	s.rec.hold(t.job, delta)
	if end, limited := s.taskEnd(t, j); end >= 0 {
		t.limited = limited
		s.q.push(event{at: end, kind: evEnd, ref: ti, ver: t.ver})
	}
	s.scheduleReport(ti)
}

// moved frees the old placement of a moved task once it has drained.
func (s *sim) moved(oi int32) {
	o := &s.tasks[oi]
	j := &s.jobs[o.job]
	slots := sched.Slots(o.nodes)
	j.held -= slots
	j.moving--
	if j.held == 0 {
		j.busy += s.now - j.busySince
	}
	s.rec.checkpointed(int64(slots) * (s.now - o.preemptAt))
	s.rec.hold(o.job, -slots)
	o.alive = false
	o.ver++
}

// dropMoves frees the draining old placements of a job that is ending.
func (s *sim) dropMoves(ji int32) {
	for _, ti := range s.running {
		if t := &s.tasks[ti]; t.alive && t.moving && t.job == ji {
			s.moved(ti)
		}
	}
}
