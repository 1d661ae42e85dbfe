package lifecycle

// JobRecord is what both drivers keep of a job's state for its
// scheduling, one type that the Cluster's Job and the master's job
// (master/state.go, mjob) embed: where the job is (State), whether it is
// an experiment, whose trials end it otherwise (Experiment, EndedJob),
// and whether it is on hold (OnHold, onhold.go). Its State changes by
// one transition, Enter, and the state its tasks put it in is one rule,
// Settles, which both drivers call, so that they cannot drift: a job
// that ended stays ended (a killed job whose tasks are still being
// killed stays killed), one whose tasks have all ended ends as EndedJob
// says, and a live one is running while a task holds slots and queued
// while none does (LiveJob).
//
// The Cluster settles its job by Settle as a task starts or lets go of
// its slots (Job.Launch, Job.release) and ends it by Enter (Finish: a
// kill, a job of no tasks); the master, which stores a change before it
// makes it, asks Settles (settleJob), stores the transition, and enters
// the stored row's state, which it does in one place only (setJob,
// master/jobrecord.go), so that the record and the row always say the
// same. What its tasks say of it, JobTasks, both count by the same code
// (jobtasks.go), and both drop an ended job from their live ones by one
// rule (Live). What stays each driver's own beside it: the Cluster's
// waiting tasks and their work (Job) and its start and end in seconds
// (Start, End); the master's stored row with its times at the wall
// clock's precision, its reasons and the hold's who and when (the
// record's OnHold is the row's Held), and its tasks' counts by state.
type JobRecord struct {
	// State is where the job is. Enter changes it (the master's store
	// row keeps the same state: setJob sets both).
	State JobState
	// Experiment: the job's tasks are the trials of a search, which ends
	// completed once one of them completed (EndedJob). Fixed at
	// submission.
	Experiment bool
	// OnHold: the job is held (onhold.go): no pass considers it until it
	// is released.
	OnHold bool
}

// JobEntered is what Enter did that its driver acts on.
type JobEntered struct {
	// From is the state the job left (to itself where it stayed).
	From JobState
	// Ended: the job entered a terminal state from a live one (the
	// master logs and counts its end; the Cluster finishes it, Over).
	Ended bool
}

// Settles is the state that tasks t put the job in: a job that ended
// stays as it ended (a killed one whose tasks are still being killed
// included); one whose every task has ended ends as EndedJob says
// (failed if one failed, else killed if one was killed, else completed;
// an experiment completed once a trial did); a live one is running while
// a task holds slots and queued while none does (LiveJob).
func (r *JobRecord) Settles(t JobTasks) JobState {
	switch {
	case r.State.Terminal():
		return r.State
	case t.Ended >= t.Tasks:
		return EndedJob(t.Tasks, t.Failed, t.Killed, r.Experiment)
	}
	return LiveJob(t.Active)
}

// Live reports whether the job stays among its driver's live jobs (the
// master's mirror, the Cluster's roster), its tasks saying t: until it
// ends, and after that while a task of it still holds slots (a killed
// job whose tasks are being killed), so that what they hold stays in
// the snapshot until they let go of it. Both drivers drop an ended job
// by it: the master from its mirror as it settles the job (settleJob),
// the Cluster from its roster as it finishes the job or the last of its
// kills ends (Finish, kills.end, compaction).
func (r *JobRecord) Live(t JobTasks) bool { return !r.State.Terminal() || t.Active > 0 }

// Settle enters the state that tasks t put the job in (Settles).
func (r *JobRecord) Settle(t JobTasks) JobEntered { return r.Enter(r.Settles(t)) }

// Enter moves the job to state to and returns what of that the driver
// acts on. Enter checks no edge (JobEdge): the master's store refuses a
// transition off the graph, and its tests watch each change of its
// jobs' records against it (the master's job watch).
func (r *JobRecord) Enter(to JobState) JobEntered {
	e := JobEntered{From: r.State}
	r.State = to
	e.Ended = !e.From.Terminal() && to.Terminal()
	return e
}

// HoldChange says what a hold (on) or release (!on) asks of a job with
// active tasks holding slots: change, when it changes whether the job is
// held; refused, when it would hold a job that has a task holding slots
// (CanHold: a hold is not a preemption). Both drivers decide by it: the
// master refuses the request in words of its own and takes a request
// that changes nothing as done (master/api_hold.go); the Cluster applies
// the event only when it changes something and is not refused (hold).
func (r *JobRecord) HoldChange(on bool, active int) (change, refused bool) {
	if on && !r.OnHold && !CanHold(active) {
		return false, true
	}
	return on != r.OnHold, false
}
