package master

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// taskCounts counts a job's tasks by the code that counts the
// simulator's (lifecycle.Cluster's) tasks, lifecycle.JobTasks, moved by
// setTask at every change of a task's stored state: how many hold
// attempts, how many of those are being killed, how many ended, failed,
// were killed, and how many wait (Queued), all that the views and the
// snapshot read of them. Counters rather than a scan of the tasks:
// every scheduling pass reads them for every job. (It kept a count per
// state beside them; the shared counts now tell apart each state read.)
type taskCounts struct {
	lifecycle.JobTasks
}

// get is how many of the job's tasks wait to start, for s queued
// (JobTasks.Queued: the mirror holds no task preempted, setTask entering
// a landing with what follows it, and a restart requeues one it reads
// back at once); -1 for any other state, which the counts do not tell
// apart by this call. The snapshot's build asks it so (snapshot.go);
// other readers read JobTasks.
func (c *taskCounts) get(s store.TaskState) int {
	if s == store.TaskQueued {
		return c.Queued()
	}
	return -1
}
