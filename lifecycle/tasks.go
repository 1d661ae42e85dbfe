package lifecycle

import "github.com/allot-sched/allot/sched"

// Unbounded marks work that runs until it is killed.
const Unbounded int64 = -1

// Task is one attempt of one task holding slots: from the start the plan
// gave it until it lets go of them (ends, is killed, or has checkpointed
// after a preemption). A moved or resized task keeps its attempt: it
// checkpoints, holding its new placement reserved (Replacing) and the
// part of its old placement that the new one does not keep as a record
// of its own, marked Moving, and restarts on the new placement when its
// checkpoint lands (Resume), as the live master restarts it.
//
// Its State is running, preempting or (a kill, until its driver
// reports the end) killing while it holds slots, and how it let
// go of them after (TaskState); Moving is not a state but what the record
// is: the draining part of a moved task, preempting until it drains (the
// master says the same with a task's next placement).
//
// A Task is named by its slot in Tasks and its version: every transition
// that makes a promise about the future (when the work ends, when a
// checkpoint lands) bumps Ver, so an outcome reported for an older
// version (a timer in the simulator, an agent's late report in the
// master) is recognised as stale and dropped.
type Task struct {
	Job int32 // the driver's job record
	ID  int32 // the task's number in its job; a rescheduled task keeps it
	// TaskRecord is the task's scheduling record, the one the master's
	// task embeds too (record.go), whose State changes by Enter only
	// (Tasks.set): its Retries are the times the task was rescheduled
	// before this attempt (the count it was launched with); its
	// Replacement the move or resize in flight (see Drain); its Stop the
	// kill under way: while the task is killing (Tasks.Kill), whether its time limit's kill (kills.limited) or a
	// user's moved it there, which decides how it ends (a user's kill of
	// its job meanwhile leaves a time limit's kill ending it timed out).
	// The Stop also holds the Cluster's promise that the attempt's end
	// (Due) is its time limit's (Limited). A launch clears it.
	TaskRecord
	// Record is the driver's record of this attempt (the simulator's
	// index in its job's attempts), -1 for none.
	Record int32
	// The attempt's scheduling facts, the record the master keeps too
	// (lifecycle.Attempt): its first start, when it last resumed (while
	// Replacing, the move or resize), backfilling, and while preempting
	// or killing when it was asked to stop (the checkpoint request, the
	// kill: Stopping) and the grace its driver promised from then (the
	// simulator's checkpoint landing, a slow kill's end; 0 until the
	// driver says: as good as free).
	Attempt
	Nodes []sched.NodeSlots
	Work  int64 // remaining work at From, or Unbounded
	Lost  int64 // run time that preemption and moves threw away
	Ver   uint32
	// Moving marks the draining old placement of a moved task, or (Left)
	// the parts of a lost gang's attempt on nodes still up (leaving.go).
	Moving, Left bool
	// While Replacing (the record's Replacement: a move or resize
	// re-placed the task and its checkpoint has not landed) it holds
	// Nodes reserved but does no work, and Drain is the slot of the
	// Moving record of what of its old placement drains (-1: nothing
	// drains). Its landing frees that record and resumes the task on
	// Nodes (Tasks.Resume). Old is its old placement meanwhile (a resize
	// keeps part of it in Nodes).
	Drain int32
	Old   []sched.NodeSlots
	// Unanswered marks an attempt whose start no agent answers: the
	// driver set it when it launched the start (the simulator's
	// start_lost script, JobSpec.StartLost) and gives the start up
	// later (EventStartLost). Until then the task has not run, so a
	// loss of its node requeues it, as the master requeues a lost
	// attempt none of whose parts reported running (LostRequeues with
	// ran false), and does not hold it through the loss
	// (HoldsThroughLoss). A launch clears it.
	Unanswered bool
	// ExitBefore is how long before its end the attempt's processes
	// exited, by its agent's report that came late (the simulator's
	// late_exits script, JobSpec.LateExits); 0 for an exit heard at
	// once. The driver sets it when it launches the start. The attempt
	// still holds its slots until it ends, as the live master frees the
	// GPUs when it hears of the exit, but its account is charged for them
	// until the exit only: the Cluster takes back the charge of its last
	// ExitBefore seconds when it ends (Cluster.closeAttempt), as the master
	// counts an open attempt up to now and, once it hears of the exit,
	// up to the exit. A launch clears it.
	ExitBefore int64
	// KillAfter is how long a kill of the attempt takes to end it (the
	// simulator's slow_kills script, JobSpec.SlowKills): live, the master
	// holds the GPUs of a task being killed until its agent reports the
	// end, which a silent node delays. A kill (Cluster.Kill, or its time
	// limit: EventEnded where Limited) leaves the task killing, its slots
	// held and charged, until the driver sends EventKillEnded: the
	// Cluster does not read it, the simulator sends the end KillAfter
	// later, or at once for 0. The driver sets it when it launches the
	// start; a launch clears it.
	KillAfter int64
}

