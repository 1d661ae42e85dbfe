package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// defaultZeroSlotLimit caps zero-slot tasks per node in simulations.
const defaultZeroSlotLimit = 100

// schedule runs one pass and applies its plan. It returns how many tasks
// the plan started, and how many it preempted, moved or resized.
func (s *sim) schedule() (starts, changes int, err error) {
	s.buildSnapshot()
	// Reasons are read at the end of the run (finalReasons); an inspector
	// sees every plan whole.
	s.scheduler.OmitBehind = s.opt.Inspect == nil
	plan, err := s.scheduler.Schedule(&s.snap)
	if err != nil {
		return 0, 0, err
	}
	if s.cut {
		s.lastBlocked = blocked(plan)
	}
	if s.opt.Inspect != nil {
		s.opt.Inspect(s.now, &s.snap, plan)
	}
	if err := s.firstPriorities(plan); err != nil {
		return 0, 0, err
	}
	if s.reserves {
		// The snapshot's jobs are the roster's entries, which carry the
		// reservations to the next pass.
		s.c.KeepReservations(s.snap.Jobs, plan)
	}
	effects := s.c.Decide(plan)
	for i := range effects {
		switch e := &effects[i]; e.Op {
		case lifecycle.OpPreempt:
			s.preempt(e.Task)
		case lifecycle.OpMove:
			s.move(e.Task, e.Nodes)
		case lifecycle.OpResize:
			s.resize(e.Task, e.Nodes)
		case lifecycle.OpStart:
			s.start(s.c.Roster.List()[e.Job], e.Nodes, e.Backfill)
		}
	}
	return len(plan.Starts), len(plan.Preemptions) + len(plan.Moves) + len(plan.Resizes), nil
}

// firstPriorities records, for jobs of multifactor pools that the plan
// starts for the first time, the priority they started with: the order
// the pool ran them in. Only then are the factors computed.
func (s *sim) firstPriorities(plan *sched.Plan) error {
	if !s.multifactor {
		return nil
	}
	var f []sched.Factors
	for _, st := range plan.Starts {
		ji := s.c.Roster.List()[st.Job]
		j := &s.jobs[ji]
		if s.c.Jobs[ji].Start >= 0 || j.hasPrio || s.snap.Pools[j.spec.Pool].Policy != sched.PolicyMultifactor {
			continue
		}
		if f == nil {
			var err error
			if f, err = sched.PriorityFactors(&s.snap); err != nil {
				return err
			}
		}
		j.prio, j.hasPrio = f[st.Job].Priority, true
	}
	return nil
}

// buildSnapshot refreshes the snapshot from the live state: the jobs,
// allocations and budgets (lifecycle.Cluster.Snapshot), and the FIFO
// window.
func (s *sim) buildSnapshot() {
	snap := &s.snap
	snap.Now = s.now
	lastRunning := s.c.Snapshot(snap, s.now)
	snap.Jobs = s.window(snap.Jobs, lastRunning)
}

// snapEntry is a new job's entry in the snapshot: its spec, submitted
// seq-th, in project qp and charging account acct (-1: none). Its waiting
// count is the Cluster's to keep.
func snapEntry(spec *JobSpec, seq int64, qp, acct int32) sched.Job {
	return sched.Job{
		ID:          spec.Name,
		Pool:        spec.Pool,
		Kind:        spec.Kind,
		Submit:      spec.Submit,
		Seq:         seq,
		Priority:    spec.Priority,
		Weight:      spec.Weight,
		Preemptible: spec.Preemptible,
		Slots:       spec.Slots,
		MaxRunning:  spec.MaxConcurrent,
		TimeLimit:   spec.TimeLimit,
		GPU:         spec.GPU,
		Project:     int(qp),
		Interactive: spec.Interactive,
		Borrow:      spec.Borrow,
		Licenses:    spec.Licenses,
		QOS:         spec.QOS,
		Account:     int(acct),
		Nice:        spec.Nice,
		Topology:    spec.Topology,
		MinSlots:    spec.MinSlots,
	}
}

