package store

// JobState is where a job is in its life.
type JobState string

// The job states. completed, failed and killed are terminal.
const (
	JobQueued    JobState = "queued"
	JobRunning   JobState = "running"
	JobCompleted JobState = "completed"
	JobFailed    JobState = "failed"
	JobKilled    JobState = "killed"
)

// Terminal reports whether no transition leaves s.
func (s JobState) Terminal() bool {
	return s == JobCompleted || s == JobFailed || s == JobKilled
}

func (s JobState) valid() bool {
	switch s {
	case JobQueued, JobRunning, JobCompleted, JobFailed, JobKilled:
		return true
	}
	return false
}

// TaskState is where a task is in its life.
//
// A task is active (it holds an attempt and slots) in starting, running,
// preempting (a checkpoint request was sent) and killing (a kill was
// sent). It is idle in queued and preempted. completed, failed and killed
// are terminal.
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

// Active reports whether a task in state s holds an open attempt.
func (s TaskState) Active() bool {
	switch s {
	case TaskStarting, TaskRunning, TaskPreempting, TaskKilling:
		return true
	}
	return false
}

func (s TaskState) valid() bool {
	return s.Active() || s.Terminal() || s == TaskQueued || s == TaskPreempted
}

// AttemptState is how an attempt ended.
type AttemptState string

// The attempt end states.
const (
	AttemptCompleted AttemptState = "completed"
	AttemptFailed    AttemptState = "failed"
	AttemptKilled    AttemptState = "killed"
	AttemptPreempted AttemptState = "preempted"
	AttemptLost      AttemptState = "lost" // its agent disappeared
)

func (s AttemptState) valid() bool {
	switch s {
	case AttemptCompleted, AttemptFailed, AttemptKilled, AttemptPreempted, AttemptLost:
		return true
	}
	return false
}

// NodeState is whether a node is reachable.
type NodeState string

// The node states.
const (
	NodeUp   NodeState = "up"
	NodeLost NodeState = "lost"
)

func (s NodeState) valid() bool { return s == NodeUp || s == NodeLost }

// checkJobEdge reports whether from → to is an edge of the job state
// machine: any move between distinct states except out of a terminal one.
func checkJobEdge(from, to JobState) error {
	switch {
	case !from.valid() || !to.valid():
		return invalidf("unknown job state in %q → %q", from, to)
	case from == to:
		return invalidf("job transition %q → %q changes nothing", from, to)
	case from.Terminal():
		return invalidf("job state %q is terminal", from)
	}
	return nil
}

// checkTaskEdge validates a task transition's shape: the edge itself and
// whether it must open or close an attempt.
func checkTaskEdge(t TaskTransition) error {
	from, to := t.From, t.To
	switch {
	case !from.valid() || !to.valid():
		return invalidf("unknown task state in %q → %q", from, to)
	case from == to:
		return invalidf("task transition %q → %q changes nothing", from, to)
	case from.Terminal():
		return invalidf("task state %q is terminal", from)
	case to == TaskStarting && from.Active():
		return invalidf("task cannot go %q → starting: it already has an open attempt", from)
	case to == TaskStarting && len(t.Placement) == 0:
		return invalidf("task → starting needs a placement")
	case to != TaskStarting && len(t.Placement) > 0:
		return invalidf("placement given for %q → %q, only → starting opens an attempt", from, to)
	case to != TaskStarting && t.Backfill:
		return invalidf("backfill mark given for %q → %q, only → starting opens an attempt", from, to)
	case to != TaskPreempting && len(t.Reserve) > 0:
		return invalidf("reserved placement given for %q → %q, only → preempting reserves one", from, to)
	}
	closes := from.Active() && !to.Active()
	switch {
	case closes && t.End == nil:
		return invalidf("task %q → %q ends its attempt: an attempt end is required", from, to)
	case !closes && t.End != nil:
		return invalidf("task %q → %q has no attempt to end", from, to)
	case closes && !t.End.State.valid():
		return invalidf("unknown attempt end state %q", t.End.State)
	}
	if err := checkPlacement(t.Placement); err != nil {
		return err
	}
	return checkPlacement(t.Reserve)
}

func checkPlacement(ps []Placement) error {
	for i, p := range ps {
		if p.Node == "" {
			return invalidf("placement %d: node name is empty", i)
		}
	}
	return nil
}
