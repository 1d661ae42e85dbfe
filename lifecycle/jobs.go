package lifecycle

import "github.com/allot-sched/allot/sched"

// Resumed is a preempted task waiting to be rescheduled.
type Resumed struct {
	Work    int64 // remaining work, or Unbounded
	ID      int32 // the task's number in its job
	Retries int32 // times it has been rescheduled after preemption
}

// Job is a job's tasks as the lifecycle counts them: how many wait, run
// and have ended, and the job's state that follows from them. The
// driver keeps the job's other records (its spec, metrics) beside it.
type Job struct {
	// What the job asks, fixed at submission (the Submission's); its
	// number of tasks is JobTasks.Tasks.
	Fresh int64
	Shape Shape
	// Works are the tasks whose fresh work is their own (FreshOf).
	Works map[int32]int64

	// Waiting counts tasks ready to start; Resume holds the preempted
	// ones among them, which start before fresh ones, last in first out.
	Waiting int
	Resume  []Resumed
	// JobTasks counts the job's tasks as the master counts its own
	// (jobtasks.go), moved by Launch and release: those holding slots
	// (Active; checkpointing ones and those being killed included), those ended
	// (completed, failed or killed: Ended, Failed, Killed).
	JobTasks
	Held int // slots held, draining ones of moved tasks included
	// Moving counts the drained placements of moved tasks still held.
	Moving   int
	Preempts int
	// Start is when a task first held slots and End when the job ended,
	// -1 until then.
	Start, End int64
	// NextTask numbers the job's tasks as they first start.
	NextTask   int32
	MaxRetries int32
	// Project and Account are the Submission's.
	Project, Account int32
	FailOnPreempt    bool
	// finished: Finish ended the job (its End set); Over is false from
	// then on. (Beside FailOnPreempt, where it takes no word of its own.)
	finished bool
	// Timeout counts the tasks that its time limit killed (Exit's
	// timedOut, or a limit's kill that took its time), which the
	// simulator's results read; JobTasks.Killed counts a kill's too.
	Timeout int32
	// JobRecord is the job's scheduling record, the one the master keeps
	// of each job too (jobrecord.go): its state, which its tasks settle
	// (Settle, in Launch and release) and Finish ends; whether its tasks
	// are the trials of a search (Experiment, EndedJob); whether it is
	// held (OnHold: EventHold, onhold.go), its entry showing no waiting
	// task until it is released.
	JobRecord
}

// Submission is what the lifecycle needs of a submitted job.
type Submission struct {
	// Tasks tasks, each with Fresh work (FreshWork) progressing as Shape
	// says. After a preemption a task fails if FailOnPreempt or it was
	// rescheduled MaxRetries times already (0: no cap).
	Tasks         int
	Fresh         int64
	Shape         Shape
	FailOnPreempt bool
	MaxRetries    int
	// Experiment: the job is an experiment, its tasks trials, which ends
	// completed once one of them completed (EndedJob).
	Experiment bool
	// Project is the project whose preemption budget the job's
	// preemptions and moves count against, Account the account its slots
	// are charged to; -1 for none.
	Project, Account int32
	// Works maps the numbers of the tasks whose fresh work is not Fresh
	// to theirs (a scenario's runs: tasks that ran for different times
	// live); nil for none.
	Works map[int32]int64
	// Held submits the job held (allot submit --hold): it is on hold
	// (OnHold, onhold.go) from its submission on.
	Held bool
}

// NewJob is the record of a job just submitted; resume lends its buffer.
func NewJob(sub Submission, resume []Resumed) Job {
	j := Job{Fresh: sub.Fresh, Works: sub.Works, Shape: sub.Shape, FailOnPreempt: sub.FailOnPreempt,
		MaxRetries: int32(sub.MaxRetries), Project: sub.Project, Account: sub.Account,
		Waiting: sub.Tasks, Resume: resume[:0], Start: -1, End: -1,
		JobRecord: JobRecord{State: JobQueued, Experiment: sub.Experiment, OnHold: sub.Held}}
	j.Add(TaskQueued, sub.Tasks)
	return j
}

