package sim

import "github.com/allot-sched/allot/lifecycle"

// Scripted failures (JobSpec.Fails). A task whose job scripts its
// failure exits with an error once it has done that much of its work, the
// progress counted as for its end (lifecycle.Task.Due: preemptions keep
// it, an elastic task works at the rate of its slots). Each start and
// re-placement schedules the failure with the task's version, as its end
// is scheduled, so a preemption or move in between makes it stale and
// the next attempt schedules it anew. A failed task is done and never
// retried (lifecycle.Cluster.Fail), as on a live cluster.

// scheduleFail pushes the failure of task ti, if its job scripts one that
// comes no later than the attempt's end.
func (s *sim) scheduleFail(ti int32) {
	t := s.c.Tasks.At(ti)
	j := &s.jobs[t.Job]
	after, ok := j.spec.Fails[int(t.ID)]
	if !ok || t.Work == lifecycle.Unbounded {
		return
	}
	lj := &s.c.Jobs[t.Job]
	// The work left until the failure, in the task's units (slot-seconds
	// for an elastic job): what it has left less what it would have left
	// at the failure.
	left := t.Work - (lj.Fresh - lifecycle.FreshWork(after, j.spec.Slots, lj.Shape.Elastic))
	at := t.From
	if left > 0 {
		r := t.Rate(lj.Shape)
		at += (left + r - 1) / r
	}
	if end, _ := t.Due(lj.Shape); end >= 0 && at > end {
		return // it ends (completes, or at its time limit) first
	}
	s.q.push(event{at: at, kind: evFail, ref: ti, ver: t.Ver})
}

// fail applies a scheduled failure that still applies.
func (s *sim) fail(e event) {
	if !s.c.Tasks.Current(e.ref, e.ver) {
		return
	}
	if o := s.c.Fail(s.now, e.ref); o.Applied {
		t := s.c.Tasks.At(e.ref)
		s.rec.endAttempt(t, lifecycle.AttemptFailed, false)
		if js := s.jobs[t.Job].search; js != nil {
			js.failed(int(t.ID))
		}
		s.outcome(e.ref, &o, lifecycle.TaskRunning)
	}
}
