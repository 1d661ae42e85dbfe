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
// allocations leave it out, as the master's do. An attempt lost while
// its nodes stay up (EventAttemptLost: its agent no longer runs it) ends
// by the same rule as one on a lost node (Job.Lost, Decide of EndLost).
//
// Nodes drained and resumed (EventNodeDrain, EventNodeResume): an admin's
// drain (allot node drain) lets the tasks on a node run on and starts no
// new one there, until the node is resumed. The master shrinks a drained
// node in the snapshot to what its allocations hold there, and does not
// preempt a task with a part on it, as its slots there would not come
// back for the preemptor; the Cluster does both (capDrained, Step's
// pass). A drain outlives a loss: the node comes back drained.

// nodeBook keeps which of Snap's nodes are down or drained, and what
// each offers when neither.
type nodeBook struct {
	down, drained []bool
	// slots and zeroLimit are a down or drained node's own Slots and
	// ZeroSlotLimit, saved when it first became either; downAt when it
	// went down.
	slots, zeroLimit []int
	downAt           []int64
	// ndown counts the nodes that are down, nDrained those drained, so
	// that capDrained costs nothing without one.
	ndown, nDrained int
	// over marks the nodes reshaped whose tasks may hold more than their
	// own slots (reshape.go), nOver counts them.
	over  []bool
	nOver int
	// leaving is event's scratch: the records a loss left holding a lost
	// gang's parts on nodes up (Outcome.Leaving).
	leaving []int32
	// kept is Snapshot's scratch: the placements of held tasks without
	// their down nodes (kept).
	kept []sched.NodeSlots
	// used is capDrained's scratch.
	used []int
}

// save notes node n's own slots before it goes down or is drained,
// unless it is either already (Snap holds less than its own then) or
// reshaped below what it holds (over: slots has its own, Snap more).
func (b *nodeBook) save(snap *sched.Snapshot, n int32) {
	for len(b.down) < len(snap.Nodes) {
		b.down, b.drained = append(b.down, false), append(b.drained, false)
		b.slots, b.zeroLimit = append(b.slots, 0), append(b.zeroLimit, 0)
		b.downAt = append(b.downAt, 0)
	}
	if !b.down[n] && !b.drained[n] && !b.isOver(n) {
		nd := &snap.Nodes[n]
		b.slots[n], b.zeroLimit[n] = nd.Slots, nd.ZeroSlotLimit
	}
}

// setDown takes node n out of snap at now (it offers no slots) and
// returns the slots it offered, or false when n is no node or is down
// already.
func (b *nodeBook) setDown(snap *sched.Snapshot, n int32, now int64) (int, bool) {
	if n < 0 || int(n) >= len(snap.Nodes) || b.isDown(n) {
		return 0, false
	}
	b.save(snap, n)
	nd := &snap.Nodes[n]
	b.down[n], b.downAt[n] = true, now
	b.ndown++
	nd.Slots, nd.ZeroSlotLimit = 0, 0
	nodesChanged(snap)
	return b.slots[n], true
}

// setUp gives down node n its slots back and returns them, or false when
// n is not down. A drained node stays capped (capDrained).
func (b *nodeBook) setUp(snap *sched.Snapshot, n int32) (int, bool) {
	if !b.isDown(n) {
		return 0, false
	}
	b.down[n] = false
	b.ndown--
	if !b.drained[n] {
		nd := &snap.Nodes[n]
		nd.Slots, nd.ZeroSlotLimit = b.slots[n], b.zeroLimit[n]
		nodesChanged(snap)
	}
	return b.slots[n], true
}

func (b *nodeBook) isDown(n int32) bool { return n >= 0 && int(n) < len(b.down) && b.down[n] }

