package master

import (
	"fmt"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A job being resized. While a resize's checkpoint runs, the task is
// preempting in the store, holding its old slots, with its new placement
// reserved (mtask.next), and its job is running: a list that showed that
// alone said nothing of the shrink, and explain read the reserved
// placement as what the task holds. The views say it (api.Job.Resizing,
// api.Task.Resize), as they say a job still ending: the stored states,
// which the core and the replays read, stay as they are.

// taskResize is the resize under way of task t (taskSlots), false for a
// task not being resized.
func taskResize(t *mtask) (api.SlotChange, bool) {
	if t == nil || t.rec.State != store.TaskPreempting {
		return api.SlotChange{}, false
	}
	return taskSlots(t)
}

// resizingOf is what the view of job j says of its tasks being resized:
// the first's resize, who for and why (as the master applied it, or read
// it back from its event after a restart: mtask.Replacement's For and
// Why), and
// how many; nil when none is.
func resizingOf(j *mjob) *api.Resizing {
	var r *api.Resizing
	for _, t := range j.tasks {
		c, ok := taskResize(t)
		if !ok {
			continue
		}
		if r != nil {
			r.Tasks++
			continue
		}
		r = &api.Resizing{Task: t.rec.Index, Tasks: 1, From: c.From, To: c.To, Since: replacedAt(t), ForJob: t.Replacement.For,
			Why: t.Replacement.Why}
	}
	return r
}

// resizingTail is what follows a resize's subject: "from 4 to 2 slots
// for job 16 (quota reclaim: ...); checkpointing since 2026-11-28
// 01:49:49 UTC", or "from 2 to 4 slots; ..." for growth.
func resizingTail(r *api.Resizing) string {
	s := fmt.Sprintf("from %d to %s", r.From, slotWord(r.To))
	if r.ForJob != 0 {
		s += fmt.Sprintf(" for job %d", r.ForJob)
		if r.Why != "" {
			s += " (" + r.Why + ")"
		}
	}
	if !r.Since.IsZero() {
		s += "; checkpointing since " + msgTime(r.Since)
	}
	return s
}

// resizingReason is a list's reason for a job being resized: "resizing
// from 4 to 2 slots for job 16 (...); checkpointing since ...", naming
// the task in a job of several ("resizing task 1 (of 2 being resized)
// from ...").
func resizingReason(r *api.Resizing, tasks int) string {
	return reasonSubject("resizing", "resized", r.Task, r.Tasks, tasks) + " " + resizingTail(r)
}

// reasonSubject begins a list's reason for a job whose tasks are being
// resized or moved (verb "resizing", participle "resized"): the verb
// alone for a job of one task, else naming the first such task and,
// when there are several, how many ("resizing task 1 (of 2 being
// resized)").
func reasonSubject(verb, participle string, task, changing, tasks int) string {
	if tasks <= 1 {
		return verb
	}
	s := fmt.Sprintf("%s task %d", verb, task)
	if changing > 1 {
		s += fmt.Sprintf(" (of %d being %s)", changing, participle)
	}
	return s
}

// resizingSentence is explain's sentence for a job being resized: "It
// is being resized from 4 to 2 slots for job 16 (...); checkpointing
// since ...", "Its task 1 is being resized from ...".
func resizingSentence(r *api.Resizing, tasks int) string {
	what := "It is being resized"
	if tasks > 1 {
		what = fmt.Sprintf("Its task %d is being resized", r.Task)
		if r.Tasks > 1 {
			what = fmt.Sprintf("%d of its tasks are being resized; task %d", r.Tasks, r.Task)
		}
	}
	return what + " " + resizingTail(r) + "."
}

// showResizing marks the view of a running job whose task is being
// resized, and says so in its reason, unless a reason about lost nodes
// or its end says more (lost, out.Ending).
func showResizing(out *api.Job, j *jobRead, lost bool) {
	if j.resizing == nil || j.rec.State != store.JobRunning {
		return
	}
	r := *j.resizing
	out.Resizing = &r
	if !lost && !out.Ending {
		out.Reason = resizingReason(&r, j.tasks)
	}
}
