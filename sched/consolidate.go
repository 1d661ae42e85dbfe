package sched

import "slices"

// Consolidation (Run:ai's "consolidate jobs on demand"): when a task cannot
// be placed only because the free slots are scattered, so that enough are
// free in its pool and GPU type but not on one node, or not as whole nodes
// for a gang, running work is moved between nodes to gather them.
//
// It runs under every policy, right after a task fails to fit on free and
// draining slots and before preemption. Only unattended work may move: a
// mover is preemptible, not interactive, not draining, not already
// preempted or moved in this plan, past its pool's minimum run time, of a
// project whose preemption budget is not spent (a move counts as one
// preemption), and held on one node. The search is a bounded greedy one:
//
//  1. For a task that fits on one node, every node of a group that could
//     hold it is a candidate target; the slots it lacks must be held by
//     movers, of which the fewest slots are picked (the smallest mover that
//     covers what is left, else the largest, repeated). For a gang, each
//     group gets the cheapest set of whole nodes (fewest slots to move,
//     then least work lost) plus, for a remainder, a node with room or the
//     cheapest one to clear; under topology: required each switch is tried
//     apart.
//  2. Targets are tried cheapest first (fewest slots moved, then fewest
//     moves, then least work lost, then node order), at most
//     maxConsolidationTries of them. A try is a statement: the movers are
//     evicted, the task's placement is found on the slots they drain (and
//     movers the placement does not need are restored), then every mover,
//     largest first, is re-placed by best fit on free slots outside that
//     placement. If any mover finds no room, everything is rolled back.
//  3. A failed search is not repeated in the pass for a task as large or
//     larger of the same pool, GPU type and topology, and a pool gets at
//     most maxConsolidations searches per pass.
//
// The moved tasks must checkpoint first, so the waiting task is held on
// the slots they drain (reason checkpointing) and starts in a later pass.

// Move re-places a running task to make room for job For. The task
// checkpoints and resumes on Nodes when the checkpoint lands, without
// queueing again: Nodes' slots are claimed for it from this plan on,
// while its old slots drain like a preempted task's. Until its checkpoint lands the caller reports
// it as two allocations: the new placement, running, and the old one,
// Preempting and Moving. A move counts as one preemption of the task's
// project for the preemption budget.
type Move struct {
	Alloc int
	Nodes []NodeSlots
	For   int
}

// maxConsolidationTries bounds the targets tried for one task, and
// maxConsolidations the searches per pool and pass, so that a pass over a
// large fragmented cluster with a long queue stays fast; what is left is
// tried in the next pass.
const (
	maxConsolidationTries = 4
	maxConsolidations     = 32
)

// consolidation is the consolidation stage: it owns the pool's movers
// indexed by node, what they can free per node (consfacts.go), the
// searches that failed, and the candidate targets and movers' new
// placements of the current try. It reads the snapshot and the
// victim rules (gone, budgetSpent, lessLost); a try moves tasks inside the
// preemption's statement (evict, rollback, minimize, setFinal), so it
// writes what that writes, plus the planning state's slots, the plan's
// moves (in the Scheduler's arena) and, through commit, the start it makes
// room for.
type consolidation struct {
	p *pass
	// s and st are the pass's snapshot and planning state.
	s   *Snapshot
	st  *state
	vic *victimLists
	// built marks pools whose movers are indexed; movers holds them
	// grouped by node, at gives each node's range in movers (by node
	// index: a map lookup per node was a tenth of a half-full pass), and
	// pools each pool's.
	built  []bool
	movers []int32
	at     [][2]int32
	pools  [][2]int32
	// facts keeps per node what its movers can free, for the pass's next
	// searches (consfacts.go); budgets turns it off.
	facts   []clearFacts
	budgets bool
	// noFacts works everything out afresh: the tests' reference; kept
	// counts the answers facts gave, for the tests.
	noFacts bool
	kept    int
	// failed remembers, per pool, searches that found nothing; searches
	// counts each pool's searches.
	failed   [][]consFail
	searches []int32
	cands    []consTarget
	pick     []int32 // movers chosen for all candidates, by range
	// dest holds the movers' new placements, in order's order, mover i's
	// at dest[destAt[i]:destAt[i+1]].
	dest   []NodeSlots
	destAt []int32
	ff     []int32
	order  []int32
	keys   []clearKey
}