// setDrained drains node n (on) or resumes it, and reports whether that
// changed anything: false when n is no node or is so already. A resumed
// node that is up offers its own slots again.
func (b *nodeBook) setDrained(snap *sched.Snapshot, n int32, on bool) bool {
	if n < 0 || int(n) >= len(snap.Nodes) || b.isDrained(n) == on {
		return false
	}
	b.save(snap, n)
	b.drained[n] = on
	if on {
		b.nDrained++
		return true
	}
	b.nDrained--
	snap.Nodes[n].Drained = false
	if !b.down[n] {
		nd := &snap.Nodes[n]
		nd.Slots, nd.ZeroSlotLimit = b.slots[n], b.zeroLimit[n]
		nodesChanged(snap)
	}
	return true
}

// capDrained shrinks every drained node that is up to what snap's
// allocations hold there (CapDrained, which the master's snapshot calls
// too). Call it once snap's allocations are in.
func (b *nodeBook) capDrained(snap *sched.Snapshot) {
	if b.nDrained == 0 {
		return
	}
	var changed bool
	b.used, changed = CapDrained(snap, b.drainedUp, b.ownSlots, b.used)
	if changed {
		nodesChanged(snap)
	}
}

// drainedUp reports whether node n is drained and up: a down node offers
// nothing already.
func (b *nodeBook) drainedUp(n int32) bool { return b.isDrained(n) && !b.down[n] }

// ownSlots is drained node n's own slots, saved when it was drained.
func (b *nodeBook) ownSlots(n int32) int { return b.slots[n] }

// onDrained reports whether placement ns uses a drained node.
func (b *nodeBook) onDrained(ns []sched.NodeSlots) bool {
	if b.nDrained == 0 {
		return false
	}
	for _, x := range ns {
		if b.isDrained(x.Node) {
			return true
		}
	}
	return false
}

// zeroed is s cleared to n zeros, reusing its array.
func zeroed(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (b *nodeBook) isDrained(n int32) bool { return n >= 0 && int(n) < len(b.drained) && b.drained[n] }

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
	if t.Replacing() {
		return on(t.Old, n)
	}
	return on(t.Nodes, n)
}

// anyDown reports whether a node of placement ns is down.
func (b *nodeBook) anyDown(ns []sched.NodeSlots) bool {
	return b.ndown > 0 && slices.ContainsFunc(ns, func(x sched.NodeSlots) bool { return b.isDown(x.Node) })
}

// event applies to c a node going down or coming back, drained or
// resumed, or the end of the grace of a loss, at now (Observe). Down, every task using the node lets
// go of its slots, in the running list's order (Outcome.Freed), except
// those held through the loss (HoldsThroughLoss, with LostNodeGrace),
// which run on until the node is back or the grace is over
// (EventGraceOver), and are then lost as the others were: a task
// re-placed by a move or resize whose checkpoint has not landed frees the
// part of its old placement that drains first (killed), and is lost
// if its old placement held the node (one of only its new placement is
// left to its landing, Restartable); a task is
// rolled back to its last checkpoint (Tasks.Lose) and waits again or
// fails (Job.Lost); one whose start no agent answered (Task.Unanswered)
// never ran, so it is never held, keeps its work and waits again
// (LostRequeues with ran false), as the master's lost attempt whose
// parts all still start; a job that ended so is finished, its draining moves
// elsewhere freed after it (Outcome.Ended). Either way the next Step may
// not skip the instant.
func (b *nodeBook) event(c *Cluster, now int64, e Event) Outcome {
	if e.Kind == EventNodeDrain || e.Kind == EventNodeResume {
		if !b.setDrained(&c.Snap, e.Node, e.Kind == EventNodeDrain) {
			return Outcome{Job: -1}
		}
		// A resumed node has room; a drained one changes reservations.
		c.step.wake()
		return Outcome{Applied: true, Job: -1}
	}
	hold := false
	switch e.Kind {
	case EventNodeUp:
		slots, ok := b.setUp(&c.Snap, e.Node)
		if !ok {
			return Outcome{Job: -1}
		}
		c.step.totalSlots += slots
		c.step.wake()
		return Outcome{Applied: true, Job: -1}
	case EventGraceOver:
		if !b.graceOver(e.Node, now, c.LostNodeGrace) {
			return Outcome{Job: -1}
		}
	default:
		slots, ok := b.setDown(&c.Snap, e.Node, now)
		if !ok {
			return Outcome{Job: -1}
		}
		c.step.totalSlots -= slots
		hold = c.LostNodeGrace > 0
	}
	c.step.wake()
	o := Outcome{Applied: true, Job: -1}
	c.freedRecs, c.ended, b.leaving = c.freedRecs[:0], c.ended[:0], b.leaving[:0]
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		// A draining placement goes with its task.
		if t.State.Active() && !t.Moving && losesOn(t, e.Node) {
			b.loseTask(c, now, ti, hold)
		}
	}
	for _, f := range c.freedRecs {
		o.Slots += f.Slots
	}
	o.Freed, o.Ended, o.Leaving = c.freedRecs, c.ended, b.leaving
	return o
}

