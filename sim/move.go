package sim

import "github.com/allot-sched/allot/lifecycle"

// Consolidation (sched.Plan.Moves) and elastic growth (sched.Plan.Resizes)
// both re-place a running task: the task checkpoints and resumes on its
// new slots at once, in the same attempt. The part of its old placement
// that the new one does not reuse drains like a preempted task's slots
// for the pool's checkpoint cost: a move leaves all of it, a resize
// whatever of it the new placement does not cover (per node, old minus
// new slots). Until then the simulator keeps that part as a task record
// of its own, marked moving, which the snapshot reports as a Preempting,
// Moving allocation beside the running one, as the core expects.

// replaced reacts to a move or resize of running task e.Task, which
// checkpointed and resumed on e.Nodes at once (lifecycle's rule, the
// master's too): the part of its old placement it let go of drains as a
// moving record of its own until its checkpoint lands, and a move counts
// against its project's preemption budget.
func (s *sim) replaced(e *lifecycle.Effect) {
	t := s.c.Tasks.At(e.Task)
	ji := t.Job
	j := &s.jobs[ji]
	if e.Op.Replace().ChargesBudget() {
		s.wakeBudget(j.qp)
	}
	if r := e.Replaced; r.Drain >= 0 {
		o := s.c.Tasks.At(r.Drain)
		s.q.push(event{at: s.now + s.in.Pools[j.spec.Pool].CheckpointCost, kind: evCheckpoint, ref: r.Drain, ver: o.Ver})
	}
	s.rec.lostWork += e.LostWork
	s.rec.moveAttempt(t, e.Nodes)
	s.rec.hold(ji, e.Replaced.Delta)
	if end, _ := t.Due(s.c.Jobs[ji].Shape); end >= 0 {
		s.q.push(event{at: end, kind: evEnd, ref: e.Task, ver: t.Ver})
	}
	s.scheduleFail(e.Task)
	s.scheduleReport(e.Task)
}
