package master

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// taskStates indexes taskCounts.
var taskStates = [...]store.TaskState{store.TaskQueued, store.TaskStarting, store.TaskRunning,
	store.TaskPreempting, store.TaskKilling, store.TaskPreempted, store.TaskCompleted, store.TaskFailed,
	store.TaskKilled}

// taskCounts counts a job's tasks: what they say of the job
// (lifecycle.JobTasks: how many hold attempts, how many ended, failed,
// killed), counted by the code that counts the simulator's
// (lifecycle.Cluster's) tasks, and how many are in each state (by), with
// a last slot for a state the store would never return, which the views
// and the snapshot read (queued, killing). Arrays and counters rather
// than a map or a scan of the tasks: every scheduling pass reads them
// for every job.
type taskCounts struct {
	lifecycle.JobTasks
	by [len(taskStates) + 1]int
}

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

// get is how many of the job's tasks are in state s.
func (c *taskCounts) get(s store.TaskState) int { return c.by[stateIndex(s)] }

// add counts n more tasks of the job, born in state s (a submission's, or
// one a restart reads back).
func (c *taskCounts) add(s store.TaskState, n int) {
	c.by[stateIndex(s)] += n
	c.Add(s, n)
}

// move counts a change of a task's state, from → to (setTask).
func (c *taskCounts) move(from, to store.TaskState) {
	c.by[stateIndex(from)]--
	c.by[stateIndex(to)]++
	c.Move(from, to)
}