// Launch starts one waiting task of job ji (this record) on nodes at now:
// a preempted one if any waits, else a fresh one. It returns the task's
// slot in ts; the task's Limited says whether Due is its time limit.
func (j *Job) Launch(ts *Tasks, ji int32, nodes []sched.NodeSlots, backfill bool, now int64) int32 {
	// The rule a Persister's effects were resolved by (Effect.Launches).
	r := nextLaunch(j, 0)
	if n := len(j.Resume); n > 0 {
		j.Resume = j.Resume[:n-1]
	} else {
		j.NextTask++
	}
	ti := ts.Launch(ji, r.ID, r.Retries, r.Work, nodes, backfill, now)
	j.Waiting--
	// From waiting, queued or preempted, which count alike (Resumed
	// does not say which its last record retired in).
	j.Move(TaskQueued, TaskRunning)
	j.Held += sched.Slots(nodes)
	if j.Start < 0 {
		j.Start = now
	}
	j.Settle(j.JobTasks) // running
	t := ts.At(ti)
	_, limited := t.Due(j.Shape)
	t.Promise(limited)
	return ti
}

// FreshOf is the work of the job's task id before it ran: its own
// (Works), else Fresh.
func (j *Job) FreshOf(id int32) int64 {
	if w, ok := j.Works[id]; ok {
		return w
	}
	return j.Fresh
}

// Preempt asks the job's task ti to stop at now (Tasks.Preempt) and
// returns the run time thrown away.
func (j *Job) Preempt(ts *Tasks, ti int32, now int64) int64 {
	j.Preempts++
	return ts.Preempt(ti, now, j.Shape)
}

// Replace re-places the job's running task ti on nodes at now by a move
// or resize (kind), what of its old placement it does not keep draining
// (Tasks.Replace) until its checkpoint lands (Landed).
func (j *Job) Replace(ts *Tasks, ti int32, kind Replace, nodes []sched.NodeSlots, now int64) Replaced {
	r := ts.Replace(ti, kind, nodes, now, j.Shape)
	if r.Drain >= 0 {
		j.Moving++
	}
	j.Held += r.Delta
	return r
}

// Landed restarts the job's Replacing task ti on its new placement at
// now, its checkpoint landed (Tasks.Resume), frees its draining record
// and sets whether its new end is its time limit. It returns the
// draining record (-1: none) and the slots it freed.
func (j *Job) Landed(ts *Tasks, ti int32, now int64) (int32, int) {
	oi, slots := ts.Resume(ti, now), 0
	if oi >= 0 {
		slots = j.Drained(ts, oi, TaskPreempted)
	}
	t := ts.At(ti)
	if due, limited := t.Due(j.Shape); due >= 0 {
		t.Promise(limited)
	}
	return oi, slots
}

// Kill leaves the job's active task ti killing (Tasks.Kill: its time
// limit's where atLimit, else a user's), counted so (JobTasks.Move).
func (j *Job) Kill(ts *Tasks, ti int32, atLimit bool) {
	j.Move(ts.At(ti).State, TaskKilling)
	ts.Kill(ti, atLimit)
}

// Release lets go of task ti's slots and retires it killed, as a kill
// does, returning the slots. It leaves the job's state to the kill,
// which ends it killed (Finish), as the master stores a job killed
// before its tasks: settled by its tasks, counted ended as they are
// killed, it could end otherwise first (failed, where one failed).
func (j *Job) Release(ts *Tasks, ti int32) int { return j.retire(ts, ti, TaskKilled) }

// release lets go of task ti's slots, retires it in state st and settles
// the job. As the master's settleJob: a job none of whose tasks holds
// slots is queued again, whichever way its last one let go, and one
// whose tasks have all ended ends, which its caller then finishes (Over).
func (j *Job) release(ts *Tasks, ti int32, st TaskState) int {
	slots := j.retire(ts, ti, st)
	j.Settle(j.JobTasks)
	return slots
}

// retire lets go of task ti's slots and retires it in state st, counted
// so (JobTasks.Move), returning the slots.
func (j *Job) retire(ts *Tasks, ti int32, st TaskState) int {
	t := ts.At(ti)
	slots := sched.Slots(t.Nodes)
	j.Move(t.State, st)
	j.Held -= slots
	ts.Retire(ti, st)
	return slots
}

// Exit ends the job's task ti: its work is done, or (timedOut) it reached
// its time limit and was killed. It returns the slots freed.
func (j *Job) Exit(ts *Tasks, ti int32, timedOut bool) int {
	k := EndCompleted
	if timedOut {
		k = EndLimited
	}
	return j.end(ts, ti, j.ending(ts.At(ti), k).Decide())
}

