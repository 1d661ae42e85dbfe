package sim

import "github.com/allot-sched/allot/lifecycle"

// Scripted failures (JobSpec.Fails) and failed starts
// (JobSpec.StartFails). A task whose job scripts its
// failure exits with an error once it has done that much of its work, the
// progress counted as for its end (lifecycle.Task.Due: preemptions keep
// it, an elastic task works at the rate of its slots). Each start and
// re-placement schedules the failure with the task's version, as its end
// is scheduled, so a preemption or move in between makes it stale and
// the next attempt schedules it anew. A failed task is done and never
// retried (lifecycle.Cluster.Fail), as on a live cluster. A start that
// fails is the outcome of its start effect, lifecycle.EventStartFailed,
// after which the task ends as lifecycle.StartFailed says: failed. A
// scripted stop (JobSpec.Stops) is scheduled as a failure is and ends
// the task as a live searcher's stop does (stop).

// scriptedEnds applies the scripted ends of attempts when they come due
// (a failure, a failed or lost start, a lost attempt, a stop, an agent's
// preemption, agentstop.go) and a searcher's stop: a part of the sim
// that holds it (ends), not embedded, so that its methods are not the
// sim's. The world's methods push these ends when an attempt starts.
type scriptedEnds struct{ s *sim }

// scheduleFail pushes the failure or the stop of task ti (JobSpec.Stops,
// scheduled as a failure is), if its job scripts one that comes no later
// than the attempt's end.
func (s *world) scheduleFail(ti int32) {
	t := s.c.Tasks.At(ti)
	j := &s.jobs[t.Job]
	kind := evFail
	after, ok := j.spec.Fails[int(t.ID)]
	if !ok {
		kind = evStop
		after, ok = j.spec.Stops[int(t.ID)]
	}
	if !ok || t.Work == lifecycle.Unbounded {
		return
	}
	lj := &s.c.Jobs[t.Job]
	// The work left until the failure, in the task's units (slot-seconds
	// for an elastic job): what it has left less what it would have left
	// at the failure.
	left := t.Work - (lj.FreshOf(t.ID) - lifecycle.FreshWork(after, j.spec.Slots, lj.Shape.Elastic))
	at := t.From
	if left > 0 {
		r := t.Rate(lj.Shape)
		at += (left + r - 1) / r
	}
	if end, _ := t.Due(lj.Shape); end >= 0 && at > end {
		return // it ends (completes, or at its time limit) first
	}
	s.q.push(event{at: at, kind: kind, ref: ti, ver: t.Ver})
}

// startFails pushes the failure of task ti's start, just applied, if its
// job scripts one for this attempt, and says so. The failure comes at the
// same instant, once Step has settled it, as a live master hears of it
// from the agent after the passes that started the task: a later pass of
// the instant sees the task's slots held (and may re-plan it, making the
// failure stale), and the passes that follow see them free.
func (s *world) startFails(ti int32) bool {
	t := s.c.Tasks.At(ti)
	attempt, ok := s.jobs[t.Job].spec.StartFails[int(t.ID)]
	if !ok || int(t.Retries)+1 != attempt {
		return false
	}
	s.q.push(event{at: s.now, kind: evStartFail, ref: ti, ver: t.Ver})
	return true
}

// startLost pushes the loss of task ti's start, just applied, if its job
// scripts one for this attempt, and says so: the task never runs
// (lifecycle.Task.Unanswered: a loss of its node before then requeues
// it, as the master does), and the driver gives it up After seconds
// later.
func (s *world) startLost(ti int32) bool {
	t := s.c.Tasks.At(ti)
	after, ok := s.jobs[t.Job].spec.StartLost[[2]int{int(t.ID), int(t.Retries) + 1}]
	if !ok {
		return false
	}
	t.Unanswered = true
	s.q.push(event{at: s.now + after, kind: evStartLost, ref: ti, ver: t.Ver})
	return true
}

// attemptLost pushes the loss of task ti's attempt, just started or
// restarted on a move's or resize's placement (relanded), if its job
// scripts one: After seconds after the attempt's start, for the task's
// version now, so that a preemption, move, resize or end before then
// makes it stale; a re-placement's landing pushes it again, as for an
// agent's preemption (agentPreempts).
func (s *world) attemptLost(ti int32) {
	t := s.c.Tasks.At(ti)
	after, ok := s.jobs[t.Job].spec.Lost[[2]int{int(t.ID), int(t.Retries) + 1}]
	if ok && t.Start+after >= s.now {
		s.q.push(event{at: t.Start + after, kind: evAttemptLost, ref: ti, ver: t.Ver})
	}
}

// lostAttempt applies the loss of an attempt that still applies: the
// task ends as on a lost node (lifecycle.EventAttemptLost), with the
// work it threw away.
func (x scriptedEnds) lostAttempt(e event) {
	s := x.s
	o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventAttemptLost, Task: e.ref, Ver: e.ver})
	if o.Applied {
		s.rec.loseAttempt(s.c.Tasks.At(e.ref), o.Attempt)
		s.rec.lostWork += o.LostWork
		s.outcome(e.ref, &o, lifecycle.TaskRunning)
	}
}

// lostStart applies the loss of a start that still applies: the task
// waits again (lifecycle.EventStartLost).
func (x scriptedEnds) lostStart(e event) {
	s := x.s
	o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventStartLost, Task: e.ref, Ver: e.ver})
	if o.Applied {
		s.rec.loseAttempt(s.c.Tasks.At(e.ref), o.Attempt)
		s.outcome(e.ref, &o, lifecycle.TaskRunning)
	}
}

// fail applies a scheduled failure, or a failed start, that still
// applies: the Cluster drops a stale one.
func (x scriptedEnds) fail(e event) {
	s := x.s
	var o lifecycle.Outcome
	switch {
	case e.kind == evStartFail:
		o = s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventStartFailed, Task: e.ref, Ver: e.ver})
	case s.c.Tasks.Current(e.ref, e.ver):
		o = s.c.Fail(s.now, e.ref)
	}
	if o.Applied {
		t := s.c.Tasks.At(e.ref)
		s.rec.endAttempt(t, o.Attempt, false)
		if js := s.jobs[t.Job].search; js != nil {
			js.failed(int(t.ID))
		}
		s.outcome(e.ref, &o, lifecycle.TaskRunning)
	}
}

// stop applies a scripted stop that still applies (stopTask).
func (x scriptedEnds) stop(e event) { x.stopTask(e.ref, e.ver) }

// stopTask stops running task ti, at version ver, from outside, as its
// searcher stops a trial, or a scripted stop: the task ends as a live
// master ends a trial its searcher stopped (master/experiments.go,
// stopTrial), its attempt killed and the task completed
// (lifecycle.EventStopped), so that the decision log ends the attempt
// how=killed, as the live one does, and the job ends as its tasks put it.
func (x scriptedEnds) stopTask(ti int32, ver uint32) {
	s := x.s
	if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventStopped, Task: ti, Ver: ver}); o.Applied {
		s.rec.endAttempt(s.c.Tasks.At(ti), o.Attempt, false)
		s.outcome(ti, &o, lifecycle.TaskRunning)
	}
}