// Shape is what of a task's job decides how its work progresses.
type Shape struct {
	// Elastic: the work is slot-seconds and progresses by the slots held
	// (sim/elastic.go's model); else it is seconds at a rate of one.
	Elastic bool
	// Every is how often (in run time) the task saves its progress; 0
	// keeps all progress at a checkpoint request.
	Every int64
	// Limit is the attempt's time limit, counted from its start; 0: none.
	Limit int64
}

// FreshWork is the work of a task that never ran: its duration in
// seconds, or for an elastic job slot-seconds; Unbounded stays Unbounded.
func FreshWork(duration int64, slots int, elastic bool) int64 {
	if !elastic || duration == Unbounded {
		return duration
	}
	return duration * int64(slots)
}

// Rate is how much work the task does per second: the slots it holds
// for an elastic job, else 1.
func (t *Task) Rate(sh Shape) int64 {
	if !sh.Elastic {
		return 1
	}
	return int64(max(sched.Slots(t.Nodes), 1))
}

// Due is when the attempt ends, or -1 when it runs until killed or is
// Replacing (nothing is promised until it resumes), and whether that end
// is its time limit rather than its work being done. The limit runs from
// the attempt's start, the work from when it last resumed: the limit
// ends it at the first second it is past it (PastLimit, the live
// master's rule), if its work still runs then; a limit that passed while
// the task checkpointed for a move ends it as it resumes, as the live
// master's time-limit check kills it once it runs again.
func (t *Task) Due(sh Shape) (int64, bool) {
	limitAt := max(t.Start+sh.Limit, t.From) // if sh.Limit > 0
	switch {
	case t.Replacing(), t.Work == Unbounded && sh.Limit <= 0:
		return -1, false
	case t.Work == Unbounded:
		return limitAt, true
	}
	r := t.Rate(sh)
	done := t.From + (t.Work+r-1)/r
	if PastLimit(done-1-t.Start, sh.Limit) { // past it in the work's last second
		return limitAt, true
	}
	return done, false
}

// checkpoint saves the task's progress at now as a checkpoint request
// does: all of it, or with Every only up to its last periodic checkpoint.
// It returns the run time thrown away.
func (t *Task) checkpoint(now int64, sh Shape) int64 {
	kept := now - t.From
	if sh.Every > 0 {
		kept = kept / sh.Every * sh.Every
	}
	if t.Work != Unbounded {
		t.Work = max(t.Work-kept*t.Rate(sh), 0)
	}
	return now - t.From - kept
}

// LastCheckpoint is when the task last saved its progress, so that the
// core picks victims that lose the least: with a checkpoint interval the
// last periodic checkpoint, else the checkpoint of its last move, else 0
// (never), for which the core takes the loss to be the run time, so that
// such tasks go newest first.
func (t *Task) LastCheckpoint(now, every int64) int64 {
	return LastCheckpoint(t.Start, t.From, now, every)
}

