package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// Applied reacts to an effect that lifecycle.Cluster.Step has just
// applied: the metrics, the attempts, and the events it promises (the
// task's end, a checkpoint landing, a thrash guard lifting), stamped with
// the task's version.
func (s *sim) Applied(now int64, e *lifecycle.Effect) {
	switch e.Op {
	case lifecycle.OpPreempt:
		s.preempted(e)
	case lifecycle.OpMove:
		s.rec.moves++
		s.replaced(e)
	case lifecycle.OpResize:
		s.rec.resizes++
		if e.For >= 0 {
			s.rec.shrinks++ // a shrink names the job it gives back to
		}
		s.replaced(e)
	case lifecycle.OpStart:
		s.started(e)
	}
}

// snapEntry is a new job's entry in the snapshot: its spec, submitted
// seq-th, in project qp and charging account acct (-1: none), made by the
// rules of the master's entries (lifecycle.JobFacts.Entry). Its waiting
// count is the Cluster's to keep. A scenario's job has no cap on its
// slots in use (MaxSlots 0; the what-if export folds the master's into
// max_concurrent). A JobSpec keeps its borrowing resolved: Borrow is
// LOW-class work in a quota pool (lifecycle.Borrows at the scenario's
// conversion and in ClassRule; a trace's job has no class), which is
// what Low in a QuotaPool says. Its Interactive is the scenario's, which
// the facts take as the job's unless preemptible.
func snapEntry(spec *JobSpec, seq int64, qp, acct int32) sched.Job {
	f := lifecycle.JobFacts{
		ID:            spec.Name,
		Pool:          spec.Pool,
		Project:       int(qp),
		Account:       int(acct),
		Kind:          spec.Kind,
		Submit:        spec.Submit,
		Seq:           seq,
		Priority:      spec.Priority,
		Weight:        spec.Weight,
		Preemptible:   spec.Preemptible,
		Slots:         spec.Slots,
		MinSlots:      spec.MinSlots,
		Tasks:         spec.Tasks,
		MaxConcurrent: spec.MaxConcurrent,
		TimeLimit:     spec.TimeLimit,
		GPU:           spec.GPU,
		Topology:      spec.Topology,
		Licenses:      spec.Licenses,
		QOS:           spec.QOS,
		Nice:          spec.Nice,
		Low:           spec.Borrow,
		QuotaPool:     true,
		Interactive:   spec.Interactive,
	}
	return f.Entry()
}

// started reacts to the start of a task (e.Task) of a waiting job.
func (s *sim) started(e *lifecycle.Effect) {
	t := s.c.Tasks.At(e.Task)
	ji := t.Job
	j := &s.jobs[ji]
	if e.First {
		j.prio, j.hasPrio = e.Priority, true
	}
	if e.HeldBefore == 0 {
		j.busySince = s.now
	}
	s.rec.hold(ji, e.Slots)
	s.touch(ji)
	t.Record = s.rec.startAttempt(j, t)
	// An exit heard of late is charged until the exit (a Cluster rule):
	// set with the start, as the attempt's number is known then.
	t.ExitBefore = j.spec.LateExits[[2]int{int(t.ID), int(t.Retries) + 1}]
	// So is how long a kill takes to end it (a Cluster rule too).
	t.KillAfter = j.spec.SlowKills[[2]int{int(t.ID), int(t.Retries) + 1}]
	if s.startFails(e.Task) || s.startLost(e.Task) {
		return // it ends at this instant or is given up, promising nothing
	}
	s.attemptLost(e.Task)
	s.agentPreempts(e.Task)
	if min := s.in.Pools[j.spec.Pool].MinRunTime; min > 0 {
		s.wake(s.now + min)
	}
	if end, _ := t.Due(s.c.Jobs[ji].Shape); end >= 0 {
		s.q.push(event{at: end, kind: evEnd, ref: e.Task, ver: t.Ver})
	}
	s.scheduleFail(e.Task)
	s.scheduleReport(e.Task)
}