type consFail struct {
	gpu       string
	oneSwitch bool
	slots     int32
}

// consTarget is one way to make room: the movers pick[lo:hi].
type consTarget struct {
	lo, hi int32
	moved  int32 // slots moved
	lost   int64
	node   int32 // first target node, for ties
}

func (c *consolidation) reset(pools int) {
	c.built = resize(c.built, pools)
	c.pools = resize(c.pools, pools)
	c.searches = resize(c.searches, pools)
	c.movers = c.movers[:0]
	c.at = c.at[:0] // sized and cleared when a pool's movers are first indexed
	c.facts = c.facts[:0]
	for len(c.failed) < pools {
		c.failed = append(c.failed, nil)
	}
	c.failed = c.failed[:pools]
	for i := range c.failed {
		c.failed[i] = c.failed[i][:0]
	}
}

// movable reports whether allocation a may be moved now.
func (c *consolidation) movable(a int32) bool {
	if c.vic.gone(a) || c.p.sc.evicted[a] {
		return false
	}
	job := &c.s.Jobs[c.s.Allocs[a].Job]
	return !job.Interactive && !c.vic.budgetSpent(job)
}

// indexMovers lists the pool's allocations that could ever move this pass,
// grouped by node, smallest first and then by the work they would lose.
func (c *consolidation) indexMovers(pool int) {
	c.built[pool] = true
	if len(c.at) == 0 {
		c.at = resize(c.at, len(c.s.Nodes))
		c.beginFacts()
	}
	start := len(c.movers)
	for _, a := range c.p.sc.poolRuns[pool] {
		al := &c.s.Allocs[a]
		if len(al.Nodes) != 1 || al.Nodes[0].Slots <= 0 || c.s.Nodes[al.Nodes[0].Node].Pool != pool || c.vic.gone(a) {
			continue
		}
		if c.s.Jobs[al.Job].Interactive {
			continue
		}
		c.movers = append(c.movers, a)
	}
	ms := c.movers[start:]
	c.pools[pool] = [2]int32{int32(start), int32(len(c.movers))}
	// Repaired from the previous pass's list where it can be
	// (sortmemo.go): sorting the movers of a half-full pool was a tenth of
	// a pass that consolidates.
	c.p.sc.orders.sort(pool*listKinds+listMovers, ms, len(c.s.Allocs), c.p.sc.allocs.newOf, func(a, b int32) int {
		na, nb := c.s.Allocs[a].Nodes[0], c.s.Allocs[b].Nodes[0]
		if na.Node != nb.Node {
			return int(na.Node - nb.Node)
		}
		if na.Slots != nb.Slots {
			return int(na.Slots - nb.Slots)
		}
		return c.vic.lessLost(a, b)
	}, nil)
	for i := 0; i < len(ms); {
		n := c.s.Allocs[ms[i]].Nodes[0].Node
		k := i
		for k < len(ms) && c.s.Allocs[ms[k]].Nodes[0].Node == n {
			k++
		}
		c.at[n] = [2]int32{int32(start + i), int32(start + k)}
		i = k
	}
}

// consolidate tries to make room for one task of j by moving other tasks.
func (c *consolidation) consolidate(j int32, r *request, backfill bool) outcome {
	_, avail, fits := c.st.capacity(r, c.s)
	if !fits || avail < int(r.slots) || c.searches[r.pool] >= maxConsolidations || c.consFailed(r) {
		return failed
	}
	if !c.built[r.pool] {
		c.indexMovers(r.pool)
	}
	if c.pools[r.pool][0] == c.pools[r.pool][1] {
		return failed
	}
	c.searches[r.pool]++
	c.cands, c.pick = c.cands[:0], c.pick[:0]
	if c.st.spansNodes(r) {
		c.gangTargets(r)
		c.cheapestTargets()
	} else {
		c.nodeTargets(r)
		c.cheapestTargets()
		c.pickTried(r)
	}
	for i := 0; i < len(c.cands) && i < maxConsolidationTries; i++ {
		if o := c.tryMoves(j, r, c.cands[i], backfill); o != failed {
			return o
		}
	}
	c.failed[r.pool] = append(c.failed[r.pool], consFail{gpu: r.gpu, oneSwitch: r.oneSwitch, slots: r.slots})
	return failed
}

