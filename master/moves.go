package master

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Moves and resizes (sched.Plan.Moves, sched.Plan.Resizes). The applier
// turns each into one transition, running (or starting) → preempting,
// that also stores the task's new placement (store.TaskTransition.Reserve)
// in the same transaction as the plan's other items, and only then sends
// the preempt command, with the pool's grace period: the task
// checkpoints. From then on the new placement's GPUs are held for the task
// (mtask.next), the move or resize is in flight (mtask.Replacement, the
// lifecycle.Replacement the simulator's task records keep too), and
// snapshots show the task as the core expects, split by that record
// (Replacement.Split): its new placement running, and whatever of the
// old placement the new one does not reuse preempting and moving. When
// the attempt ends checkpointed, the task goes preempting → preempted →
// starting on the reserved placement in one transaction, without
// queueing, and gets its start commands at once. If a node of the
// reservation went down meanwhile (Replacement.Landing, reservedDown),
// or the attempt ended otherwise (completed, failed, killed, lost), the
// reservation is dropped (setTask, Replacement.Unreserve) and the task
// ends or is requeued as any other would be.
//
// After a master restart the reservation is read back from the store
// (store.Task.Reserved) with the open attempt, whether a move or a resize
// from its reason (reservedKind), its GPUs are held again, and the
// preempt command is sent again: the task still restarts on its
// reservation, or is requeued cleanly when that is no longer possible.
//
// While a move is under way no plan item that names the task (a
// preemption, another move or a resize of its new placement) is applied:
// the settle loop the simulator runs too skips it (lifecycle.Settle, by
// lifecycle.Replannable, asking settling.Replacing); the core asks again
// once the task runs on its new placement.

// current returns the task of the last snapshot's allocation a when it may
// be preempted, moved or resized now: its attempt is the one the
// allocation stood for, starting or running, and its job is unchanged
// since the build (stale.go). That no move or resize of it is under way
// (lifecycle.Replannable: the allocation is neither its reserved
// placement nor the attempt that checkpoints for it) lifecycle.Settle
// checked before (settling.Replacing).
func (pl *planner) current(a int) *mtask {
	t := pl.view.allocs[a].t
	if t.att == nil || (t.rec.State != store.TaskRunning && t.rec.State != store.TaskStarting) {
		return nil
	}
	if !pl.built.attempt(a, t) || !pl.built.unchanged(t.job) {
		return nil
	}
	return t
}

// replaceOp is the transition of a move or resize e, which charges the
// budget as lifecycle says (a move and a shrink for another job count as
// preemptions, growth does not) and names the job it makes room for.
func (pl *planner) replaceOp(e *lifecycle.Effect, claimed map[string]map[int]bool, now time.Time) *taskOp {
	t := pl.current(int(e.Task))
	if t == nil {
		return nil
	}
	r := e.Op.Replace()
	parts, ok := pl.placeReserved(t, e.Nodes, claimed, r)
	if !ok {
		return nil
	}
	reason, cause, why := "", store.CauseMoved, ""
	if r == lifecycle.Resize {
		reason, cause = resizeReason+plural.Count(sched.Slots(e.Nodes), "slot"), store.CauseResized
	}
	if e.For >= 0 && e.For < len(pl.snap.Jobs) {
		if r == lifecycle.Move {
			reason = "moving to make room for job " + pl.snap.Jobs[e.For].ID
		} else {
			why = resizeWhy(&pl.snap, sched.Preemption{Alloc: int(e.Task), For: e.For})
			reason += " for job " + pl.snap.Jobs[e.For].ID + " (" + why + ")"
		}
	}
	return &taskOp{t: t, next: parts, kind: r, budget: e.ChargesBudget(), tr: store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
		From: t.rec.State, To: store.TaskPreempting, Attempt: t.rec.Attempt, At: now, Reason: reason,
		Reserve: placementOf(parts), Cause: cause, ForJob: pl.snapJobID(e.For), Why: why}}
}

// reservedKind is whether a task preempting with a placement reserved,
// whose transition gave it reason, is being moved or resized: a resize's
// reason says so (replaceOp), which is how a restarted master tells them
// apart (restoreTask).
func reservedKind(reason string) lifecycle.Replace {
	if strings.HasPrefix(reason, resizeReason) {
		return lifecycle.Resize
	}
	return lifecycle.Move
}

