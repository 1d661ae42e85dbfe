package lifecycle

import (
	"slices"
	"time"

	"github.com/allot-sched/allot/sched"
)

// Nodes going down and coming back (EventNodeDown, EventNodeUp,
// EventGraceOver). The master marks a node lost when its agent falls
// silent: the attempts on it end as lost (a preemptible job's task is
// requeued, another's fails), except those it holds through the loss for
// lost_node_grace (HoldsThroughLoss: a task that is not preemptible,
// whose process may still run), and the node is left out of the snapshot
// until its agent registers again; a held task that the node's return
// does not find by the grace's end is lost then (GraceOver). The Cluster
// does the same in pure form, with Cluster.LostNodeGrace as the grace
// and EventGraceOver as its end, which the driver sends when the grace
// it set for the loss runs out. One difference of form: a down node
// stays in Snap.Nodes, with no slots (nothing can be placed there, and
// the task records' node indices stay valid), and the snapshot's
// allocations leave it out, as the master's do.

// nodeBook keeps which of Snap's nodes are down, and what each offered
// while up.
type nodeBook struct {
	down []bool
	// slots and zeroLimit are a down node's Slots and ZeroSlotLimit;
	// downAt when it went down.
	slots, zeroLimit []int
	downAt           []int64
	// ndown counts the nodes that are down.
	ndown int
	// kept is Snapshot's scratch: the placements of held tasks without
	// their down nodes (kept).
	kept []sched.NodeSlots
}

// setDown takes node n out of snap at now (it offers no slots) and
// returns the slots it offered, or false when n is no node or is down
// already.
func (b *nodeBook) setDown(snap *sched.Snapshot, n int32, now int64) (int, bool) {
	if n < 0 || int(n) >= len(snap.Nodes) || b.isDown(n) {
		return 0, false
	}
	for len(b.down) < len(snap.Nodes) {
		b.down, b.slots, b.zeroLimit = append(b.down, false), append(b.slots, 0), append(b.zeroLimit, 0)
		b.downAt = append(b.downAt, 0)
	}
	nd := &snap.Nodes[n]
	b.down[n], b.slots[n], b.zeroLimit[n], b.downAt[n] = true, nd.Slots, nd.ZeroSlotLimit, now
	b.ndown++
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
	b.ndown--
	nd := &snap.Nodes[n]
	nd.Slots, nd.ZeroSlotLimit = b.slots[n], b.zeroLimit[n]
	nodesChanged(snap)
	return nd.Slots, true
}

func (b *nodeBook) isDown(n int32) bool { return n >= 0 && int(n) < len(b.down) && b.down[n] }

// graceOver reports whether node n is down and has been since a loss at
// least grace before now (GraceOver): a grace's end for a loss the node
// came back from is stale.
func (b *nodeBook) graceOver(n int32, now int64, grace time.Duration) bool {
	return b.isDown(n) && GraceOver(time.Duration(now-b.downAt[n])*time.Second, grace)
}

// holding reports whether a task may hold slots on a down node (the
// Cluster has a grace and a node is down): Step's shortcuts, which count
// the free slots as the total less those held, are off meanwhile.
func (b *nodeBook) holding(grace time.Duration) bool { return grace > 0 && b.ndown > 0 }

// allocNodes is placement ns as the snapshot's allocation gives it: while
// tasks may be held (holding), or for the placement a re-placed task
// reserved (replacing), the parts on nodes that are down left out, as
// the master leaves a lost node's parts out of its snapshot.
func (b *nodeBook) allocNodes(ns []sched.NodeSlots, grace time.Duration, replacing bool) []sched.NodeSlots {
	if !b.holding(grace) && !replacing || !b.anyDown(ns) {
		return ns
	}
	at := len(b.kept)
	for _, x := range ns {
		if !b.isDown(x.Node) {
			b.kept = append(b.kept, x)
		}
	}
	return b.kept[at:len(b.kept):len(b.kept)]
}

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

// losesOn reports whether task t loses its attempt when node n is lost:
// it runs there, or, being re-placed, its old placement (whose part
// that drains goes with it) used n. A node of only the placement a
// re-placed task reserved is not its own yet: the master lets the
// checkpoint land and requeues the task then (Restartable).
func losesOn(t *Task, n int32) bool {
	if t.Replacing {
		return on(t.Old, n)
	}
	return on(t.Nodes, n)
}

// anyDown reports whether a node of placement ns is down.
func (b *nodeBook) anyDown(ns []sched.NodeSlots) bool {
	return b.ndown > 0 && slices.ContainsFunc(ns, func(x sched.NodeSlots) bool { return b.isDown(x.Node) })
}

// nodeEvent applies a node going down or coming back, or the end of the
// grace of a loss, at now (Observe). Down, every task using the node lets
// go of its slots, in the running list's order (Outcome.Freed), except
// those held through the loss (HoldsThroughLoss, with LostNodeGrace),
// which run on until the node is back or the grace is over
// (EventGraceOver), and are then lost as the others were: a task
// re-placed by a move or resize whose checkpoint has not landed frees the
// part of its old placement that drains first (killed), and is lost
// if its old placement held the node (one of only its new placement is
// left to its landing, Restartable); a task is
// rolled back to its last checkpoint (Tasks.Lose) and waits again or
// fails (Job.Lost); a job that ended so is finished, its draining moves
// elsewhere freed after it (Outcome.Ended). Either way the next Step may
// not skip the instant.
func (c *Cluster) nodeEvent(now int64, e Event) Outcome {
	hold := false
	switch e.Kind {
	case EventNodeUp:
		slots, ok := c.nodes.setUp(&c.Snap, e.Node)
		if !ok {
			return Outcome{Job: -1}
		}
		c.step.totalSlots += slots
		c.wake()
		return Outcome{Applied: true, Job: -1}
	case EventGraceOver:
		if !c.nodes.graceOver(e.Node, now, c.LostNodeGrace) {
			return Outcome{Job: -1}
		}
	default:
		slots, ok := c.nodes.setDown(&c.Snap, e.Node, now)
		if !ok {
			return Outcome{Job: -1}
		}
		c.step.totalSlots -= slots
		hold = c.LostNodeGrace > 0
	}
	c.wake()
	o := Outcome{Applied: true, Job: -1}
	c.freedRecs, c.ended = c.freedRecs[:0], c.ended[:0]
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		// A draining placement goes with its task.
		if !t.State.Active() || t.Moving || !losesOn(t, e.Node) {
			continue
		}
		ji, from := t.Job, t.State
		// Every start is heard of (ran), and a kill ends a task at once.
		if hold && HoldsThroughLoss(c.LostNodeGrace, c.Roster.Entry(ji).Preemptible, false, true) {
			continue
		}
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
