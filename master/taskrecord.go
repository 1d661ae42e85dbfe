package master

import (
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// A task's state in the mirror is its scheduling record's
// (mtask.TaskRecord, lifecycle.TaskRecord, which the simulator's
// lifecycle.Cluster keeps of each task too), changed by its one
// transition, Enter, here only: setTask, which records each stored row
// of the task, enters the row's state with it, so that the record and
// the row always say the same. A checkpoint's landing and what follows
// it at once (requeued, restarted where a move or resize reserved,
// failed by its exit actions) are stored together, preempting →
// preempted and on (finishTransitions), and entered as one change.

// setTask records a task's new stored row in the mirror: its state by
// its record's transition (lifecycle.TaskRecord.Enter: a requeue
// counted, a move or resize in flight let go of once it left
// preempting, a kill under way over once it left killing), its job's
// counts of its tasks (lifecycle.JobTasks.Move, as the
// simulator's counts move), the release of its GPUs when its attempt
// closed (or a new one replaced it), and of its reserved GPUs once it
// left preempting (releaseReserved).
func (m *Master) setTask(t *mtask, rec store.Task) { m.recordTask(t, rec, false) }

// amendTask records the row in which a late exit amended t's lost end
// (store.AmendLostEnd: failed at the loss, completed or failed by its
// exit), the one change of a task's state off a terminal one, which the
// graph (lifecycle.TaskEdge) does not take: the store changed it in
// place of an end the master had to guess.
func (m *Master) amendTask(t *mtask, rec store.Task) { m.recordTask(t, rec, true) }

// recordTask is setTask, amend telling a late exit's amendment apart.
func (m *Master) recordTask(t *mtask, rec store.Task, amend bool) {
	m.batches.touch(t.job)
	t.rec = rec
	e := t.Enter(rec.State)
	if e.From != rec.State {
		t.job.count.Move(e.From, rec.State)
		if e.Requeued && e.From != store.TaskPreempting {
			// Requeued without a preemption (its node or start
			// lost): it resumes first among its job's waiting
			// tasks, as the simulator's job resumes the last
			// requeued first.
			t.preempted = m.planner.nextLaunch()
		}
	}
	if t.att != nil && (!rec.State.Active() || rec.Attempt != t.att.number) {
		m.release(t)
		t.att, t.closed = nil, t.att
	}
	if e.Unreserved {
		m.releaseReserved(t)
	}
	if m.watch != nil {
		m.watch(t, e.From, rec.State, amend)
	}
}

// releaseReserved frees the GPUs reserved for t's move or resize, which
// is over (landed or abandoned), but those its open attempt still holds.
// A resize keeps its own GPUs up to its new slots on a node
// (placeReserved, lifecycle.KeptOn), so its reservation and its attempt
// share them; where the attempt outlives the reservation (a kill of the
// task being resized: preempting → killing, until its agent reports the
// end) they stay the attempt's, not free for another start while the
// killed processes may still run there. The simulator's records hold no
// GPU twice (its Task holds the new placement, its Drain record what of
// the old drains); its Kill of a re-placed task whose kill takes its
// time puts it back on its old placement, as this keeps it
// (lifecycle's kills.replaced).
func (m *Master) releaseReserved(t *mtask) {
	m.releaseParts(t, t.next)
	t.next = nil
	if t.att == nil {
		return
	}
	for _, p := range t.att.parts {
		n := m.nodes[p.node]
		if n == nil {
			continue
		}
		for _, g := range p.gpus {
			if n.used[g.Index] == nil {
				n.used[g.Index] = t
			}
		}
	}
}

// newTask is task rec of job j in the mirror, its record entering rec's
// state (a task just submitted, queued; one a restart reads back).
func newTask(j *mjob, rec store.Task) *mtask {
	return &mtask{job: j, rec: rec, TaskRecord: lifecycle.TaskRecord{State: rec.State}}
}

// replacedAt is when the move or resize in flight of t re-placed it, at
// the wall clock's precision, which the views show (api.Moving.Since,
// api.Resizing.Since) and a restart reads its event from (nextFor): the
// time of its stored transition to preempting, rec's UpdatedAt, which
// the task keeps while it preempts (the store changes a row only by a
// transition, and preempting has none to itself) and the preempting
// view shows too (api.Preempting.Since). Its Replacement's Since is the
// same time in seconds (apply and restoreTask set it from it), which
// the views do not show: they would say it to the second only, unlike
// the preempting view of the same task. Zero when none is in flight.
func replacedAt(t *mtask) time.Time {
	if !t.Replacement.Replacing() {
		return time.Time{}
	}
	return t.rec.UpdatedAt
}
