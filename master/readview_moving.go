package master

import (
	"fmt"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A job being moved. While a move's checkpoint runs (a consolidation
// making room for another job, or a re-placement), the task is
// preempting in the store, holding its old placement, with the new one
// reserved (mtask.next, Replacement) with as many slots; its job is running. A list
// that showed that alone read as a preemption, the task's "preempting"
// as an end to come. The views say it (api.Job.Moving, api.Task.Move),
// as they say a resize (readview_resizing.go): the stored states, which
// the core and the replays read, stay as they are.

// taskMove is the move under way of task t: the nodes of its open
// attempt and of the placement reserved for it; false for a task not
// being moved, and for one being resized (taskResize), whose slots
// change.
func taskMove(t *mtask) (api.NodeChange, bool) {
	if t == nil || t.rec.State != store.TaskPreempting || !t.Replacement.Replacing() || t.att == nil {
		return api.NodeChange{}, false
	}
	if _, resized := taskSlots(t); resized {
		return api.NodeChange{}, false
	}
	return api.NodeChange{From: partNodes(t.att.parts), To: partNodes(t.next)}, true
}

// partNodes is the nodes of parts, in their order.
func partNodes(parts []*mpart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.node
	}
	return out
}

// movingOf is what the view of job j says of its tasks being moved: the
// first's move, who for and since when, and how many; nil when none is.
func movingOf(j *mjob) *api.Moving {
	var r *api.Moving
	for _, t := range j.tasks {
		c, ok := taskMove(t)
		if !ok {
			continue
		}
		if r != nil {
			r.Tasks++
			continue
		}
		r = &api.Moving{Task: t.rec.Index, Tasks: 1, From: c.From, To: c.To, ForJob: t.Replacement.For, Since: replacedAt(t)}
	}
	return r
}

// storedMove is the move under way of stored task t (preempting, with a
// placement of as many slots reserved): the nodes of its open attempt and
// of that placement. Nil otherwise, as for a resize (storedResize).
func storedMove(t store.Task, atts []store.Attempt) *api.NodeChange {
	if t.State != store.TaskPreempting || len(t.Reserved) == 0 {
		return nil
	}
	for _, a := range atts {
		if a.Index != t.Index || a.Number != t.Attempt {
			continue
		}
		if placedSlots(a.Placement) != placedSlots(t.Reserved) {
			return nil
		}
		return &api.NodeChange{From: placedNodes(a.Placement), To: placedNodes(t.Reserved)}
	}
	return nil
}

// placedNodes is the nodes of a stored placement, in its order.
func placedNodes(ps []store.Placement) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Node
	}
	return out
}

// movingReason is a list's reason for a job being moved: "moving to
// node-b to make room for job 16; checkpointing since 2026-11-28
// 01:49:49 UTC", naming the task in a job of several ("moving task 1
// (of 2 being moved) to ...").
func movingReason(r *api.Moving, tasks int) string {
	s := reasonSubject("moving", "moved", r.Task, r.Tasks, tasks) + " to " + andList(r.To)
	if r.ForJob != 0 {
		s += fmt.Sprintf(" to make room for job %d", r.ForJob)
	}
	if !r.Since.IsZero() {
		s += "; checkpointing since " + msgTime(r.Since)
	}
	return s
}

// showMoving marks the view of a running job whose task is being moved,
// and says so in its reason, unless a reason about lost nodes, its end
// or a resize says more (lost, out.Ending, out.Resizing).
func showMoving(out *api.Job, j *jobRead, lost bool) {
	if j.moving == nil || j.rec.State != store.JobRunning {
		return
	}
	r := *j.moving
	out.Moving = &r
	if !lost && !out.Ending && out.Resizing == nil {
		out.Reason = movingReason(&r, j.tasks)
	}
}