// preempted reacts to a task asked to stop. It keeps its progress (see
// lifecycle.Shape) and holds its slots until its checkpoint lands
// (checkpointCost).
func (s *sim) preempted(e *lifecycle.Effect) {
	t := s.c.Tasks.At(e.Task)
	j := &s.jobs[t.Job]
	s.rec.lostWork += e.LostWork
	s.wakeBudget(j.qp)
	s.rec.preemptAttempt(t)
	s.rec.preempted(t.Job)
	cost := s.checkpointCost(t)
	// The forecast frees its slots at the landing (Hold.FreeBy), as the
	// master's frees them by its pool's grace.
	s.c.Tasks.Stopping(e.Task, s.now, cost)
	s.q.push(event{at: s.now + cost, kind: evCheckpoint, ref: e.Task, ver: t.Ver})
}

// requeued reacts to task ti's requeue (EventRequeue): its checkpoint
// lands after its checkpoint cost, as a preempted task's; no pass asked
// it, so it counts in no budget and not among the preemptions, but
// among the requeues.
func (s *sim) requeued(ti int32) {
	t := s.c.Tasks.At(ti)
	s.rec.preemptAttempt(t)
	s.rec.requeued()
	if t.Record >= 0 {
		s.jobs[t.Job].attempts[t.Record].requeued = true
	}
	cost := s.checkpointCost(t)
	s.c.Tasks.Stopping(ti, s.now, cost)
	s.q.push(event{at: s.now + cost, kind: evCheckpoint, ref: ti, ver: t.Ver})
}

// landed reacts to a checkpoint that landed (lifecycle.Cluster.Observe):
// a moved or resized task restarts on its new placement (relanded), or
// a preempted task's attempt ends as FAILED_PREEMPTED. By its job's exit
// actions that task is rescheduled, back among its job's waiting tasks
// (the job keeps its submit time, so the queue order puts it ahead of
// later work), or it fails.
func (s *sim) landed(ti int32, o *lifecycle.Outcome) {
	if o.Drained {
		s.relanded(ti, o)
		return
	}
	if o.Unplaced {
		// Its re-placement never happened: the attempt was preempted
		// where it ran.
		s.rec.unmoveAttempt(s.c.Tasks.At(ti))
	}
	s.rec.endAttempt(s.c.Tasks.At(ti), o.Attempt, false)
	if !o.Over && len(o.Freed) > 0 {
		// A re-placed task requeued at its landing (lifecycle.Restartable)
		// freed its drained part too.
		for _, f := range o.Freed {
			s.freed(f.Task, f.Slots, f.From)
		}
		rest := *o
		rest.Freed = nil
		o = &rest
	}
	s.outcome(ti, o, lifecycle.TaskPreempting)
}

// ended reacts to an attempt that completed (lifecycle.Cluster.Observe),
// or that reached its time limit and was left killing until its kill's
// end (killings).
func (s *sim) ended(ti int32, o *lifecycle.Outcome) {
	if len(o.Killing) > 0 {
		s.killings(o.Killing)
		return
	}
	t := s.c.Tasks.At(ti)
	s.rec.endAttempt(t, o.Attempt, o.TimedOut)
	s.outcome(ti, o, lifecycle.TaskRunning)
}

// killings reports the kill's end of each record a kill or time limit
// left killing (lifecycle.Outcome.Killing), for its version, as the
// master's agents report it: KillAfter later for an attempt whose kill
// takes its time (JobSpec.SlowKills), which holds its slots until then,
// and at once for the others, before anything else of the instant is
// handled or settled, so that nothing sees their slots held past the
// kill. Those it ends are reported as the state they held their slots
// in before the kill (a checkpoint under way counts in the metrics
// until the kill, KillingTask.From).
func (s *sim) killings(ks []lifecycle.KillingTask) {
	s.killing = append(s.killing[:0], ks...) // ks is the Cluster's, until its next Observe
	for _, k := range s.killing {
		t := s.c.Tasks.At(k.Task)
		if t.KillAfter > 0 {
			s.c.Tasks.Stopping(k.Task, s.now, t.KillAfter) // the forecast's deadline, as kill_grace is the master's
			s.q.push(event{at: s.now + t.KillAfter, kind: evKillEnd, ref: k.Task, ver: t.Ver})
			continue
		}
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: k.Task, Ver: t.Ver}); o.Applied {
			s.killEnded(k.Task, &o, k.From)
		}
	}
}

