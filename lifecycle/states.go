package lifecycle

// TaskState is where a task is in its life: the one vocabulary of the
// master (which persists it: package store's TaskState is this type) and
// of the task records here. The values are strings so that they persist
// as they are; they are never renamed.
//
// A task is active (it holds slots) in starting, running, preempting (a
// checkpoint request was sent) and killing (a kill was sent). It is idle
// in queued and preempted (its checkpoint landed; it waits to be
// rescheduled). completed, failed and killed are terminal.
//
// A Task record here is running or preempting while it holds slots, or
// killing from a kill until its driver reports the end (killing.go);
// the simulator starts at once, so it needs no starting.
// When it lets go of them it ends completed (its work done),
// killed (its time limit, or a kill), preempted (its checkpoint landed;
// the task waits again as its job's Resumed) or failed (preempted, and its
// job's exit actions said not to reschedule it).
type TaskState string

// The task states.
const (
	TaskQueued     TaskState = "queued"
	TaskStarting   TaskState = "starting"
	TaskRunning    TaskState = "running"
	TaskPreempting TaskState = "preempting"
	TaskKilling    TaskState = "killing"
	TaskPreempted  TaskState = "preempted"
	TaskCompleted  TaskState = "completed"
	TaskFailed     TaskState = "failed"
	TaskKilled     TaskState = "killed"
)

// Terminal reports whether no transition leaves s.
func (s TaskState) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskKilled
}

// Active reports whether a task in state s holds slots (in the master, an
// open attempt).
func (s TaskState) Active() bool {
	switch s {
	case TaskStarting, TaskRunning, TaskPreempting, TaskKilling:
		return true
	}
	return false
}

// Valid reports whether s is one of the task states.
func (s TaskState) Valid() bool {
	return s.Active() || s.Terminal() || s == TaskQueued || s == TaskPreempted
}

// JobState is where a job is in its life, in the master's and the
// simulator's vocabulary alike (package store's JobState is this type; the
// simulator's result names queued "pending", sim.State). The values are
// strings so that they persist as they are; they are never renamed.
//
// A job is queued until a task first holds slots, running while one does,
// and queued again while none does (its preempted tasks wait to be
// rescheduled). Once every task has ended it is failed if a task failed,
// else killed if one was killed, else completed; a kill ends it killed at
// once. completed, failed and killed are terminal.
type JobState string

// The job states.
const (
	JobQueued    JobState = "queued"
	JobRunning   JobState = "running"
	JobCompleted JobState = "completed"
	// JobFailed: a task failed: a preemption or a lost node after which
	// its job's exit actions said not to reschedule it (FailOnPreempt, or
	// MaxRetries used up), or a failure of its own (the master's exit
	// codes; Cluster.Fail, the simulator's scripted fails).
	JobFailed JobState = "failed"
	// JobKilled: a kill ended the job, or a task was killed (here: reached
	// its time limit).
	JobKilled JobState = "killed"
)

// Terminal reports whether no transition leaves s.
func (s JobState) Terminal() bool {
	return s == JobCompleted || s == JobFailed || s == JobKilled
}

// Valid reports whether s is one of the job states.
func (s JobState) Valid() bool {
	switch s {
	case JobQueued, JobRunning, JobCompleted, JobFailed, JobKilled:
		return true
	}
	return false
}

// AttemptState is how an attempt of a task ended: the one vocabulary of
// attempt end states. The master persists it (package store's
// AttemptState is this type, the attempts table's CHECK constraint lists
// its values); the simulator's result names it in OSMO's words through
// one table (sim.AttemptState, which tells a time limit from other kills).
// The values are strings so that they persist as they are; they are never
// renamed.
type AttemptState string

// The attempt end states.
const (
	// AttemptCompleted: the task's work was done (the master: it exited
	// with code 0).
	AttemptCompleted AttemptState = "completed"
	// AttemptFailed: the task exited with an error (the master's exit
	// codes; Cluster.Fail, the simulator's scripted fails).
	AttemptFailed AttemptState = "failed"
	// AttemptKilled: a kill ended the attempt, or its time limit did
	// (Task.Limited; the master keeps which in the attempt's reason).
	AttemptKilled AttemptState = "killed"
	// AttemptPreempted: a preemption stopped the attempt and its
	// checkpoint landed; by its job's exit actions the task then waits
	// again or fails.
	AttemptPreempted AttemptState = "preempted"
	// AttemptLost: its node was lost (the master: its agent disappeared);
	// by its job's rules the task then waits again or fails.
	AttemptLost AttemptState = "lost"
)

// AttemptStates lists the attempt end states, in the order the schema's
// CHECK constraint lists them.
func AttemptStates() []AttemptState {
	return []AttemptState{AttemptCompleted, AttemptFailed, AttemptKilled, AttemptPreempted, AttemptLost}
}

// Valid reports whether s is one of the attempt end states.
func (s AttemptState) Valid() bool {
	switch s {
	case AttemptCompleted, AttemptFailed, AttemptKilled, AttemptPreempted, AttemptLost:
		return true
	}
	return false
}
