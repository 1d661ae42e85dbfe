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
// its project's budget is charged. The task checkpoints and resumes on
// nodes at once; the part of its old placement it lets go of drains as a
// moving record of its own.
func (s *sim) replace(ti int32, nodes []sched.NodeSlots, rep lifecycle.Replace) {
	ji := s.c.Tasks.At(ti).Job
	j := &s.jobs[ji]
	if rep.ChargesBudget() {
		s.wakeBudget(j.qp)
	}
	r := s.c.Replace(ti, nodes, rep, s.now)
	if r.Drain >= 0 {
		o := s.c.Tasks.At(r.Drain)
		s.q.push(event{at: s.now + s.in.Pools[j.spec.Pool].CheckpointCost, kind: evCheckpoint, ref: r.Drain, ver: o.Ver})
	}
	t := s.c.Tasks.At(ti)
	s.rec.lostWork += r.LostWork
	s.rec.moveAttempt(t, nodes)
	s.rec.hold(t.Job, r.Delta)
	if end, _ := t.Due(s.c.Jobs[ji].Shape); end >= 0 {
		s.q.push(event{at: end, kind: evEnd, ref: ti, ver: t.Ver})
	}
	s.scheduleReport(ti)
}

// moved frees the old placement of a moved task once it has drained.
func (s *sim) moved(oi int32) {
	s.freed(oi, s.c.Drained(oi))
}

// dropMoves frees the draining old placements of a job that is ending.
func (s *sim) dropMoves(ji int32) {
	for _, ti := range s.c.Tasks.Running() {
		if t := s.c.Tasks.At(ti); t.Alive && t.Moving && t.Job == ji {
			s.moved(ti)
		}
	}
}
