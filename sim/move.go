package sim

import "github.com/allot-sched/allot/lifecycle"

// Consolidation (sched.Plan.Moves) and elastic growth (sched.Plan.Resizes)
// both re-place a running task, as the live master does
// (lifecycle.Replannable): the task checkpoints, in the same attempt,
// holding its old slots and its new placement reserved, does no work
// for the pool's checkpoint cost, and restarts on the new placement when
// the checkpoint lands. The part of its old placement that the new one
// does not reuse (a move's all of it, a resize's whatever the new
// placement does not cover, per node old minus new slots) is a task
// record of its own, marked moving, which the snapshot reports as a
// Preempting, Moving allocation beside the reserved one, as the core
// expects, and which the landing frees.

// replaced reacts to a move or resize of running task e.Task, which now
// checkpoints: its landing, after its checkpoint time (checkpointCost), restarts
// it (relanded), and a move counts against its project's preemption
// budget.
func (s *sim) replaced(e *lifecycle.Effect) {
	t := s.c.Tasks.At(e.Task)
	ji := t.Job
	j := &s.jobs[ji]
	if e.ChargesBudget() {
		s.wakeBudget(j.qp)
	}
	cost := s.checkpointCost(t)
	if e.Replaced.Drain >= 0 {
		// What drains is free at the landing in a forecast (Hold.FreeBy).
		s.c.Tasks.Stopping(e.Replaced.Drain, s.now, cost)
	}
	s.q.push(event{at: s.now + cost, kind: evCheckpoint, ref: e.Task, ver: t.Ver})
	s.rec.lostWork += e.LostWork
	s.rec.moveAttempt(t, e.Nodes)
	s.rec.hold(ji, e.Replaced.Delta)
}

// relanded reacts to the landing of re-placed task ti's checkpoint
// (lifecycle.Cluster.Observe): the drained part of its old placement is
// free, and the task runs on its new placement from now, so its end,
// failure and reports are promised from now; the losses and agents'
// preemptions scripted for its attempt, which the re-placement
// continues, are promised again.
func (s *sim) relanded(ti int32, o *lifecycle.Outcome) {
	for _, f := range o.Freed {
		s.freed(f.Task, f.Slots, f.From)
	}
	t := s.c.Tasks.At(ti)
	s.rec.landedAttempt(t)
	if end, _ := t.Due(s.c.Jobs[t.Job].Shape); end >= 0 {
		s.q.push(event{at: end, kind: evEnd, ref: ti, ver: t.Ver})
	}
	s.scheduleFail(ti)
	s.scheduleReport(ti)
	s.attemptLost(ti)
	s.agentPreempts(ti)
}
