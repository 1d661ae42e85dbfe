package sim

import (
	"slices"

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
		s.keepReservations(plan)
	}
	for _, p := range plan.Preemptions {
		s.preempt(s.snapTask[p.Alloc])
	}
	for _, m := range plan.Moves {
		s.move(s.snapTask[m.Alloc], m.Nodes)
	}
	for _, r := range plan.Resizes {
		s.resize(s.snapTask[r.Alloc], r.Nodes)
	}
	for _, st := range plan.Starts {
		s.start(s.roster.list()[st.Job], st.Nodes, st.Backfill)
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
		j := &s.jobs[s.roster.list()[st.Job]]
		if j.start >= 0 || j.hasPrio || s.snap.Pools[j.spec.Pool].Policy != sched.PolicyMultifactor {
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

// keepReservations carries each job's reserved start into the next pass,
// so that conservative backfilling can compress its schedule rather than
// rebuild it. The snapshot's jobs are the roster's entries.
func (s *sim) keepReservations(plan *sched.Plan) {
	for _, pe := range plan.Pending {
		at := pe.At
		if at < 0 || at == sched.Never {
			at = 0
		}
		j := &s.snap.Jobs[pe.Job]
		if j.Reserved == at && slices.Equal(j.ReservedNodes, pe.Nodes) {
			continue
		}
		j.Reserved = at
		// Where the reservation is, on pools that reserve per node; the
		// plan's slices are the core's, so they are copied.
		j.ReservedNodes = append(j.ReservedNodes[:0], pe.Nodes...)
		s.revise(j)
	}
	for _, st := range plan.Starts {
		if j := &s.snap.Jobs[st.Job]; j.Reserved != 0 || len(j.ReservedNodes) > 0 {
			j.Reserved, j.ReservedNodes = 0, j.ReservedNodes[:0]
			s.revise(j)
		}
	}
}

// buildSnapshot refreshes the snapshot from the live state: the roster
// drops finished jobs (its entries are kept current as jobs change), and
// the allocations are rebuilt from the running list, compacting it.
func (s *sim) buildSnapshot() {
	snap := &s.snap
	snap.Now = s.now
	s.budget.fill(snap.Projects, s.now)
	s.roster.compact(s.alive, s.recycle)
	snap.Jobs = s.roster.entries()
	lastRunning := -1
	snap.Allocs = snap.Allocs[:0]
	s.snapTask = s.snapTask[:0]
	live := s.running[:0]
	for _, ti := range s.running {
		t := &s.tasks[ti]
		if !t.alive {
			// Only now is the slot reusable: the running list no longer
			// names it.
			s.free = append(s.free, ti)
			continue
		}
		live = append(live, ti)
		s.snapTask = append(s.snapTask, ti)
		lastRunning = max(lastRunning, s.roster.index(t.job))
		snap.Allocs = append(snap.Allocs, sched.Alloc{
			Job:        s.roster.index(t.job),
			Nodes:      t.nodes,
			Start:      t.start,
			Preempting: t.preempting,
			Moving:     t.moving,
			Backfilled: t.backfilled,
			Checkpoint: s.lastCheckpoint(t),
		})
	}
	s.running = live
	snap.Jobs = s.window(snap.Jobs, lastRunning)
}

// lastCheckpoint is when a task last saved its progress, so that the core
// picks victims that lose the least: with CheckpointEvery the last
// periodic checkpoint, else the checkpoint of its last move, else 0
// (never), for which the core takes the loss to be the run time, so that
// such tasks go newest first.
func (s *sim) lastCheckpoint(t *task) int64 {
	every := s.jobs[t.job].spec.CheckpointEvery
	if every <= 0 {
		if t.from > t.start {
			return t.from
		}
		return 0
	}
	return t.from + (s.now-t.from)/every*every
}

// snapEntry is a new job's entry in the snapshot.
func snapEntry(j *job) sched.Job {
	return sched.Job{
		ID:          j.spec.Name,
		Pool:        j.spec.Pool,
		Kind:        j.spec.Kind,
		Submit:      j.spec.Submit,
		Seq:         j.seq,
		Priority:    j.spec.Priority,
		Weight:      j.spec.Weight,
		Preemptible: j.spec.Preemptible,
		Slots:       j.spec.Slots,
		Waiting:     j.waiting,
		MaxRunning:  j.spec.MaxConcurrent,
		TimeLimit:   j.spec.TimeLimit,
		GPU:         j.spec.GPU,
		Project:     int(j.qp),
		Interactive: j.spec.Interactive,
		Borrow:      j.spec.Borrow,
		Licenses:    j.spec.Licenses,
		QOS:         j.spec.QOS,
		Account:     int(j.acct),
		Nice:        j.spec.Nice,
		Topology:    j.spec.Topology,
		MinSlots:    j.spec.MinSlots,
	}
}

func (s *sim) alive(ji int32) bool { return s.jobs[ji].alive }

// recycle makes a finished job's record reusable; only once the job is off
// the roster may it be.
func (s *sim) recycle(ji int32) { s.freeJobs = append(s.freeJobs, ji) }

func (s *sim) newTask() int32 {
	if n := len(s.free); n > 0 {
		ti := s.free[n-1]
		s.free = s.free[:n-1]
		return ti
	}
	s.tasks = append(s.tasks, task{})
	return int32(len(s.tasks) - 1)
}

// start launches one waiting task of job ji on the given nodes.
func (s *sim) start(ji int32, nodes []sched.NodeSlots, backfill bool) {
	j := &s.jobs[ji]
	r := resumed{work: freshWork(&j.spec), id: j.nextTask}
	if n := len(j.resume); n > 0 {
		r = j.resume[n-1]
		j.resume = j.resume[:n-1]
	} else {
		j.nextTask++
	}
	ti := s.newTask()
	t := &s.tasks[ti]
	t.job, t.start, t.from, t.work = ji, s.now, s.now, r.work
	t.id, t.retries, t.lost = r.id, r.retries, 0
	t.nodes = append(t.nodes[:0], nodes...)
	t.ver++
	t.preempting, t.moving, t.backfilled, t.alive = false, false, backfill, true
	s.running = append(s.running, ti)
	j.waiting--
	j.running++
	slots := sched.Slots(nodes)
	if j.held == 0 {
		j.busySince = s.now
	}
	j.held += slots
	if j.start < 0 {
		j.start = s.now
	}
	j.state = StateRunning
	s.rec.hold(ji, slots)
	s.touch(ji)
	t.attempt = s.rec.startAttempt(j, t)
	if min := s.in.Pools[j.spec.Pool].MinRunTime; min > 0 {
		s.wake(s.now + min)
	}
	end, limited := s.taskEnd(t, j)
	t.limited = limited
	if end >= 0 {
		s.q.push(event{at: end, kind: evEnd, ref: ti, ver: t.ver})
	}
	s.scheduleReport(ti)
}

// taskEnd is when the attempt ends, or -1 when it runs until killed, and
// whether that end is its time limit rather than its work being done. The
// limit runs from the attempt's start, the work from its last move.
func (s *sim) taskEnd(t *task, j *job) (int64, bool) {
	lim := j.spec.TimeLimit
	switch {
	case t.work == Unbounded && lim <= 0:
		return -1, false
	case t.work == Unbounded:
		return t.start + lim, true
	}
	r := s.rate(t)
	done := t.from + (t.work+r-1)/r
	if lim > 0 && t.start+lim < done {
		return t.start + lim, true
	}
	return done, false
}

// checkpointNow saves a running task's progress as a checkpoint request
// does: all of it, or with CheckpointEvery only up to its last periodic
// checkpoint. It returns the run time thrown away, which it adds, times
// the task's slots, to the work lost in the metrics.
func (s *sim) checkpointNow(t *task) int64 {
	kept := s.now - t.from
	if every := s.jobs[t.job].spec.CheckpointEvery; every > 0 {
		kept = kept / every * every
	}
	if t.work != Unbounded {
		t.work = max(t.work-kept*s.rate(t), 0)
	}
	lost := s.now - t.from - kept
	s.rec.lostWork += lost * int64(sched.Slots(t.nodes))
	return lost
}

// preempt asks a task to stop. It keeps its progress (see checkpointNow)
// and holds its slots for the pool's checkpoint cost.
func (s *sim) preempt(ti int32) {
	t := &s.tasks[ti]
	j := &s.jobs[t.job]
	t.lost += s.checkpointNow(t)
	s.noteBudget(j.qp)
	s.rec.preemptAttempt(t)
	t.preempting = true
	t.preemptAt = s.now
	t.ver++
	j.preempt++
	s.rec.preempted(t.job)
	cost := s.in.Pools[j.spec.Pool].CheckpointCost
	s.q.push(event{at: s.now + cost, kind: evCheckpoint, ref: ti, ver: t.ver})
}

// checkpointed ends a preempted task's attempt as FAILED_PREEMPTED once
// its slots are free. By its job's exit actions the task is then
// rescheduled, back among its job's waiting tasks (the job keeps its
// submit time, so the queue order puts it ahead of later work), or it
// fails.
func (s *sim) checkpointed(ti int32) {
	t := &s.tasks[ti]
	if t.moving {
		s.moved(ti)
		return
	}
	ji := t.job
	j := &s.jobs[ji]
	s.rec.endAttempt(t, AttemptPreempted)
	retries := t.retries + 1
	if j.spec.OnPreempt == PreemptFail || (j.spec.MaxRetries > 0 && int(retries) > j.spec.MaxRetries) {
		j.failed++
		j.done++
	} else {
		j.resume = append(j.resume, resumed{work: t.work, id: t.id, retries: retries})
		j.waiting++
	}
	s.release(ti)
	if j.running == 0 && j.state == StateRunning {
		j.state = StatePending
	}
	s.settleState(ji)
}

// endTask finishes an attempt that completed or reached its time limit.
func (s *sim) endTask(ti int32) {
	t := &s.tasks[ti]
	ji := t.job
	j := &s.jobs[ji]
	if t.limited {
		j.timeout++
		s.rec.endAttempt(t, AttemptTimeLimit)
	} else {
		s.rec.endAttempt(t, AttemptCompleted)
	}
	j.done++
	s.release(ti)
	s.settleState(ji)
}

// settleState reports a job's change after one of its tasks let go of its
// slots, and ends the job once every task has ended: failed if a task
// failed, killed if one reached its time limit, else completed.
func (s *sim) settleState(ji int32) {
	j := &s.jobs[ji]
	s.touch(ji)
	if j.done < j.spec.Tasks {
		return
	}
	switch {
	case j.failed > 0:
		s.finishJob(ji, StateFailed)
	case j.timeout > 0:
		s.finishJob(ji, StateKilled)
	default:
		s.finishJob(ji, StateCompleted)
	}
}

// release frees a task's slots and retires the task.
func (s *sim) release(ti int32) {
	t := &s.tasks[ti]
	j := &s.jobs[t.job]
	slots := sched.Slots(t.nodes)
	j.running--
	j.held -= slots
	if j.held == 0 {
		j.busy += s.now - j.busySince
	}
	if t.preempting {
		s.rec.checkpointed(int64(slots) * (s.now - t.preemptAt))
	}
	s.rec.hold(t.job, -slots)
	t.alive = false
	t.ver++
}

func (s *sim) finishJob(ji int32, st State) {
	j := &s.jobs[ji]
	if j.moving > 0 {
		s.dropMoves(ji)
	}
	j.state = st
	j.end = s.now
	j.alive = false
	if j.spec.Slots == 0 {
		s.zeroSlotJobs--
	}
	s.roster.finished(ji)
	if name, ok := s.byName[j.spec.Name]; ok && name == ji {
		s.byName[j.spec.Name] = -1
	}
	s.touch(ji)
	s.rec.finished(ji)
}
