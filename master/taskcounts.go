package master

import "github.com/allot-sched/allot/lifecycle"

// taskCounts counts a job's tasks by the code that counts the
// simulator's (lifecycle.Cluster's) tasks, lifecycle.JobTasks, moved by
// setTask at every change of a task's stored state: how many hold
// attempts, how many of those are being killed, how many ended, failed,
// were killed, and how many wait (Queued: the mirror holds no task
// preempted, setTask entering a landing with what follows it, and a
// restart requeues one it reads back at once), all that the views and
// the snapshot read of them. Counters rather than a scan of the tasks:
// every scheduling pass reads them for every job. (It kept a count per
// state beside them; the shared counts now tell apart each state read.)
type taskCounts struct {
	lifecycle.JobTasks
}