// cheapestTargets moves the maxConsolidationTries cheapest candidates to
// the front of cands, cheapest first: only those are tried. Sorting all of
// them (one per node of the pool for a one-node task, 7,500 on the
// half-full benchmark cluster, 32 times a pass) was a third of the pass.
// No two candidates share a first node (a one-node task has one per node,
// a gang one per group or switch, and those hold different nodes), so
// before is a strict total order and the front is the sort's, exactly.
func (c *consolidation) cheapestTargets() {
	selectFront(c.cands, maxConsolidationTries, (*consTarget).before)
}

// selectFront moves the k first items of xs under before, a strict total
// order, to its front in that order, as a sort would, in one walk that
// compares most items with the front's last only; the rest of xs is left
// in no order.
func selectFront[T any](xs []T, k int, before func(a, b *T) bool) {
	k = min(k, len(xs))
	for i := 1; i < len(xs) && k > 0; i++ {
		if i >= k && !before(&xs[i], &xs[k-1]) {
			continue
		}
		// Insert xs[i] into the sorted front, dropping the front's last
		// item to where xs[i] was once the front is full.
		at, t := min(i, k-1), xs[i]
		if i >= k {
			xs[i] = xs[k-1]
		}
		for at > 0 && before(&t, &xs[at-1]) {
			xs[at] = xs[at-1]
			at--
		}
		xs[at] = t
	}
}

func (c *consolidation) consFailed(r *request) bool {
	for _, f := range c.failed[r.pool] {
		if f.gpu == r.gpu && f.oneSwitch == r.oneSwitch && f.slots <= r.slots {
			return true
		}
	}
	return false
}

// clearNode picks movers on node n that free at least need slots, appends
// them to pick and returns the slots they hold, or -1 when the node's
// movers cannot free that much.
func (c *consolidation) clearNode(n int32, need int32) int32 {
	if need <= 0 {
		return 0
	}
	if total, _ := c.moverSums(n); total < need {
		return -1
	}
	rg := c.at[n]
	ms := c.movers[rg[0]:rg[1]]
	// Movers are sorted smallest first: take the smallest that covers
	// what is left, else the largest, until nothing is left.
	base := len(c.pick)
	moved := int32(0)
	for left := need; left > 0; {
		best := int32(-1)
		for _, a := range ms {
			if !c.movable(a) || slices.Contains(c.pick[base:], a) {
				continue
			}
			s := c.s.Allocs[a].Nodes[0].Slots
			best = a
			if s >= left {
				break
			}
		}
		c.pick = append(c.pick, best)
		s := c.s.Allocs[best].Nodes[0].Slots
		moved += s
		left -= s
	}
	return moved
}

// nodeTargets lists, for a task that fits on one node, each node that
// movers could clear enough of.
func (c *consolidation) nodeTargets(r *request) {
	for _, gi := range c.st.poolGroups[r.pool] {
		g := &c.st.groups[gi]
		if g.size < r.slots || !c.st.matches(g, r) {
			continue
		}
		for _, n := range g.nodes {
			// The movers are picked again for the few targets tried
			// (pickTried); until then hi-lo only counts them.
			if moved, count, lost := c.pickFacts(n, r.slots-c.st.avail(n)); moved > 0 {
				c.cands = append(c.cands, consTarget{hi: count, moved: moved, lost: lost, node: n})
			}
		}
	}
}

