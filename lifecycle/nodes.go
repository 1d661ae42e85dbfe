package lifecycle

import "github.com/allot-sched/allot/sched"

// Nodes going down and coming back (EventNodeDown, EventNodeUp). The
// master marks a node lost when its agent falls silent: the attempts on
// it end as lost (a preemptible job's task is requeued, another's
// fails), and the node is left out of the snapshot until its agent
// registers again. The Cluster does the same in pure form, with two
// differences of form: a down node stays in Snap.Nodes, with no slots
// (nothing can be placed there, and the task records' node indices stay
// valid), and its attempts end at once, as the master's do with
// lost_node_grace 0 (a driver with a grace sends the event when it ends).

// nodeBook keeps which of Snap's nodes are down, and what each offered
// while up.
type nodeBook struct {
	down []bool
	// slots and zeroLimit are a down node's Slots and ZeroSlotLimit.
	slots, zeroLimit []int
}

// setDown takes node n out of snap (it offers no slots) and returns the
// slots it offered, or false when n is no node or is down already.
func (b *nodeBook) setDown(snap *sched.Snapshot, n int32) (int, bool) {
	if n < 0 || int(n) >= len(snap.Nodes) || b.isDown(n) {
		return 0, false
	}
	for len(b.down) < len(snap.Nodes) {
		b.down, b.slots, b.zeroLimit = append(b.down, false), append(b.slots, 0), append(b.zeroLimit, 0)
	}
	nd := &snap.Nodes[n]
	b.down[n], b.slots[n], b.zeroLimit[n] = true, nd.Slots, nd.ZeroSlotLimit
	nd.Slots, nd.ZeroSlotLimit = 0, 0
	nodesChanged(snap)
	return b.slots[n], true
}

// setUp gives down node n its slots back and returns them, or false when
// n is not down.
func (b *nodeBook) setUp(snap *sched.Snapshot, n int32) (int, bool) {
	if !b.isDown(n) {
		return 0, false
	}
	b.down[n] = false
	nd := &snap.Nodes[n]
	nd.Slots, nd.ZeroSlotLimit = b.slots[n], b.zeroLimit[n]
	nodesChanged(snap)
	return nd.Slots, true
}

func (b *nodeBook) isDown(n int32) bool { return n >= 0 && int(n) < len(b.down) && b.down[n] }

// nodesChanged tells the core that snap's nodes changed: a driver that
// names its node list (NodesVersion) gets a new name.
func nodesChanged(snap *sched.Snapshot) {
	if snap.NodesVersion != 0 {
		snap.NodesVersion++
	}
}

// on reports whether placement ns uses node n, zero-slot parts included.
func on(ns []sched.NodeSlots, n int32) bool {
	for _, x := range ns {
		if x.Node == n {
			return true
		}
	}
	return false
}

// drainsOn reports whether task t, being re-placed, drains part of its
// old placement on node n.
func drainsOn(ts *Tasks, t *Task, n int32) bool {
	return t.Replacing && t.Drain >= 0 && on(ts.At(t.Drain).Nodes, n)
}

// nodeEvent applies a node going down or coming back at now (Observe).
// Down, every task using the node lets go of its slots, in the running
// list's order (Outcome.Freed): a task re-placed by a move or resize
// whose checkpoint has not landed frees the part of its old placement
// that drains first (killed), and is lost whether that part, or its
// new placement, holds the node; a task is rolled back to its last
// checkpoint (Tasks.Lose) and waits again or fails (Job.Lost); a job
// that ended so is finished, its draining moves elsewhere freed after
// it (Outcome.Ended). Either way the next Step may not skip the instant.
func (c *Cluster) nodeEvent(now int64, e Event) Outcome {
	if e.Kind == EventNodeUp {
		slots, ok := c.nodes.setUp(&c.Snap, e.Node)
		if !ok {
			return Outcome{Job: -1}
		}
		c.step.totalSlots += slots
		c.wake()
		return Outcome{Applied: true, Job: -1}
	}
	slots, ok := c.nodes.setDown(&c.Snap, e.Node)
	if !ok {
		return Outcome{Job: -1}
	}
	c.step.totalSlots -= slots
	c.wake()
	o := Outcome{Applied: true, Job: -1}
	c.freedRecs, c.ended = c.freedRecs[:0], c.ended[:0]
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		// A draining placement goes with its task, which is lost if
		// either holds the node, as the master loses the attempt whose
		// old placement it is.
		if !t.State.Active() || t.Moving || !on(t.Nodes, e.Node) && !drainsOn(&c.Tasks, t, e.Node) {
			continue
		}
		ji, from := t.Job, t.State
		j := &c.Jobs[ji]
		if t.Replacing && t.Drain >= 0 {
			c.freedRecs = append(c.freedRecs, Freed{Task: t.Drain, From: TaskPreempting, Slots: c.drained(t.Drain, TaskKilled)})
		}
		lost := c.Tasks.Lose(ti, now, j.Shape) * int64(sched.Slots(t.Nodes))
		f := Freed{Task: ti, From: from, LostWork: lost}
		f.Slots = c.freed(j, j.Lost(&c.Tasks, ti, c.Roster.Entry(ji).Preemptible))
		c.waiting(ji)
		c.freedRecs = append(c.freedRecs, f)
		if st, over := j.Over(); over {
			c.freedRecs = c.dropMoves(c.freedRecs, ji)
			c.Finish(ji, st, now)
			c.ended = append(c.ended, ji)
		}
	}
	for _, f := range c.freedRecs {
		o.Slots += f.Slots
	}
	o.Freed, o.Ended = c.freedRecs, c.ended
	return o
}