// Alloc is the task's allocation in a snapshot whose entry for its job
// is job (Hold.Alloc, which the master's snapshot calls too).
func (t *Task) Alloc(job int, now, every int64) sched.Alloc {
	h := t.hold()
	return h.Alloc(job, now, every)
}

// hold is the record as the snapshot sees it.
func (t *Task) hold() Hold {
	return t.Attempt.Hold(t.Nodes, t.State == TaskPreempting || t.State == TaskKilling, t.Moving)
}

// Tasks is the table of task attempts holding slots. Records are reused:
// a retired record's slot is handed out again only after Sweep, once the
// running list no longer names it, so the table grows with the live
// state, not with the run's length.
type Tasks struct {
	all     []Task
	free    []int32
	running []int32
	// retired counts the records retired since the last Sweep: without
	// one, Sweep has nothing to drop and need not look at every record.
	retired int
	// scratch is Replace's for what drains, before the drain record
	// copies it.
	scratch []sched.NodeSlots
	// watch, when set (tests only, WatchStates), hears of every change of
	// a record's State, from "" for a record just made.
	watch func(t *Task, from, to TaskState)
}

// set moves record ti to state to by its record's transition (Enter,
// the master's too): every change of a record's State goes through here
// (from "" where born says the record is new), so that a test can check
// each against the graph (TaskEdge).
func (ts *Tasks) set(ti int32, to TaskState, born bool) {
	t := &ts.all[ti]
	if ts.watch != nil {
		from := t.State
		if born {
			from = ""
		}
		ts.watch(t, from, to)
	}
	t.Enter(to)
}

// At is the task record in slot ti. The pointer is valid until the next
// Launch or Replace, which may grow the table.
func (ts *Tasks) At(ti int32) *Task { return &ts.all[ti] }

// Len is the number of records in the table, live or not: what it has
// grown to.
func (ts *Tasks) Len() int { return len(ts.all) }

// Running lists the slots of the tasks holding slots, in launch order;
// retired ones (no longer State.Active) stay listed until the next Sweep.
func (ts *Tasks) Running() []int32 { return ts.running }

// Current reports whether an outcome promised for version ver of task ti
// (its end, its checkpoint landing) still applies: the task holds its
// slots and nothing re-planned it since. A Moving record is promised
// nothing: it lands with its task (Resume).
func (ts *Tasks) Current(ti int32, ver uint32) bool {
	t := &ts.all[ti]
	return t.State.Active() && !t.Moving && t.Ver == ver
}

// Sweep drops retired tasks from the running list, making their slots
// reusable, and returns the list.
func (ts *Tasks) Sweep() []int32 {
	if ts.retired == 0 {
		return ts.running
	}
	ts.retired = 0
	live := ts.running[:0]
	for _, ti := range ts.running {
		if ts.all[ti].State.Active() {
			live = append(live, ti)
		} else {
			ts.free = append(ts.free, ti)
		}
	}
	ts.running = live
	return live
}

func (ts *Tasks) alloc() int32 {
	if n := len(ts.free); n > 0 {
		ti := ts.free[n-1]
		ts.free = ts.free[:n-1]
		return ti
	}
	ts.all = append(ts.all, Task{})
	return int32(len(ts.all) - 1)
}

// Launch starts an attempt of task id of job on nodes at now, with work
// left, and returns its slot. Attempt is -1 until the driver sets it.
func (ts *Tasks) Launch(job, id, retries int32, work int64, nodes []sched.NodeSlots, backfill bool, now int64) int32 {
	ti := ts.alloc()
	t := &ts.all[ti]
	t.Job, t.ID, t.Retries, t.Record = job, id, retries, -1
	t.Attempt.Launch(now, backfill)
	t.Work, t.Lost = work, 0
	t.Nodes = append(t.Nodes[:0], nodes...)
	t.Ver++
	t.Moving, t.Left = false, false
	ts.set(ti, TaskRunning, true)
	t.Unreserve()
	t.Drain, t.Unanswered, t.ExitBefore, t.KillAfter = -1, false, 0, 0
	t.Stop.Clear()
	ts.running = append(ts.running, ti)
	return ti
}