// killEnded reacts to the end of a kill (lifecycle.EventKillEnded) of
// task ti, which held its slots in state from: the attempt ends killed
// (by its time limit or not) and its slots are free; a job a user killed
// is reported ended once its last such attempt has (Outcome.Over).
func (s *sim) killEnded(ti int32, o *lifecycle.Outcome, from lifecycle.TaskState) {
	t := s.c.Tasks.At(ti)
	s.rec.endAttempt(t, o.Attempt, o.TimedOut)
	s.outcome(ti, o, from)
}

// outcome tells the metrics that task ti let go of the slots it held in
// state from, and, when
// Observe ended its job, of the job's draining moves it freed, one by
// one with what the job held after each, and of the job's end: the order
// in which they happened.
func (s *sim) outcome(ti int32, o *lifecycle.Outcome, from lifecycle.TaskState) {
	held := s.c.Jobs[o.Job].Held
	for _, f := range o.Freed {
		held += f.Slots
	}
	s.released(ti, o.Slots, held, from)
	s.touchAs(o.Job, true)
	if !o.Over {
		return
	}
	for _, f := range o.Freed {
		held -= f.Slots
		s.released(f.Task, f.Slots, held, f.From)
	}
	s.finished(o.Job)
}

// freed tells the metrics that task ti, just retired, let go of the slots
// it held in state from. Its record stays intact until the next sweep.
func (s *sim) freed(ti int32, slots int, from lifecycle.TaskState) {
	t := s.c.Tasks.At(ti)
	s.released(ti, slots, s.c.Jobs[t.Job].Held, from)
}

// released tells the metrics that task ti let go of slots it held in
// state from, after which its job held held slots. The record has retired
// (its State is how it ended), so the caller says what it was.
func (s *sim) released(ti int32, slots, held int, from lifecycle.TaskState) {
	t := s.c.Tasks.At(ti)
	if held == 0 {
		j := &s.jobs[t.Job]
		j.busy += s.now - j.busySince
	}
	if from == lifecycle.TaskPreempting {
		s.rec.checkpointed(int64(slots) * (s.now - t.Asked))
	}
	s.rec.hold(t.Job, -slots)
}

// finished reports job ji's end, which the Cluster has recorded.
func (s *sim) finished(ji int32) {
	j := &s.jobs[ji]
	if name, ok := s.byName[j.spec.Name]; ok && name == ji {
		s.byName[j.spec.Name] = -1
	}
	s.touch(ji)
	s.rec.finished(ji)
}

// checkpointCost is how long task t's checkpoint takes to land once a
// pass asks for it, called once for each request: this checkpoint's own
// time (JobSpec.NthCheckpoints, by the requests of the attempt counted
// in asked), else its attempt's (JobSpec.Checkpoints), else its pool's
// CheckpointCost.
func (s *sim) checkpointCost(t *lifecycle.Task) int64 {
	j := &s.jobs[t.Job]
	attempt := int(t.Retries) + 1
	if len(j.spec.NthCheckpoints) > 0 {
		if s.asked == nil {
			s.asked = map[[3]int32]int{}
		}
		k := [3]int32{t.Job, t.ID, t.Retries + 1}
		s.asked[k]++
		if c, ok := j.spec.NthCheckpoints[[3]int{int(t.ID), attempt, s.asked[k]}]; ok {
			return c
		}
	}
	if c, ok := j.spec.Checkpoints[[2]int{int(t.ID), attempt}]; ok {
		return c
	}
	return s.in.Pools[j.spec.Pool].CheckpointCost
}