// pickTried picks the movers of the targets nodeTargets listed that will
// be tried, as it would have, on the state it saw.
func (c *consolidation) pickTried(r *request) {
	for i := range min(len(c.cands), maxConsolidationTries) {
		t := &c.cands[i]
		lo := int32(len(c.pick))
		c.clearNode(t.node, r.slots-c.st.avail(t.node))
		t.lo, t.hi = lo, int32(len(c.pick))
	}
}

// before orders targets by slots moved, then moves, then work lost, then
// first node.
func (t *consTarget) before(o *consTarget) bool {
	switch {
	case t.moved != o.moved:
		return t.moved < o.moved
	case t.hi-t.lo != o.hi-o.lo:
		return t.hi-t.lo < o.hi-o.lo
	case t.lost != o.lost:
		return t.lost < o.lost
	}
	return t.node < o.node
}

func (c *consolidation) target(lo, moved, node int32) consTarget {
	t := consTarget{lo: lo, hi: int32(len(c.pick)), moved: moved, node: node}
	for _, a := range c.pick[lo:] {
		t.lost += c.s.Allocs[a].Lost(c.s.Now)
	}
	return t
}

// gangTargets lists, per group (or per switch under topology: required),
// the cheapest whole nodes plus a remainder node for a gang.
func (c *consolidation) gangTargets(r *request) {
	for _, gi := range c.st.poolGroups[r.pool] {
		g := &c.st.groups[gi]
		if g.size == 0 || g.size >= r.slots || !c.st.matches(g, r) || int(g.size)*len(g.nodes) < int(r.slots) {
			continue
		}
		if r.oneSwitch && len(g.switches) > 0 {
			for d := range g.switches {
				c.gangTarget(g, r, &g.switches[d].members)
			}
			continue
		}
		c.gangTarget(g, r, nil)
	}
}

// gangTarget adds the target for a gang in one group, restricted to the
// members of a switch when in is set.
func (c *consolidation) gangTarget(g *group, r *request, in *bitset) {
	whole, rem := r.slots/g.size, r.slots%g.size
	// Order the nodes that can be cleared whole by what it costs. One
	// walk of a node's movers tells both whether clearNode could clear it
	// (their slots cover the need) and what they would lose.
	ord, keys := c.order[:0], c.keys[:0]
	for pos, n := range g.nodes {
		if in != nil && !in.has(int32(pos)) {
			continue
		}
		need := g.size - c.st.avail(n)
		if slots, lost := c.moverSums(n); need <= 0 || slots >= need {
			ord = append(ord, n)
			keys = append(keys, clearKey{cost: need, lost: lost, node: n})
		}
	}
	c.order, c.keys = ord, keys
	if int32(len(ord)) < whole {
		return
	}
	c.cheapestFirst(ord, int(whole))
	lo := int32(len(c.pick))
	moved := int32(0)
	for _, n := range ord[:whole] {
		moved += c.clearNode(n, g.size-c.st.avail(n))
	}
	if rem > 0 {
		best, bestCost := int32(-1), int32(-1)
		for pos, n := range g.nodes {
			if (in != nil && !in.has(int32(pos))) || slices.Contains(ord[:whole], n) {
				continue
			}
			cost := c.clearCost(n, rem-c.st.avail(n))
			if cost >= 0 && (best < 0 || cost < bestCost) {
				best, bestCost = n, cost
			}
		}
		if best < 0 {
			c.pick = c.pick[:lo]
			return
		}
		moved += c.clearNode(best, rem-c.st.avail(best))
	}
	if moved == 0 {
		c.pick = c.pick[:lo]
		return
	}
	c.cands = append(c.cands, c.target(lo, moved, ord[0]))
}

// clearKey is what clearing a node whole costs: slots to move, then the
// work the movers lose, then the node index, so the order is total.
type clearKey struct {
	cost int32
	lost int64
	node int32
}

func (k *clearKey) before(o *clearKey) bool {
	switch {
	case k.cost != o.cost:
		return k.cost < o.cost
	case k.lost != o.lost:
		return k.lost < o.lost
	}
	return k.node < o.node
}