// Preempt asks task ti to stop at now: it saves its progress (see Shape)
// and keeps its slots until its checkpoint lands. It returns the run time
// thrown away, which the task's Lost also counts.
func (ts *Tasks) Preempt(ti int32, now int64, sh Shape) int64 {
	t := &ts.all[ti]
	lost := t.checkpoint(now, sh)
	t.Lost += lost
	ts.set(ti, TaskPreempting, false)
	t.Ask(now, 0)
	t.Ver++
	return lost
}

// Stopping notes that task ti, asked at at to stop (preempting: its
// checkpoint's request, or the drain record of a move or resize;
// killing: its kill), lets go of its slots grace seconds later at the
// latest, as its driver promises it (the simulator's checkpoint landing
// after its checkpoint cost, a slow kill's end after KillAfter): the
// snapshot's allocation gives the forecast that deadline (Hold.FreeBy,
// sched.Alloc.FreeBy), as the master's gives its pool's grace.
func (ts *Tasks) Stopping(ti int32, at, grace int64) {
	ts.all[ti].Ask(at, grace)
}

// Kill asks task ti to stop for a kill, its time limit's where atLimit,
// else a user's: it holds
// its slots, killing, and does no more work; the end, checkpoint landing
// or other outcome promised for it before is stale. Its end comes by
// EventKillEnded, for its new version, and ends it as its Stop says.
func (ts *Tasks) Kill(ti int32, atLimit bool) {
	ts.set(ti, TaskKilling, false)
	t := &ts.all[ti]
	t.Ask(t.Asked, 0) // no end promised until the driver's (Stopping)
	if atLimit {
		t.LimitKill("")
	} else {
		t.Stop.Kill(TaskKilled, "")
	}
	t.Ver++
}

// Lose rolls task ti back to its last checkpoint at now, as a lost node
// leaves it: a running task keeps only what its periodic checkpoints
// (Every) or its last move saved, or, when its parts on nodes still up
// were asked to checkpoint (asked: CheckpointsOnLoss), what that request
// saves, as Preempt's does; a preempting or Replacing one what its
// checkpoint request saved already. It returns the run time thrown away,
// which the task's Lost also counts; the caller retires the record.
func (ts *Tasks) Lose(ti int32, now int64, sh Shape, asked bool) int64 {
	t := &ts.all[ti]
	if t.State != TaskRunning || t.Replacing() {
		return 0
	}
	if asked {
		lost := t.checkpoint(now, sh)
		t.Lost += lost
		return lost
	}
	kept := int64(0)
	if sh.Every > 0 {
		kept = (now - t.From) / sh.Every * sh.Every
	}
	if t.Work != Unbounded {
		t.Work = max(t.Work-kept*t.Rate(sh), 0)
	}
	lost := now - t.From - kept
	t.Lost += lost
	return lost
}

// Replaced is what Replace did.
type Replaced struct {
	// Drain is the slot of the record that holds the drained part of the
	// old placement until its checkpoint lands, or -1 when nothing drains.
	Drain int32
	// Lost is the run time the checkpoint threw away; LostWork is that
	// times the slots of the old placement.
	Lost, LostWork int64
	// Delta is the change in slots held, the draining part included.
	Delta int
}