// start launches one waiting task of job ji on the given nodes.
func (s *sim) start(ji int32, nodes []sched.NodeSlots, backfill bool) {
	j := &s.jobs[ji]
	if s.c.Jobs[ji].Held == 0 {
		j.busySince = s.now
	}
	ti := s.c.Launch(ji, nodes, backfill, s.now)
	t := s.c.Tasks.At(ti)
	s.rec.hold(ji, sched.Slots(nodes))
	s.touch(ji)
	t.Attempt = s.rec.startAttempt(j, t)
	if min := s.in.Pools[j.spec.Pool].MinRunTime; min > 0 {
		s.wake(s.now + min)
	}
	if end, _ := t.Due(s.c.Jobs[ji].Shape); end >= 0 {
		s.q.push(event{at: end, kind: evEnd, ref: ti, ver: t.Ver})
	}
	s.scheduleReport(ti)
}

// preempt asks a task to stop. It keeps its progress (see
// lifecycle.Shape) and holds its slots for the pool's checkpoint cost.
func (s *sim) preempt(ti int32) {
	t := s.c.Tasks.At(ti)
	j := &s.jobs[t.Job]
	s.rec.lostWork += s.c.Preempt(ti, s.now) * int64(sched.Slots(t.Nodes))
	s.wakeBudget(j.qp)
	s.rec.preemptAttempt(t)
	s.rec.preempted(t.Job)
	cost := s.in.Pools[j.spec.Pool].CheckpointCost
	s.q.push(event{at: s.now + cost, kind: evCheckpoint, ref: ti, ver: t.Ver})
}

// checkpointed ends a preempted task's attempt as FAILED_PREEMPTED once
// its slots are free. By its job's exit actions the task is then
// rescheduled, back among its job's waiting tasks (the job keeps its
// submit time, so the queue order puts it ahead of later work), or it
// fails.
func (s *sim) checkpointed(ti int32) {
	t := s.c.Tasks.At(ti)
	if t.Moving {
		s.moved(ti)
		return
	}
	ji := t.Job
	s.rec.endAttempt(t, AttemptPreempted)
	s.freed(ti, s.c.Checkpointed(ti))
	s.settleState(ji)
}

// endTask finishes an attempt that completed or reached its time limit.
func (s *sim) endTask(ti int32) {
	t := s.c.Tasks.At(ti)
	ji := t.Job
	if t.Limited {
		s.rec.endAttempt(t, AttemptTimeLimit)
	} else {
		s.rec.endAttempt(t, AttemptCompleted)
	}
	s.freed(ti, s.c.Exit(ti, t.Limited))
	s.settleState(ji)
}

// settleState reports a job's change after one of its tasks let go of its
// slots, and ends the job once every task has ended (lifecycle.Job.Over).
func (s *sim) settleState(ji int32) {
	s.touch(ji)
	if st, over := s.c.Jobs[ji].Over(); over {
		s.finishJob(ji, st)
	}
}

// freed tells the metrics that task ti, just retired, let go of slots.
// Its record stays intact until the next sweep.
func (s *sim) freed(ti int32, slots int) {
	t := s.c.Tasks.At(ti)
	s.released(ti, slots, s.c.Jobs[t.Job].Held)
}

// released tells the metrics that task ti let go of slots, after which
// its job held held slots.
func (s *sim) released(ti int32, slots, held int) {
	t := s.c.Tasks.At(ti)
	if held == 0 {
		j := &s.jobs[t.Job]
		j.busy += s.now - j.busySince
	}
	if t.Preempting {
		s.rec.checkpointed(int64(slots) * (s.now - t.PreemptAt))
	}
	s.rec.hold(t.Job, -slots)
}

func (s *sim) finishJob(ji int32, st lifecycle.JobState) {
	j := &s.jobs[ji]
	if s.c.Jobs[ji].Moving > 0 {
		s.dropMoves(ji)
	}
	s.c.Finish(ji, st, s.now)
	if j.spec.Slots == 0 {
		s.zeroSlotJobs--
	}
	if name, ok := s.byName[j.spec.Name]; ok && name == ji {
		s.byName[j.spec.Name] = -1
	}
	s.touch(ji)
	s.rec.finished(ji)
}
