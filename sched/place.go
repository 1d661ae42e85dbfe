package sched

// request is one task to place.
type request struct {
	pool   int
	gpu    string
	slots  int32
	spread bool
	// useDrain lets the placement count slots that preempted tasks are
	// still draining; without it nodes with draining slots are skipped.
	useDrain bool
	// oneSwitch keeps a gang under one switch (topology: required).
	oneSwitch bool
}

func (st *state) matches(g *group, r *request) bool {
	return r.gpu == "" || g.gpu == r.gpu
}

// find places one task and appends its node slots to out. A task that fits
// on one node of some group is placed there (best fit, or emptiest node for
// spread); otherwise it is tried as a gang over whole nodes of one group.
func (st *state) find(r *request, out []NodeSlots) ([]NodeSlots, bool) {
	if r.slots <= 0 {
		return out, false
	}
	bestG, bestPos, bestF := int32(-1), int32(-1), int32(-1)
	fits := false // some node of the pool holds the task alone
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if g.size < r.slots || !st.matches(g, r) {
			continue
		}
		fits = true
		pos, f := st.single(g, r)
		if pos < 0 {
			continue
		}
		if bestG < 0 || st.better(r, f, g.nodes[pos], bestF, st.groups[bestG].nodes[bestPos]) {
			bestG, bestPos, bestF = gi, pos, f
		}
	}
	if bestG >= 0 {
		n := st.groups[bestG].nodes[bestPos]
		return append(out, NodeSlots{Node: n, Slots: r.slots}), true
	}
	if fits {
		// A task that one node of the pool holds waits for such a node:
		// split over nodes it would run its entrypoint once per node,
		// which a program written for one machine's GPUs does not
		// expect (trial 2026-11-29a A13; Determined places a trial that
		// fits one agent on one agent, and a Slurm task never spans).
		return out, false
	}
	return st.gang(r, out)
}

// better reports whether a node with f available slots beats the current
// best under the request's placement rule; ties go to the lower node index.
func (st *state) better(r *request, f, node, bestF, bestNode int32) bool {
	if f != bestF {
		if r.spread {
			return f > bestF
		}
		return f < bestF
	}
	return node < bestNode
}

// single finds the best node of a group for a one-node task.
func (st *state) single(g *group, r *request) (int32, int32) {
	var mask *bitset
	if !r.useDrain {
		mask = &g.draining
	}
	if r.spread {
		bestPos, bestF := int32(-1), int32(-1)
		for f := g.size; f >= r.slots; f-- {
			if g.counts[f] == 0 {
				continue
			}
			if pos := g.buckets[f].first(mask); pos >= 0 {
				bestPos, bestF = pos, f
				break
			}
		}
		if mask != nil {
			bestPos, bestF = g.freeOnDraining(r, bestPos, bestF)
		}
		return bestPos, bestF
	}
	bestPos, bestF := int32(-1), int32(-1)
	for f := r.slots; f <= g.size; f++ {
		if g.counts[f] == 0 {
			continue
		}
		if pos := g.buckets[f].first(mask); pos >= 0 {
			bestPos, bestF = pos, f
			break
		}
	}
	if mask != nil {
		bestPos, bestF = g.freeOnDraining(r, bestPos, bestF)
	}
	return bestPos, bestF
}

// freeOnDraining looks at the few nodes of the group that have draining
// slots, which a search for free slots masks out, for free slots that
// beat the best node found so far (its index of them, dfree).
func (g *group) freeOnDraining(r *request, bestPos, bestF int32) (int32, int32) {
	if g.drainFree == 0 || r.slots <= 0 {
		return bestPos, bestF // no draining node has a free slot
	}
	// The best draining node has the fewest free slots that hold the task
	// (the most, for spread), the lowest position among those.
	f, last, step := r.slots, g.size, int32(1)
	if r.spread {
		f, last, step = g.size, r.slots, -1
	}
	for ; f*step <= last*step; f += step {
		if g.dcounts[f] == 0 {
			continue
		}
		pos := g.dfree[f].first(nil)
		if bestPos < 0 || (r.spread && f > bestF) || (!r.spread && f < bestF) ||
			(f == bestF && pos < bestPos) {
			bestPos, bestF = pos, f
		}
		break
	}
	return bestPos, bestF
}

