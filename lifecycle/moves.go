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

// Kept appends to dst what of old a re-placement on next keeps, per node
// of old, in old's order, leaving out nodes where it keeps nothing.
func Kept(dst []sched.NodeSlots, r Replace, old, next []sched.NodeSlots) []sched.NodeSlots {
	if r != Resize {
		return dst
	}
	for _, o := range old {
		if k := min(o.Slots, slotsOn(next, o.Node)); k > 0 {
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
		if d := o.Slots - min(o.Slots, slotsOn(next, o.Node)); d > 0 {
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