// Checkpointed ends preempted task ti once its checkpoint has landed: by
// the job's exit actions it waits to be rescheduled, keeping its number
// and remaining work, or it fails (Decide of EndPreempted). It returns
// the slots freed.
func (j *Job) Checkpointed(ts *Tasks, ti int32) int {
	return j.end(ts, ti, j.ending(ts.At(ti), EndPreempted).Decide())
}

// Lost ends task ti, whose node was lost (Tasks.Lose has kept what its
// last checkpoint saved, if it ran), as the master ends a lost attempt
// (Decide of EndLost, LostRequeues): a task of a preemptible job, or one
// that never ran (ran false: no agent answered its start,
// Task.Unanswered), waits to be rescheduled as after a preemption, by
// the job's exit actions (it ends queued), or fails; a task of a job
// that is not preemptible, which ran and must not run twice, fails. It
// returns the slots freed.
func (j *Job) Lost(ts *Tasks, ti int32, preemptible, ran bool) int {
	return j.end(ts, ti, j.lostEnding(ts.At(ti), preemptible, ran).Decide())
}

// lostEnding is what the job and task t say of t's attempt lost (Lost).
func (j *Job) lostEnding(t *Task, preemptible, ran bool) Ending {
	e := j.ending(t, EndLost)
	e.Preemptible, e.Ran = preemptible, ran
	return e
}

// ending is what the job and its task t say of t's attempt ending as k
// (Decide): the job's exit actions, the task's reschedules and whether
// it ran; the caller adds what its Cluster knows (Cluster.ending).
func (j *Job) ending(t *Task, k EndKind) Ending {
	return Ending{Kind: k, Ran: !t.Unanswered, FailOnPreempt: j.FailOnPreempt, MaxRetries: j.MaxRetries, Retries: t.Retries}
}

// end ends task ti of the job as Decide's verdict v says, retiring it
// in v's state: a task that waits again (Verdict.Waits) goes back among
// the job's waiting ones, keeping its number and remaining work, and
// stays preempted when a preemption stopped it; one that fails, is
// killed (its time limit: the Cluster kills no attempt otherwise) or
// completes is done. A verdict that restarts the task (Verdict.Restarts)
// is Landed's, not end's. It returns the slots freed.
func (j *Job) end(ts *Tasks, ti int32, v Verdict) int {
	st := v.Final()
	switch st {
	case TaskQueued:
		t := ts.At(ti)
		j.Resume = append(j.Resume, Resumed{Work: t.Work, ID: t.ID, Retries: t.Retries + 1})
		j.Waiting++
		st = v.Task // preempted, or queued after a loss
	case TaskKilled:
		j.Timeout++ // the Cluster kills a live job's task by its time limit only
	}
	// Failed, killed and completed ones count as their state says
	// (release: JobTasks.Move).
	return j.release(ts, ti, st)
}

// Drained frees the drained placement oi of a moved task of the job,
// returning the slots freed. It ends preempted when its checkpoint has
// landed, or killed when it was not waited for (a kill, or its job ended).
func (j *Job) Drained(ts *Tasks, oi int32, st TaskState) int {
	slots := sched.Slots(ts.At(oi).Nodes)
	j.Held -= slots
	j.Moving--
	ts.Retire(oi, st)
	return slots
}

// Over reports whether the job's tasks have ended it (its record settled
// to a terminal state as its last task let go of its slots, release:
// failed if a task failed, killed if one reached its time limit, else
// completed; an experiment completed once a trial did, EndedJob) and
// its driver has not finished it yet (Finish), and the job's state.
func (j *Job) Over() (JobState, bool) {
	return j.State, j.State.Terminal() && !j.finished
}

// Cancel ends the job's waiting tasks killed, as a kill does (KillTo:
// queued or preempted → killed), counted so (JobTasks.Moves), as the
// master counts its queued tasks a kill ends; the driver ends its
// running ones first. Waiting ones count alike whether queued or
// preempted (Launch), and a task whose lost parts still drain (Await)
// is not among them: it waits for their landing, which a kill frees
// killed (Cluster.Kill), and counts killed here too.
func (j *Job) Cancel() {
	j.Moves(TaskQueued, TaskKilled, j.Waiting)
	j.Waiting = 0
	j.Resume = j.Resume[:0]
}

// Finish ends the job in terminal state st at now: the state its tasks
// ended it in (Over), or a kill's, or a job of no tasks' (completed).
func (j *Job) Finish(st JobState, now int64) {
	j.Enter(st)
	j.End, j.finished = now, true
}