// gang places a task larger than a group's node size on whole free nodes
// plus, for a remainder, one more node. It prefers the group with the
// largest nodes, which needs the fewest of them, and only when no single
// group can hold the gang mixes nodes of different sizes.
func (st *state) gang(r *request, out []NodeSlots) ([]NodeSlots, bool) {
	var best *group
	matching := 0
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if st.matches(g, r) && g.size > 0 {
			matching++
		}
		if g.size >= r.slots || g.size == 0 || !st.matches(g, r) ||
			g.avail < int(r.slots) || g.counts[g.size] < r.slots/g.size {
			continue
		}
		if best != nil && g.size <= best.size {
			continue
		}
		if st.gangIn(g, r, out) != nil {
			best = g
		}
	}
	if best == nil {
		if r.oneSwitch || matching < 2 {
			// One switch is kept per group (topology.go); and with one
			// group there is nothing to mix.
			return out, false
		}
		return st.mixedGang(r, out)
	}
	res := st.gangIn(best, r, out)
	return res, res != nil
}

// gangIn returns the placement in one group, or nil. In a group whose
// nodes have switches it keeps the gang under one switch when it can.
func (st *state) gangIn(g *group, r *request, out []NodeSlots) []NodeSlots {
	if len(g.switches) > 0 {
		if res := g.gangUnderSwitch(r, out); res != nil || r.oneSwitch {
			return res
		}
	}
	var mask *bitset
	if !r.useDrain {
		mask = &g.draining
	}
	n := r.slots / g.size
	rem := r.slots % g.size
	full := &g.buckets[g.size]
	pos := full.first(mask)
	for i := int32(0); i < n; i++ {
		if pos < 0 {
			return nil
		}
		out = append(out, NodeSlots{Node: g.nodes[pos], Slots: g.size})
		pos = full.next(pos+1, mask)
	}
	if rem == 0 {
		return out
	}
	// The remainder goes on a partly used node when one fits (best fit),
	// otherwise on one more whole node.
	for f := rem; f < g.size; f++ {
		if g.counts[f] == 0 {
			continue
		}
		if p := g.buckets[f].first(mask); p >= 0 {
			return append(out, NodeSlots{Node: g.nodes[p], Slots: rem})
		}
	}
	if pos >= 0 {
		return append(out, NodeSlots{Node: g.nodes[pos], Slots: rem})
	}
	return nil
}

// canStart reports whether a placement uses only free (not draining) slots.
func (st *state) canStart(nodes []NodeSlots) bool {
	for _, ns := range nodes {
		if st.free[ns.Node] < ns.Slots {
			return false
		}
	}
	return true
}

func (st *state) takeAll(nodes []NodeSlots) {
	for _, ns := range nodes {
		st.take(ns.Node, ns.Slots)
	}
}

// takeDrainingFirst takes a held task's placement from draining slots
// first, then free ones.
func (st *state) takeDrainingFirst(nodes []NodeSlots) {
	for _, ns := range nodes {
		st.takeSplit(ns.Node, ns.Slots, ns.Slots-min(ns.Slots, st.drain[ns.Node]))
	}
}

// capacity returns, for the groups a request may use, the total slots of
// the nodes and the slots available now.
func (st *state) capacity(r *request, s *Snapshot) (total, avail int, fitsEmpty bool) {
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if !st.matches(g, r) {
			continue
		}
		total += int(g.size) * len(g.nodes)
		avail += g.avail
	}
	// A task fits an empty pool when the matching nodes hold it together:
	// on one node, or as a gang over whole nodes of any sizes (mixedGang).
	return total, avail, total >= int(r.slots)
}

