package master

import (
	"fmt"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// A job being preempted. A preempted task is preempting in the store,
// holding its GPUs, from the checkpoint request until its attempt ends;
// its job stays running. The agent kills what has not stopped at the
// request plus the pool's grace (agent.Task.Preempt: a second request
// keeps the first deadline), so the master knows by when the GPUs are
// free. A list that showed the job running, "a task started", hid that
// it is stopping, and the forecast read the GPUs as free at once: a
// job waiting for them was forecast to start in the past. The views say
// it (api.Job.Preempting), as they say a move (readview_moving.go), and
// the snapshot gives the core's forecast the deadline (sched.Alloc.FreeBy,
// the attempt's Asked and Grace): the stored states, which the core and the replays
// read, stay as they are.

// stopDeadline is when task t, asked to stop, has its GPUs free at the
// latest: its request (the transition, rec.UpdatedAt) plus the grace
// its attempt was given (mattempt.stopGrace: the pool's grace, a
// checkpoint's for a preempting task, moves and resizes included,
// kill_grace for a killing one), which its agent keeps whatever a
// reload says since. Zero for any other task.
func stopDeadline(t *mtask) time.Time {
	if t.att == nil || t.att.stop.Type == "" {
		return time.Time{}
	}
	return t.rec.UpdatedAt.Add(t.att.stopGrace)
}

// taskPreempt reports whether task t is being preempted: preempting and
// neither moved nor resized (no move or resize in flight, mtask.Replacement),
// so that it waits again once it stops.
func taskPreempt(t *mtask) bool {
	return t != nil && t.rec.State == store.TaskPreempting && !t.Replacement.Replacing() && t.att != nil
}

// preemptingOf is what the view of job j says of its tasks being
// preempted: the first's request, when and why, its deadline
// (stopDeadline), and how many; nil when none is.
func preemptingOf(j *mjob) *api.Preempting {
	var r *api.Preempting
	for _, t := range j.tasks {
		if !taskPreempt(t) {
			continue
		}
		if r != nil {
			r.Tasks++
			continue
		}
		r = &api.Preempting{Task: t.rec.Index, Tasks: 1, Since: t.rec.UpdatedAt, Why: t.rec.Reason, Deadline: stopDeadline(t)}
	}
	return r
}

// preemptingReason is a list's reason for a job being preempted:
// "preempted for job 17 (...); checkpointing since 2026-11-28 09:10:37
// UTC, killed at 09:10:57 UTC if not stopped by then", naming the task
// in a job of several ("preempting task 1 (of 2 being preempted):
// preempted for ...").
func preemptingReason(r *api.Preempting, tasks int) string {
	why := r.Why
	if why == "" {
		why = "preempted"
	}
	if tasks > 1 {
		why = reasonSubject("preempting", "preempted", r.Task, r.Tasks, tasks) + ": " + why
	}
	return why + "; checkpointing since " + msgTime(r.Since) + ", killed at " +
		r.Deadline.UTC().Format("15:04:05 UTC") + " if not stopped by then"
}

// preemptingSentence is explain's sentence for a job being preempted:
// "It is being preempted: preempted for job 17 (...); checkpointing
// since ..., killed at ... if not stopped by then.", naming the task in
// a job of several.
func preemptingSentence(r *api.Preempting, tasks int) string {
	what := "It is being preempted: "
	if tasks > 1 {
		what = fmt.Sprintf("Its task %d is being preempted: ", r.Task)
		if r.Tasks > 1 {
			what = fmt.Sprintf("%d of its tasks are being preempted; task %d: ", r.Tasks, r.Task)
		}
	}
	if requeuedTask(r.Why) { // its owner's requeue (api_requeue.go)
		what = strings.Replace(what, "being preempted", "being requeued", 1)
	}
	r1 := *r
	r1.Task, r1.Tasks = 0, 1
	return what + preemptingReason(&r1, 1) + "."
}

// showPreempting marks the view of a running job whose task is being
// preempted, and says so in its reason, unless a reason about lost
// nodes, its end, a resize or a move says more.
func showPreempting(out *api.Job, j *jobRead, lost bool) {
	if j.preempting == nil || j.rec.State != store.JobRunning {
		return
	}
	r := *j.preempting
	out.Preempting = &r
	if !lost && !out.Ending && out.Resizing == nil && out.Moving == nil {
		out.Reason = preemptingReason(&r, j.tasks)
	}
}

// checkpointBy is when job ji's allocations among ends of the snapshot,
// each being preempted, have their slots free at the latest: the last of
// their deadlines (sched.Alloc.FreeBy); nil where one is not known.
func checkpointBy(s *sched.Snapshot, ji int, ends []int) *time.Time {
	var last int64
	for _, ai := range ends {
		a := &s.Allocs[ai]
		if a.Job != ji {
			continue
		}
		if a.FreeBy <= 0 {
			return nil
		}
		last = max(last, a.FreeBy)
	}
	if last == 0 {
		return nil
	}
	t := time.Unix(last, 0).UTC()
	return &t
}