// placeReserved turns a move's or resize's slot counts into GPUs: on a
// node where the task runs already, first as many of its own GPUs as
// the re-placement keeps there (lifecycle.KeptOn, the rule by which the
// snapshot splits it: a resize grows or shrinks in place, a move keeps
// none, the core having claimed its slots apart from those the task
// leaves, which all drain), then the lowest free indexes. It fails,
// claiming nothing, when a node went down, registered again or began to
// drain (placeable), or lacks free GPUs.
func (pl *planner) placeReserved(t *mtask, ns []sched.NodeSlots, claimed map[string]map[int]bool, r lifecycle.Replace) ([]*mpart, bool) {
	parts := make([]*mpart, 0, len(ns))
	for _, x := range ns {
		n := pl.view.nodes[x.Node]
		if !pl.placeable(x.Node) {
			return nil, false
		}
		taken := claimed[n.rec.Name]
		var gpus []store.GPURef
		if own := t.part(n.rec.Name); own != nil {
			keep := int(lifecycle.KeptOn(r, int32(len(own.gpus)), x.Slots))
			for _, g := range own.gpus {
				if len(gpus) < keep && !taken[g.Index] {
					gpus = append(gpus, g)
				}
			}
		}
		for _, g := range n.rec.GPUs {
			if len(gpus) == int(x.Slots) {
				break
			}
			if n.used[g.Index] == nil && !taken[g.Index] {
				gpus = append(gpus, store.GPURef{Index: g.Index, UUID: g.UUID})
			}
		}
		if len(gpus) < int(x.Slots) {
			pl.m.log.Warn("plan move skipped: GPUs no longer free", "task", t.id().String(), "node", n.rec.Name,
				"want", x.Slots, "free", len(gpus))
			return nil, false
		}
		slices.SortFunc(gpus, func(a, b store.GPURef) int { return a.Index - b.Index })
		parts = append(parts, &mpart{node: n.rec.Name, gpus: gpus})
	}
	claim(claimed, parts)
	return parts, true
}

// claim marks parts' GPUs as taken by the plan being applied.
func claim(claimed map[string]map[int]bool, parts []*mpart) {
	for _, p := range parts {
		if claimed[p.node] == nil {
			claimed[p.node] = map[int]bool{}
		}
		for _, g := range p.gpus {
			claimed[p.node][g.Index] = true
		}
	}
}

// placementOf is parts as the store keeps them.
func placementOf(parts []*mpart) []store.Placement {
	out := make([]store.Placement, len(parts))
	for i, p := range parts {
		out[i] = store.Placement{Node: p.node, GPUs: p.gpus}
	}
	return out
}

// partsOf is a stored placement as fresh parts, not yet started.
func partsOf(ps []store.Placement) []*mpart {
	out := make([]*mpart, len(ps))
	for i, p := range ps {
		out[i] = &mpart{node: p.Node, gpus: p.GPUs}
	}
	return out
}

// reservedDown reports whether a node of the placement reserved for task
// t is down (or gone), which the landing of its move or resize weighs
// (lifecycle.Replacement.Landing, for Ending.Decide: the task does not
// restart there, lifecycle.Restartable), as the Cluster's landing asks
// of its record's nodes.
func (pl *planner) reservedDown(t *mtask) bool {
	for _, p := range t.next {
		if n := pl.m.nodes[p.node]; n == nil || !n.up() {
			return true
		}
	}
	return false
}

// restartOn gives a task that just went to starting on its reservation
// its new attempt, and sends the start commands. next is the reservation,
// which setTask has released; first is the start of the attempt the move
// or resize continues. Callers hold mu.
func (pl *planner) restartOn(t *mtask, next []*mpart, now, first time.Time) {
	parts := make([]*mpart, len(next))
	for i, p := range next {
		parts[i] = &mpart{node: p.node, gpus: p.gpus}
	}
	t.att = &mattempt{number: t.rec.Attempt, started: now, parts: parts, usedTo: now}
	t.att.Launch(now.Unix(), false)
	t.att.continueFrom(first)
	pl.m.hold(t)
	pl.sendStarts(t)
}

// continueFrom makes a continue the attempt first started at first, as
// the restart on the placement a move or resize reserved does (restartOn;
// restoreLaunches after a master restart): its first start is first's
// (first; lifecycle.Attempt.Continue). A zero first leaves it its own.
func (a *mattempt) continueFrom(first time.Time) {
	a.continues = first
	if !first.IsZero() {
		a.Continue(first.Unix())
	}
}

// first is the start of the attempt as the simulator counts it: the
// start of the attempt a move or resize continued, else its own.
func (a *mattempt) first() time.Time {
	if a.continues.IsZero() {
		return a.started
	}
	return a.continues
}

// nextFor reads back, for job j's tasks restored with a move or
// resize under way, who it makes room for and why (mtask.Replacement's For
// and Why) from the event of its transition to preempting, which keeps
// them (store.Event.ForJob, Why): a restarted master's views say what
// they said before it. It reads the job's events from the first such
// transition on, none when no task of j has a reservation.
func (r *restorer) nextFor(ctx context.Context, j *mjob) error {
	var since time.Time
	for _, t := range j.tasks {
		if at := replacedAt(t); !at.IsZero() && (since.IsZero() || at.Before(since)) {
			since = at
		}
	}
	if since.IsZero() {
		return nil
	}
	evs, err := r.m.st.Events(ctx, store.EventFilter{JobID: j.rec.ID, To: string(store.TaskPreempting), Since: since})
	if err != nil {
		return fmt.Errorf("read who its moves and resizes make room for: %w", err)
	}
	reserved := map[int]*mtask{}
	for _, t := range j.tasks {
		if t.Replacement.Replacing() {
			reserved[t.rec.Index] = t
		}
	}
	for _, e := range evs {
		if t := reserved[e.Index]; t != nil && e.Attempt == t.rec.Attempt {
			t.Replacement.For, t.Replacement.Why = e.ForJob, e.Why // the attempt's last
		}
	}
	return nil
}
