package lifecycle

import "github.com/allot-sched/allot/sched"

// Replace says how a plan re-places a running task: a consolidation move
// (sched.Move) or an elastic resize (sched.Resize). Both checkpoint the
// task and put it on a new placement without queueing it again; they
// differ in what of the old placement the new one keeps, and in whether
// the preemption budget is charged.
type Replace int

const (
	// Move re-places a task to make room for another job. The core claims
	// the move's slots apart from the ones the task leaves, so the new
	// placement keeps nothing of the old: all of it drains.
	Move Replace = iota
	// Resize re-places an elastic task on its new, complete placement,
	// growing in place: on each node it keeps up to its new slots there,
	// and only what it held beyond them drains.
	Resize
)

// KeptOn is how many of the slots held on a node (held) a re-placement
// r keeps when it places next slots there: none for a move, up to its
// new slots there for a resize. It is the one rule of what a move or
// resize keeps of its old placement, which both drivers follow: the
// snapshot's split of a re-placed task (Kept, Draining, by
// Replacement.Split: the Cluster's drain record, the master's drained
// allocation at each build) and the master's choice of a resize's GPUs
// (placeReserved: as many of its own GPUs on the node as this keeps),
// so that what its snapshot shows draining is what its GPUs let go of.
func KeptOn(r Replace, held, next int32) int32 {
	if r != Resize {
		return 0
	}
	return min(held, next)
}

// Kept appends to dst what of old a re-placement on next keeps, per node
// of old, in old's order, leaving out nodes where it keeps nothing.
func Kept(dst []sched.NodeSlots, r Replace, old, next []sched.NodeSlots) []sched.NodeSlots {
	if r != Resize {
		return dst
	}
	for _, o := range old {
		if k := KeptOn(r, o.Slots, slotsOn(next, o.Node)); k > 0 {
			dst = append(dst, sched.NodeSlots{Node: o.Node, Slots: k})
		}
	}
	return dst
}

// Drain appends to dst what of old drains when kept of it stays: per node
// of old, in old's order, old's slots minus kept's there, leaving out
// nodes where nothing drains. The core expects it reported as a
// Preempting, Moving allocation beside the new placement until the
// task's checkpoint lands.
func Drain(dst, old, kept []sched.NodeSlots) []sched.NodeSlots {
	for _, o := range old {
		if d := o.Slots - slotsOn(kept, o.Node); d > 0 {
			dst = append(dst, sched.NodeSlots{Node: o.Node, Slots: d})
		}
	}
	return dst
}

// Draining is Drain of what Kept keeps: what of old drains when a task
// is re-placed on next.
func Draining(dst []sched.NodeSlots, r Replace, old, next []sched.NodeSlots) []sched.NodeSlots {
	if r != Resize {
		return Drain(dst, old, nil)
	}
	for _, o := range old {
		if d := o.Slots - KeptOn(r, o.Slots, slotsOn(next, o.Node)); d > 0 {
			dst = append(dst, sched.NodeSlots{Node: o.Node, Slots: d})
		}
	}
	return dst
}

// slotsOn is how many slots ns holds on node.
func slotsOn(ns []sched.NodeSlots, node int32) int32 {
	var k int32
	for _, n := range ns {
		if n.Node == node {
			k += n.Slots
		}
	}
	return k
}