// loseTask ends c's task ti, whose node is lost at now, as event says,
// unless it holds it through the loss (hold: the Cluster has a grace),
// adding what it frees to freedRecs and its job, if that ended it, to
// ended. A task being killed (killing.go) is not held and ends killed,
// its attempt lost, as the master's loseAttempt ends one.
func (b *nodeBook) loseTask(c *Cluster, now int64, ti int32, hold bool) {
	t := c.Tasks.At(ti)
	ji, from := t.Job, t.State
	// A task ran unless no agent answered its start (Unanswered).
	ran, pre := !t.Unanswered, c.Roster.Entry(ji).Preemptible
	if hold && HoldsThroughLoss(c.LostNodeGrace, pre, from == TaskKilling, ran) {
		return
	}
	j := &c.Jobs[ji]
	if from == TaskKilling {
		f := Freed{Task: ti, From: from}
		var ended bool
		f.Slots, _, ended = c.kills.end(c, now, ti, EndLost)
		c.freedRecs = append(c.freedRecs, f)
		if ended {
			c.ended = append(c.ended, ji)
			return
		}
	} else {
		if f := c.dropDrain(c.Tasks.Abandoned(ti)); f.Task >= 0 {
			c.freedRecs = append(c.freedRecs, f)
		}
		// Its parts on nodes still up checkpoint when it waits again
		// (CheckpointsOnLoss), as the master asks them to, held until
		// they land (leaving.go).
		asked := CheckpointsOnLoss(j.lostEnding(t, pre, ran).Decide().Waits(), ran, b.anyUp(t.Nodes))
		f := Freed{Task: ti, From: from, LostWork: c.lose(now, ti, asked)}
		li := int32(-1)
		if asked && !t.Replacing() { // a re-placed task's parts up drain already
			li = j.Leave(&c.Tasks, ti, b.upParts(t.Nodes), now)
		}
		f.Slots = c.freed(j, j.Lost(&c.Tasks, ti, pre, ran))
		if li >= 0 {
			j.Await(&c.Tasks, li)
			b.leaving = append(b.leaving, li)
		}
		c.waiting(ji)
		c.freedRecs = append(c.freedRecs, f)
	}
	if st, over := j.Over(); over {
		c.freedRecs = c.dropMoves(c.freedRecs, ji)
		c.Finish(ji, st, now)
		c.ended = append(c.ended, ji)
	}
}

// lose rolls task ti, whose attempt is lost, back to its last checkpoint
// (Tasks.Lose; asked: its parts on nodes still up checkpointed,
// CheckpointsOnLoss) and returns the slot-seconds of work thrown away; a
// task that never ran (Unanswered) keeps the work it had at its start,
// as after a start given up (EventStartLost), and threw none away.
func (c *Cluster) lose(now int64, ti int32, asked bool) int64 {
	t := c.Tasks.At(ti)
	if t.Unanswered {
		return 0
	}
	return c.Tasks.Lose(ti, now, c.Jobs[t.Job].Shape, asked) * int64(sched.Slots(t.Nodes))
}

// anyUp reports whether a node of placement ns is up: a gang that lost
// one of its nodes runs on there.
func (b *nodeBook) anyUp(ns []sched.NodeSlots) bool {
	return slices.ContainsFunc(ns, func(x sched.NodeSlots) bool { return !b.isDown(x.Node) })
}
