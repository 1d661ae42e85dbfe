package master

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// endedReason is the reason of job j, every task of which has ended, as
// it ends in state to (its record's Settles, lifecycle.EndedJob): an
// experiment one of whose trials completed is completed, and its reason
// counts the trials that did not ("8 of 10 trials completed; 1 failed,
// 1 killed"), so that allot jobs shows the search succeeded and what it
// lost.
func endedReason(j *mjob, to store.JobState) string {
	failed, killed := j.count.Failed, j.count.Killed
	switch {
	case to == store.JobCompleted && failed+killed > 0:
		var lost []string
		if failed > 0 {
			lost = append(lost, fmt.Sprintf("%d failed", failed))
		}
		if killed > 0 {
			lost = append(lost, fmt.Sprintf("%d killed", killed))
		}
		return fmt.Sprintf("%d of %s completed; %s", len(j.tasks)-failed-killed,
			plural.Count(len(j.tasks), "trial"), strings.Join(lost, ", "))
	case to == store.JobFailed:
		return failedReason(j, failed)
	case to == store.JobKilled:
		return killedReason(j, killed)
	}
	return "every task completed"
}

// failedReason is the reason of job j, failed tasks of which failed:
// how many, with why the first (by index) did, as the event log has it,
// so that allot jobs, job show and history say what failed it where a
// user looks: "1 of 1 task failed: preempted 2 times, max_retries 1",
// "2 of 4 tasks failed; task 1: exit code 3" (trial 2026-11-29d D4).
func failedReason(j *mjob, failed int) string {
	s := fmt.Sprintf("%d of %s failed", failed, plural.Count(len(j.tasks), "task"))
	for _, t := range j.tasks {
		if t.rec.State != store.TaskFailed || t.rec.Reason == "" {
			continue
		}
		if len(j.tasks) == 1 {
			return s + ": " + t.rec.Reason
		}
		return fmt.Sprintf("%s; task %d: %s", s, t.rec.Index, t.rec.Reason)
	}
	return s
}

// endWithLastTask moves the stored end of j, which was killed (killed)
// while its tasks still held their slots, to the end of its last task
// (jobEndedAt: its processes' exit where its agent reported one;
// store.MoveJobEnd), in the transaction or batch that stores that end:
// the job's Ended is then when it stopped, as a job that ended by
// itself has, and the kill keeps its own time in the event log (the
// job's transition to killed, killTimes), which the decision log, the
// what-if export and allot job show's Kill requested read. A job killed
// with no task holding slots ended at the kill, and keeps that time.
// Callers hold mu and have touched j (settleJob).
func (m *Master) endWithLastTask(ctx context.Context, j *mjob, killed bool) error {
	if !killed {
		return nil
	}
	last := jobEndedAt(j, m.now())
	if !last.After(j.rec.EndedAt) {
		return nil
	}
	rec, err := m.batches.w().MoveJobEnd(ctx, j.rec.ID, j.rec.State, last)
	if err != nil {
		return fmt.Errorf("end job %d with its last task: %w", j.rec.ID, err)
	}
	setJob(m, j, rec)
	return nil
}

// killTimes maps each job that evs (the event log) has a transition to
// killed of to its time: when the job was killed, which its stored end
// (store.Job.EndedAt) is no longer once its last task ended later
// (endWithLastTask).
func killTimes(evs []store.Event) map[int64]time.Time {
	out := map[int64]time.Time{}
	for _, e := range evs {
		if e.Index < 0 && e.To == string(store.JobKilled) && e.From != e.To {
			out[e.JobID] = e.At
		}
	}
	return out
}

// killTime is when killed job j was killed: its transition's (kills,
// killTimes), else its end, for a job whose transition the events read
// do not have.
func killTime(j store.Job, kills map[int64]time.Time) time.Time {
	if at, ok := kills[j.ID]; ok {
		return at
	}
	return j.EndedAt
}

// killRequested gives the view v of a killed job that has left the read
// view the time of its kill (KillRequestedAt), from the event log, where
// its last task ended later: its Ended is that end (endWithLastTask).
func killRequested(ctx context.Context, m *Master, v *api.Job) error {
	if v.State != string(store.JobKilled) || v.Ending || v.EndedAt == nil {
		return nil
	}
	evs, err := m.st.Events(ctx, store.EventFilter{JobID: v.ID, To: string(store.JobKilled)})
	if err != nil {
		return fmt.Errorf("read when job %d was killed: %w", v.ID, err)
	}
	if at, ok := killTimes(evs)[v.ID]; ok && at.Before(*v.EndedAt) {
		v.KillRequestedAt = &at
	}
	return nil
}

// endedAt is when terminal task t ended: its processes' exit where its
// agents reported one, as its attempt's elapsed time runs to it, else
// its last change, when the master ended it.
func (t *mtask) endedAt() time.Time {
	if !t.exited.IsZero() && t.exited.Before(t.rec.UpdatedAt) {
		return t.exited
	}
	return t.rec.UpdatedAt
}

// jobEndedAt is when job j, every task of which has ended, ended: its
// last task's end (endedAt), never after now. sacct's End is the job's
// end, so allot history's ENDED is this, as its ELAPSED runs to the
// exits; the master may hear of the last exit much later (an agent or
// store outage), and the job's event keeps that time.
func jobEndedAt(j *mjob, now time.Time) time.Time {
	var last time.Time
	for _, t := range j.tasks {
		if e := t.endedAt(); e.After(last) {
			last = e
		}
	}
	if last.IsZero() || last.After(now) {
		return now
	}
	return last
}
