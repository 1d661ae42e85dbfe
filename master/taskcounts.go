package master

import "github.com/allot-sched/allot/store"

// taskStates indexes taskCounts.
var taskStates = [...]store.TaskState{store.TaskQueued, store.TaskStarting, store.TaskRunning,
	store.TaskPreempting, store.TaskKilling, store.TaskPreempted, store.TaskCompleted, store.TaskFailed,
	store.TaskKilled}

// taskCounts counts a job's tasks by state, with a last slot for a state
// the store would never return. An array rather than a map: every
// scheduling pass reads it for every job.
type taskCounts [len(taskStates) + 1]int

func stateIndex(s store.TaskState) int {
	// A switch, not a search of taskStates: every pass asks for every job.
	switch s {
	case store.TaskQueued:
		return 0
	case store.TaskStarting:
		return 1
	case store.TaskRunning:
		return 2
	case store.TaskPreempting:
		return 3
	case store.TaskKilling:
		return 4
	case store.TaskPreempted:
		return 5
	case store.TaskCompleted:
		return 6
	case store.TaskFailed:
		return 7
	case store.TaskKilled:
		return 8
	}
	return len(taskStates)
}

func (c *taskCounts) get(s store.TaskState) int    { return c[stateIndex(s)] }
func (c *taskCounts) add(s store.TaskState, d int) { c[stateIndex(s)] += d }
