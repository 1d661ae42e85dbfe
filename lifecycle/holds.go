package lifecycle

import "github.com/allot-sched/allot/sched"

// The snapshot's allocations and drained nodes, built by one set of
// functions for both drivers: the master describes its attempts and
// placements as Holds (master/snapshot.go, snapTask) and the Cluster its
// task records (Task.hold), and both shrink drained nodes by CapDrained,
// so that a live cluster and a simulation of the same events give the
// core the same allocations. What stays each driver's own is how it
// names nodes (the master leaves a lost node out of the snapshot, the
// Cluster keeps it with no slots, nodes.go) and so which parts of a
// placement it leaves out, and the order of the allocations (both list
// them in launch order: the Cluster's running list, the master's
// orderAllocs).

// Hold is a task attempt's hold on slots as the snapshot's allocation
// shows it: the attempt's facts both drivers keep (Attempt, which makes
// it: Attempt.Hold) on the nodes it holds, from which Alloc makes the
// allocation.
type Hold struct {
	Attempt
	Nodes []sched.NodeSlots
	// Preempting: the task was asked to stop and holds its slots until
	// its checkpoint lands, or its kill ends (killing tasks, the
	// master's and the Cluster's: killing.go), free by the attempt's
	// Asked+Grace at the latest (FreeBy). The master gives its pool's
	// grace (or kill_grace: the agent kills what has not stopped by
	// then), the Cluster what its driver promised (Tasks.Stopping: the
	// simulator's checkpoint landing, a slow kill's end).
	Preempting bool
	// Moving: the hold is what of a re-placed task's old placement
	// drains (Replaced).
	Moving bool
}

// FreeBy is when a Preempting hold's slots are free at the latest, its
// stop request plus its grace (sched.Alloc.FreeBy, which only the
// forecast reads: it frees the slots then rather than at once); 0 for a
// hold that is not preempting.
func (h *Hold) FreeBy() int64 {
	if !h.Preempting {
		return 0
	}
	return h.Asked + h.Grace
}

// Alloc is h's allocation in a snapshot whose entry for its job is job
// (sched.Alloc), at now, for a job that saves its progress every every
// seconds of run time (0: at checkpoint requests only): its checkpoint
// is LastCheckpoint's.
func (h *Hold) Alloc(job int, now, every int64) sched.Alloc {
	var a sched.Alloc
	h.Fill(&a, job, now, every)
	return a
}

// Fill makes *a h's allocation, as Alloc gives it, in place: a driver
// filling its snapshot's slice spares a copy per task.
func (h *Hold) Fill(a *sched.Alloc, job int, now, every int64) {
	a.Job, a.Nodes, a.Start = job, h.Nodes, h.Start
	a.Preempting, a.Moving, a.Backfilled = h.Preempting, h.Moving, h.Backfilled
	a.Checkpoint = LastCheckpoint(h.Start, h.From, now, every)
	a.FreeBy = h.FreeBy()
}

// Replaced splits running hold h when a move or resize applied at at
// re-places it on next, drain being what of h's nodes next does not keep
// (Drain of what Kept keeps; Draining): placed is the task's hold on next,
// which runs from at on (its last checkpoint is the re-placement's) and
// is no longer backfilled, since the core placed it anew; drained is the
// part that drains until the checkpoint lands, preempting and Moving,
// with h's start, resumption and backfilling, free by h's deadline (its
// Asked and Grace: the master's h is the task asked to checkpoint for the
// re-placement; the Cluster's drain record takes its own, Tasks.Replace
// and Tasks.Stopping). Both keep h's start. Nodes are the caller's
// slices, not copies.
func (h *Hold) Replaced(next, drain []sched.NodeSlots, at int64) (placed, drained Hold) {
	a := Attempt{Start: h.Start, From: h.From, Backfilled: h.Backfilled}
	a.Replace(at)
	placed = a.Hold(next, false, false)
	drained = h.Attempt.Hold(drain, true, true)
	return placed, drained
}

// CapDrained shrinks every node n of snap for which drained(n) holds to
// what snap's allocations hold there, slots and zero-slot tasks alike,
// so that the core finds no room there for a new task, and marks it
// Drained, so that the slots its tasks free when they end are not
// counted on either (no reservation, shadow time or forecast start on
// it), with its own slots, own(n), as OwnSlots (the core's messages
// tell a job too big for the pool even with the node resumed from one
// that waits for a resume). Call it once snap's allocations are in.
// scratch is reused and returned; changed reports whether a node's
// Slots or ZeroSlotLimit changed. The master calls it with its drained
// nodes (a node that is down is not in its snapshot), the Cluster with
// its drained nodes that are up (nodes.go).
func CapDrained(snap *sched.Snapshot, drained func(n int32) bool, own func(n int32) int, scratch []int) (_ []int, changed bool) {
	first := -1
	for i := range snap.Nodes {
		if drained(int32(i)) {
			first = i
			break
		}
	}
	if first < 0 {
		return scratch, false
	}
	// used is what the allocations hold on each drained node, -1 on the
	// others, so that drained is asked once per node.
	n := len(snap.Nodes)
	scratch = zeroed(scratch, 2*n)
	used, usedZero := scratch[:n], scratch[n:]
	for i := range used {
		if i < first || i > first && !drained(int32(i)) {
			used[i] = -1
		}
	}
	for _, a := range snap.Allocs {
		for _, ns := range a.Nodes {
			if used[ns.Node] < 0 {
				continue
			}
			used[ns.Node] += int(ns.Slots)
			if ns.Slots == 0 {
				usedZero[ns.Node]++
			}
		}
	}
	for i := first; i < n; i++ {
		if used[i] < 0 {
			continue
		}
		nd := &snap.Nodes[i]
		if nd.Slots != used[i] || nd.ZeroSlotLimit != usedZero[i] {
			nd.Slots, nd.ZeroSlotLimit, changed = used[i], usedZero[i], true
		}
		// Neither is a change of the layout the core compares.
		nd.Drained, nd.OwnSlots = true, own(int32(i))
	}
	return scratch, changed
}