// cheapestFirst reorders ord, whose nodes' keys are in c.keys, so that
// its first k nodes are the cheapest to clear whole, cheapest first. Only
// those are used, so they are selected rather than every node of the
// group sorted (with the lost work recomputed at each comparison), which
// was a tenth of a half-full priority pass.
func (c *consolidation) cheapestFirst(ord []int32, k int) {
	keys := c.keys
	if k > 32 { // many small nodes: an item may take k steps into the front
		slices.SortFunc(keys, func(a, b clearKey) int {
			switch {
			case a.node == b.node:
				return 0
			case a.before(&b):
				return -1
			}
			return 1
		})
		k = 0
	}
	selectFront(keys, k, (*clearKey).before)
	for i := range keys {
		ord[i] = keys[i].node
	}
	c.keys = keys[:0]
}

// tryMoves evicts one target's movers, places the task on the slots they
// drain and re-places every mover elsewhere, or rolls it all back.
func (c *consolidation) tryMoves(j int32, r *request, t consTarget, backfill bool) outcome {
	var none victimRule // moves change no policy counters but the budget
	mark := len(c.p.pre.stmt)
	for _, a := range c.pick[t.lo:t.hi] {
		if !c.movable(a) {
			c.p.pre.rollback(mark, &none)
			return failed
		}
		c.p.pre.evict(a, &none)
	}
	nodes, ok := c.st.find(r, c.p.sc.scratch[:0])
	if !ok {
		c.p.pre.rollback(mark, &none)
		return failed
	}
	c.p.sc.scratch = nodes[:0]
	c.p.pre.minimize(mark, nodes, &none)
	// Keep the movers off the task's placement: claim its free slots
	// while they look for room.
	c.ff = c.ff[:0]
	for _, ns := range nodes {
		f := min(ns.Slots, c.st.free[ns.Node])
		c.ff = append(c.ff, f)
		c.st.take(ns.Node, f)
	}
	placed := c.placeMovers(mark)
	for i, ns := range nodes {
		c.st.release(ns.Node, c.ff[i])
	}
	if !placed {
		c.p.pre.rollback(mark, &none)
		return failed
	}
	for i, a := range c.order {
		c.p.pre.setFinal(a)
		at := len(c.p.sc.arena)
		c.p.sc.arena = append(c.p.sc.arena, c.dest[c.destAt[i]:c.destAt[i+1]]...)
		c.p.plan.Moves = append(c.p.plan.Moves, Move{Alloc: int(a), For: int(j),
			Nodes: c.p.sc.arena[at:len(c.p.sc.arena):len(c.p.sc.arena)]})
	}
	c.p.pre.stmt = c.p.pre.stmt[:mark]
	return c.p.commit(j, nodes, backfill)
}

// placeMovers re-places the statement's movers, largest first, by best
// fit on free slots; on failure it gives back what it took. The movers are
// left in order and their placements in dest.
func (c *consolidation) placeMovers(mark int) bool {
	c.order = append(c.order[:0], c.p.pre.stmt[mark:]...)
	slices.SortFunc(c.order, func(a, b int32) int {
		sa, sb := c.s.Allocs[a].Nodes[0].Slots, c.s.Allocs[b].Nodes[0].Slots
		if sa != sb {
			return int(sb - sa)
		}
		return c.vic.lessLost(a, b)
	})
	c.dest = c.dest[:0]
	c.destAt = append(c.destAt[:0], 0)
	for _, a := range c.order {
		al := &c.s.Allocs[a]
		job := &c.s.Jobs[al.Job]
		r := request{pool: job.Pool, gpu: job.GPU, slots: al.Nodes[0].Slots, oneSwitch: job.Topology == TopologyRequired}
		at := len(c.dest)
		nodes, ok := c.st.find(&r, c.dest)
		if !ok {
			for _, ns := range c.dest[:at] {
				c.st.release(ns.Node, ns.Slots)
			}
			return false
		}
		c.dest = nodes
		c.st.takeAll(c.dest[at:])
		c.destAt = append(c.destAt, int32(len(c.dest)))
	}
	return true
}
