package lifecycle

import (
	"time"

	"github.com/allot-sched/allot/sched"
)

// Nodes whose inventory changes (EventNodeReshape): a node's agent
// registers again with other GPUs, labels or pool. The master changes the node
// in place: the tasks on it run on, on what they were given, and every
// slot they hold counts against the new ones until they end, so that a
// node with fewer slots than its tasks hold is full, never
// over-committed (NodeSlots: the master's snapshot gives a node
// max(its GPUs, the GPUs held) slots, NodeFacts.Node); its GPU type,
// labels and switch are the new ones for every placement from then on.
// The Cluster does the same: the node's own slots become the new ones
// (nodeBook.slots, which a loss, a drain and their ends go back to), and
// while its tasks may hold more (over), each snapshot floors its slots
// at what its allocations hold by the same rule (floorHeld), as
// capDrained caps a drained node's. The driver builds the new shape as
// it builds its nodes (NodeFacts.Node: the simulator's FromScenario).
// Meanwhile the slots held are not all
// on the total of own slots, so the full-cluster shortcuts are off
// (offTotal). A node moved to another pool is the same node: its index,
// its tasks and what they hold, its down or drained state stay, and only
// its snapshot entry's pool and zero-slot limit (the new pool's) change,
// as the master's snapshot lists its nodes by name with each one's pool
// now. Fair-share capacity is the driver's (Ledgers.SetCapacity).

// reshapeNode applies EventNodeReshape: node e.Node takes e.Shape's
// slots, GPU type, labels, switch, pool and zero-slot limit.
func (c *Cluster) reshapeNode(e Event) Outcome {
	d, ok := c.nodes.reshape(&c.Snap, e.Node, e.Shape)
	if !ok {
		return Outcome{Job: -1}
	}
	c.step.totalSlots += d
	c.step.wake()
	return Outcome{Applied: true, Job: -1}
}

// reshape gives node n shape sh and returns how much its own slots
// changed the total of the nodes that are up (0 for a node down, which
// offers them when back), or false when n is no node or sh is nil.
func (b *nodeBook) reshape(snap *sched.Snapshot, n int32, sh *sched.Node) (int, bool) {
	if n < 0 || int(n) >= len(snap.Nodes) || sh == nil || sh.Slots < 0 {
		return 0, false
	}
	b.save(snap, n)
	for len(b.over) < len(snap.Nodes) {
		b.over = append(b.over, false)
	}
	nd := &snap.Nodes[n]
	old := b.slots[n]
	b.slots[n] = sh.Slots
	nd.GPU, nd.Labels, nd.Switch, nd.Pool = sh.GPU, sh.Labels, sh.Switch, sh.Pool
	// A down node's limit is 0 until it is back (setUp gives it).
	b.zeroLimit[n] = sh.ZeroSlotLimit
	if !b.down[n] {
		nd.ZeroSlotLimit = sh.ZeroSlotLimit
	}
	if !b.down[n] && !b.drained[n] {
		nd.Slots = sh.Slots
	}
	if !b.over[n] {
		b.over[n] = true
		b.nOver++
	}
	nodesChanged(snap)
	if b.down[n] {
		return 0, true
	}
	return sh.Slots - old, true
}

func (b *nodeBook) isOver(n int32) bool { return n >= 0 && int(n) < len(b.over) && b.over[n] }

// offTotal reports whether slots may be held beyond the total of the
// nodes' own slots: on a down node through a loss (holding), or on a
// node reshaped below what its tasks hold (over). Step's shortcuts,
// which count the free slots as the total less those held, are off then.
func (b *nodeBook) offTotal(grace time.Duration) bool { return b.holding(grace) || b.nOver > 0 }

// floorHeld gives every reshaped node that is up and not drained at
// least the slots snap's allocations hold there, its own slots
// otherwise (NodeSlots); one whose allocations fit its own slots is done with (the
// flag goes). Call it once snap's allocations are in.
func (b *nodeBook) floorHeld(snap *sched.Snapshot) {
	if b.nOver == 0 {
		return
	}
	b.used = zeroed(b.used, len(snap.Nodes))
	for _, a := range snap.Allocs {
		for _, ns := range a.Nodes {
			b.used[ns.Node] += int(ns.Slots)
		}
	}
	changed := false
	for i, over := range b.over {
		if !over || b.down[i] || b.drained[i] {
			continue
		}
		if b.used[i] <= b.slots[i] {
			b.over[i] = false
			b.nOver--
		}
		if s := NodeSlots(b.slots[i], b.used[i], false); snap.Nodes[i].Slots != s {
			snap.Nodes[i].Slots, changed = s, true
		}
	}
	if changed {
		nodesChanged(snap)
	}
}
