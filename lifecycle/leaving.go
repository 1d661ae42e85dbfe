package lifecycle

import (
	"slices"

	"github.com/allot-sched/allot/sched"
)

// A lost gang's parts on nodes still up (trial 2026-11-29b B18). When a
// gang loses one of its nodes and its task waits to resume
// (CheckpointsOnLoss), the live master ends the attempt lost at the
// loss but asks its parts on the nodes that stayed up to checkpoint with
// the pool's grace, and holds their GPUs, and the task's next start,
// until they have ended (master/lostgang.go). The Cluster holds them
// the same way: the loss moves those parts to a record of their own
// (Tasks.Leave), preempting from the loss and Moving (a draining
// placement of no running task), which holds their slots, and the task
// waits for it: its place among its job's waiting tasks (Job.Resume,
// Waiting) is kept on the record, not the job, until the record lands
// (EventLeftLanded, the driver's promise: Outcome.Leaving). The
// attempt itself ended lost at the loss, as live. A kill of the job
// frees the record killed, as any draining placement.

// upParts is what of placement ns lies on nodes up: the parts of a lost
// gang that run on.
func (b *nodeBook) upParts(ns []sched.NodeSlots) []sched.NodeSlots {
	var up []sched.NodeSlots
	for _, x := range ns {
		if !b.isDown(x.Node) {
			up = append(up, x)
		}
	}
	return up
}

// Leave moves the parts up (on nodes still up) of running task ti's
// placement, whose attempt is lost at now, to a record of their own,
// preempting and Moving, asked to stop at now, which keeps the task's
// number and reschedules; ti keeps the rest, which its loss frees. It
// returns the record's slot.
func (ts *Tasks) Leave(ti int32, up []sched.NodeSlots, now int64) int32 {
	li := ts.drainRecord(ti, up, true, true)
	t, o := &ts.all[ti], &ts.all[li]
	o.Retries = t.Retries
	o.Attempt = t.Attempt
	o.Ask(now, 0) // the driver promises its landing (Stopping)
	o.Work, o.Lost = t.Work, 0
	o.ExitBefore, o.KillAfter = 0, 0
	t.Nodes = slices.DeleteFunc(t.Nodes, func(x sched.NodeSlots) bool { return slices.Contains(up, x) })
	return li
}

// Leave holds the parts up of the job's task ti, lost at now, as a
// record of their own (Tasks.Leave), counted among its draining
// placements (Moving); the caller ends ti (Lost) and then keeps its
// place among the waiting tasks on the record (Await).
func (j *Job) Leave(ts *Tasks, ti int32, up []sched.NodeSlots, now int64) int32 {
	j.Moving++
	return ts.Leave(ti, up, now)
}

// Await moves the place among the job's waiting tasks that the task of
// record li just took, ending lost (Lost), to the record: the task does
// not start again before the record lands (Landed).
func (j *Job) Await(ts *Tasks, li int32) {
	n := len(j.Resume) - 1
	r := j.Resume[n]
	j.Resume = j.Resume[:n]
	j.Waiting--
	ts.At(li).Work = r.Work
}

// leftLanded frees the record of a lost gang's parts on nodes up whose
// checkpoint landed (EventLeftLanded), ended preempted, and puts its
// task back among its job's waiting ones, rescheduled once more as its
// loss rescheduled it. A stale landing, or one of another record,
// changes nothing.
func (b *nodeBook) leftLanded(c *Cluster, e Event) Outcome {
	if e.Task < 0 || int(e.Task) >= c.Tasks.Len() {
		return Outcome{Job: -1}
	}
	t := c.Tasks.At(e.Task)
	if !t.State.Active() || !t.Left || t.Ver != e.Ver {
		return Outcome{Job: -1}
	}
	ji := t.Job
	j := &c.Jobs[ji]
	j.Resume = append(j.Resume, Resumed{Work: t.Work, ID: t.ID, Retries: t.Retries + 1})
	j.Waiting++
	slots := c.freed(j, j.Drained(&c.Tasks, e.Task, TaskPreempted))
	c.waiting(ji)
	c.step.wake()
	c.freedRecs = append(c.freedRecs[:0], Freed{Task: e.Task, From: TaskPreempting, Slots: slots})
	return Outcome{Applied: true, Job: ji, Slots: slots, Freed: c.freedRecs}
}
