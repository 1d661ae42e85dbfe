package master

import (
	"fmt"
	"slices"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
)

// interruptedSentence says how a job's attempts were cut short, its
// preemptions and its attempts lost with their nodes together, so that a
// task preempted twice and lost twice does not read as preempted twice
// only (trial o F18): "Its task 0 was preempted twice and lost with its
// node twice." "" for neither.
func interruptedSentence(x api.Explanation) string {
	p, l := len(x.Preemptions), len(x.Lost)
	switch {
	case l == 0 && p == 0:
		return ""
	case l == 0:
		return preemptedSentence(x)
	case p == 0:
		return lostSentence(x.Lost)
	}
	if task, ok := oneTask(x); ok {
		return fmt.Sprintf("Its task %d was preempted %s and lost with its node %s.", task, plural.Times(p), plural.Times(l))
	}
	return preemptedSentence(x) + " " + lostSentence(x.Lost)
}

// oneTask is the task that every preempted and lost attempt of x is of,
// if one is; a master's preemption lines alone name none.
func oneTask(x api.Explanation) (int, bool) {
	if len(x.Preempted) != len(x.Preemptions) {
		return 0, false
	}
	task := x.Lost[0].Task
	for _, a := range slices.Concat(x.Preempted, x.Lost) {
		if a.Task != task {
			return 0, false
		}
	}
	return task, true
}

// lostSentence counts attempts lost with their nodes by task, as
// preemptedSentence counts preemptions.
func lostSentence(lost []api.Preemption) string {
	tasks := map[int]bool{}
	for _, a := range lost {
		tasks[a.Task] = true
	}
	switch n := len(lost); {
	case len(tasks) == 1:
		return fmt.Sprintf("Its task %d was lost with its node %s.", lost[0].Task, plural.Times(n))
	case len(tasks) == n:
		return fmt.Sprintf("%d of its tasks were lost with their nodes, once each.", n)
	default:
		return fmt.Sprintf("%d of its tasks were lost with their nodes, %s in all.", len(tasks), plural.Times(n))
	}
}