// findZero picks a node for a zero-slot task: the lowest-index node of the
// pool (and GPU type) that runs fewer zero-slot tasks than its limit.
func (st *state) findZero(r *request, s *Snapshot) int32 {
	best := int32(-1)
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if !st.matches(g, r) {
			continue
		}
		for _, n := range g.nodes {
			if best >= 0 && n > best {
				break
			}
			if int(st.zeroUsed[n]) < s.Nodes[n].ZeroSlotLimit {
				best = n
				break
			}
		}
	}
	return best
}

// mixedGang places a gang that no single group can hold on whole free
// nodes of several groups, largest nodes first, and the remainder by best
// fit on a partly used node, else on one more whole node of the smallest
// size that holds it: an 8-GPU node plus a 4-GPU node for a 12-GPU task.
// Like a one-group gang, every part is a whole node except one.
func (st *state) mixedGang(r *request, out []NodeSlots) ([]NodeSlots, bool) {
	mask := func(g *group) *bitset {
		if r.useDrain {
			return nil
		}
		return &g.draining
	}
	avail := 0
	st.gangNext = resize(st.gangNext, len(st.groups))
	for _, gi := range st.poolGroups[r.pool] {
		if g := &st.groups[gi]; st.matches(g, r) && g.size > 0 {
			avail += g.avail
			st.gangNext[gi] = g.buckets[g.size].first(mask(g))
		}
	}
	if avail < int(r.slots) {
		return out, false
	}
	start, left := len(out), r.slots
	for gi := st.nextSmaller(r, -1); gi >= 0 && left > 0; gi = st.nextSmaller(r, gi) {
		g := &st.groups[gi]
		for pos := st.gangNext[gi]; pos >= 0 && left >= g.size; pos = st.gangNext[gi] {
			out = append(out, NodeSlots{Node: g.nodes[pos], Slots: g.size})
			left -= g.size
			st.gangNext[gi] = g.buckets[g.size].next(pos+1, mask(g))
		}
	}
	if left == 0 {
		return out, true
	}
	if n := st.mixedRemainder(r, left, mask); n >= 0 {
		return append(out, NodeSlots{Node: n, Slots: left}), true
	}
	return out[:start], false
}

// nextSmaller returns the matching group of the pool that follows group
// after (-1: from the start) in order of node size, largest first, ties by
// group index; or -1 after the last.
func (st *state) nextSmaller(r *request, after int32) int32 {
	follows := func(a, b int32) bool { // a comes after b
		ga, gb := &st.groups[a], &st.groups[b]
		return ga.size < gb.size || (ga.size == gb.size && a > b)
	}
	best := int32(-1)
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if !st.matches(g, r) || g.size == 0 || (after >= 0 && !follows(gi, after)) {
			continue
		}
		if best < 0 || follows(best, gi) {
			best = gi
		}
	}
	return best
}

// mixedRemainder finds the node for a mixed gang's remainder: the partly
// used node with the fewest slots that hold it, else a whole free node not
// taken yet (gangNext) of the smallest size that holds it, or -1.
func (st *state) mixedRemainder(r *request, left int32, mask func(*group) *bitset) int32 {
	best, bestF := int32(-1), int32(0)
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if !st.matches(g, r) || g.size < left {
			continue
		}
		for f := left; f < g.size; f++ {
			if g.counts[f] == 0 || (best >= 0 && f >= bestF) {
				continue
			}
			if p := g.buckets[f].first(mask(g)); p >= 0 {
				best, bestF = g.nodes[p], f
				break
			}
		}
	}
	if best >= 0 {
		return best
	}
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if !st.matches(g, r) || g.size < left || st.gangNext[gi] < 0 {
			continue
		}
		if best < 0 || g.size < bestF {
			best, bestF = g.nodes[st.gangNext[gi]], g.size
		}
	}
	return best
}