// Replace asks running task ti to checkpoint at now for a move or resize
// (kind) onto nodes, in the same attempt: from now on it holds nodes
// reserved and does no work (Replacing), and the part of its old
// placement it lets go of (Replacement.Split's) drains as a Moving record
// of its own. Both are held until the task's checkpoint lands (Resume);
// the caller promises that landing for the task's new version.
func (ts *Tasks) Replace(ti int32, kind Replace, nodes []sched.NodeSlots, now int64, sh Shape) Replaced {
	r := Replaced{Drain: -1}
	h := ts.all[ti].hold()
	ts.all[ti].Reserve(kind, now, 0, "")
	placed, drained := ts.all[ti].Split(&h, nodes, ts.scratch)
	ts.scratch = drained.Nodes // copied into the drain record below
	if len(drained.Nodes) > 0 {
		r.Drain = ts.drainRecord(ti, drained.Nodes, drained.Moving, false)
		o := &ts.all[r.Drain]
		o.Work = 0
		// The drain record continues the attempt as it was before the
		// re-placement, asked to stop now (its own promise: Stopping).
		o.Attempt.Launch(drained.From, drained.Backfilled)
		o.Continue(drained.Start)
		o.Ask(now, 0)
	}
	t := &ts.all[ti]
	r.Lost = t.checkpoint(now, sh)
	r.LostWork = r.Lost * int64(sched.Slots(t.Nodes))
	t.Lost += r.Lost
	r.Delta = sched.Slots(nodes) + sched.Slots(drained.Nodes) - sched.Slots(t.Nodes)
	t.Attempt.Replace(now) // placed's facts, as Hold.Replaced made them
	t.Old = append(t.Old[:0], t.Nodes...)
	t.Nodes = append(t.Nodes[:0], placed.Nodes...)
	t.Drain = r.Drain
	t.Ver++ // the end promised for the old placement no longer applies
	return r
}

// drainRecord takes a record of its own for a placement of task ti's
// that drains: nodes, held preempting and doing no work until the
// driver's promised landing frees it (a moved or resized task's old
// part, Replace; a lost gang's parts on nodes up, Leave). The caller
// sets what of ti's attempt it continues, and asks it to stop. It
// returns the record's slot; it may grow the table, so pointers are
// taken after it.
func (ts *Tasks) drainRecord(ti int32, nodes []sched.NodeSlots, moving, left bool) int32 {
	di := ts.alloc()
	t, o := &ts.all[ti], &ts.all[di]
	o.Job, o.ID, o.Record = t.Job, t.ID, -1
	o.Nodes = append(o.Nodes[:0], nodes...)
	o.Ver++
	o.Moving, o.Left, o.Unanswered = moving, left, false
	o.Stop.Clear()
	o.Unreserve()
	o.Drain = -1
	ts.set(di, TaskPreempting, true)
	ts.running = append(ts.running, di)
	return di
}

// Resume restarts Replacing task ti on its new placement at now, when its
// checkpoint has landed, and returns the slot of its draining record (-1
// for none), which the caller frees. Its work runs from now; the caller
// asks Due for its end.
func (ts *Tasks) Resume(ti int32, now int64) int32 {
	t := &ts.all[ti]
	drain := t.Drain
	t.Unreserve()
	t.Drain = -1
	t.Attempt.Resume(now)
	t.Ver++
	return drain
}

// Abandoned is the draining record of task ti's move or resize in
// flight that its attempt abandons as it ends otherwise than by its
// checkpoint landing (it completes, fails, reaches its time limit or is
// lost meanwhile): the slot of that record, which the caller frees
// killed first (Cluster.dropDrain), or -1 when nothing drains (none in
// flight, or a resize that kept all of its old placement). The one rule
// of Exit, Fail, outcome and a lost node's loseTask. The task's record
// is left as it was, Replacement and Drain: what follows reads it still
// (Tasks.Lose saves nothing more of a Replacing task's run), and a
// retired record keeps it as history.
func (ts *Tasks) Abandoned(ti int32) int32 {
	if t := &ts.all[ti]; t.Replacing() && t.Drain >= 0 {
		return t.Drain
	}
	return -1
}

// Retire marks task ti as having let go of its slots, ending in state
// st, which must not be active; outcomes promised for it become stale.
func (ts *Tasks) Retire(ti int32, st TaskState) {
	t := &ts.all[ti]
	launched := t.Retries
	ts.set(ti, st, false) // its kill, if one was under way, is over (Enter)
	// The record is one attempt's: it keeps the count it was launched
	// with, where Enter counted a requeue (st queued, after a loss), as
	// its task's requeue is counted on its job's waiting entry
	// (Resumed.Retries, Job.end) for its next record (TaskRecord).
	t.Retries = launched
	t.Ver++
	ts.retired++
}
