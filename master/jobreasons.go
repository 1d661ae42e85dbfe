package master

// The words a job's state change stores: why it is queued, how its
// tasks were killed, its end's reason (settleJob's).

import (
	"fmt"
	"strings"
	"time"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// killedReason says how many of j's tasks were killed, and how many of
// them by the job's time limit, so that a job its limit ended says so
// where it is listed, as its tasks do.
func killedReason(j *mjob, killed int) string {
	limited := 0
	for _, t := range j.tasks {
		if t.Stop.TimedOut() {
			limited++
		}
	}
	tasks := plural.Count(len(j.tasks), "task")
	switch {
	case limited == 0:
		return fmt.Sprintf("%d of %s %s killed", killed, tasks, plural.Was(killed))
	case limited == killed:
		return fmt.Sprintf("%d of %s reached the time limit of %s", killed, tasks, shortLimit(j.rec.TimeLimit))
	default:
		return fmt.Sprintf("%d of %s %s killed, %d by the time limit of %s", killed, tasks, plural.Was(killed), limited, shortLimit(j.rec.TimeLimit))
	}
}

// settleReason is the reason of job j's settle to state to at now, and
// for an end, when it ended (jobEndedAt: not after now, since the store
// refuses an end after the transition).
func settleReason(j *mjob, to store.JobState, now time.Time) (string, time.Time) {
	switch {
	case to.Terminal():
		return endedReason(j, to), jobEndedAt(j, now)
	case to == store.JobRunning:
		return "a task started", time.Time{}
	}
	return queuedReason(j), time.Time{}
}

// requeuedPreempted is the reason of a task that a preemption sent back
// to the queue (agents.go, restore.go), by which queuedReason tells a
// preempted job from one whose attempts ended otherwise: it leads the
// reason, which says after it what the attempt left in its checkpoint
// directory where its agents said (preemptedRequeue).
const requeuedPreempted = "requeued after preemption"

// queuedReason is why a job that holds no slots is queued, for allot job
// show: a job that was preempted and requeued says so, since "no task
// holds slots" reads as if it had never run.
func queuedReason(j *mjob) string {
	for _, t := range j.tasks {
		if t.rec.State == store.TaskQueued && strings.HasPrefix(t.rec.Reason, requeuedPreempted) {
			if to, ok := strings.CutPrefix(t.rec.Reason, requeuedPreempted+waitingTo); ok { // preemptedRequeue
				return "preempted; waits to " + to
			}
			return "preempted; waits to be rescheduled"
		}
		if t.rec.State == store.TaskQueued && t.rec.Reason == requeuedAgentStopped { // exitwords.go
			return "its node's agent stopped; waits to be rescheduled"
		}
		if t.rec.State == store.TaskQueued && requeuedTask(t.rec.Reason) {
			return t.rec.Reason // its owner's requeue (api_requeue.go)
		}
	}
	return "no task holds slots"
}
