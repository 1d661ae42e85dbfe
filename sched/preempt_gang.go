package sched

import "slices"

// A gang on a full cluster evicts candidates in victim order until enough
// nodes are whole (evictInOrder): several thousand tentative evictions,
// all but a few restored by minimize, half of a full priority pass. Where
// find's answer depends only on which nodes are whole, gangScan instead
// replays the candidates virtually, counting per group how many nodes
// each available count would have, finds the first candidate after which
// find would succeed, and evicts only the victims on the nodes it would
// take. The plan is the same: the victims elsewhere would be restored by
// minimize, and find, run for real on the reduced state, must return the
// same placement (else the gang falls back to evictInOrder's loop).
//
// That holds where the victim index is on (no budgets, one-node victims)
// for the priority rule (the candidates do not depend on earlier
// tentative evictions) and the fair-share rule when no victim job waits
// in the share heap (the replay applies and undoes the accounting), for
// gangs that every group's node size divides, on groups without switches.
// Quota's reclaim rule is replayed the same way without the index: its
// accounting (account) only moves numbers, so the walk applies it to each
// candidate it takes and undoes it after, and a victim on several nodes
// sends the gang back to the loop.

// gangScan is the virtual state; entries are per matching group of the
// pool (groups, in the pool's order) or per node.
type gangScan struct {
	groups  []int32
	size    []int32 // per entry of groups: its node size
	order   []int32 // indices into groups, largest nodes first (mixedGang)
	counts  [][]int32
	avail   []int
	taken   []int32
	slot    []int32 // per st.groups index: its index in groups, or -1
	freed   []int32 // per node
	touched []int32
	whole   []int32 // nodes made whole, positions in their group
	seen    []int32 // candidate positions, in order
	mark    []bool  // per node: its seen victims are evicted (gangTake)
	// remK, remF and left: mixedRemainder's partly used node, group k's
	// first with remF available slots, for the left slots.
	remK, remF, left int32
	// wholeSlots is the slots of whole nodes over the groups, and largest
	// their largest node: gangJudge's quick refusal, as gangMayFit.
	wholeSlots, largest int32
}

type gangVerdict uint8

const (
	gangFails gangVerdict = iota
	gangWhole             // gang() succeeds in one group
	gangMixed             // mixedGang succeeds on whole nodes (taken per group)
	gangPart              // mixedGang: whole nodes and a partly used node (remK, remF)
	gangOther             // mixedGang: a whole node for the remainder: not replayed
)

// gangReplayable reports whether evictInOrder may use gangScan.
func (pm *preemptor) gangReplayable(r *request, rule *victimRule) bool {
	if victimIndexOff || rule.facts == nil || rule.next == nil || r.gpu != "" || r.oneSwitch || !r.useDrain ||
		r.slots <= 0 {
		return false
	}
	if rule.kind != victimsReclaim {
		x := &pm.vic.index
		if !x.on || rule.kind != x.kind || rule.blockEnd != nil ||
			x.kind == victimsAboveShare && !pm.vic.victimJobsIdle() {
			return false
		}
	}
	for _, gi := range pm.st.poolGroups[r.pool] {
		g := &pm.st.groups[gi]
		if g.size > 0 && (g.size >= r.slots || r.slots%g.size != 0 || len(g.switches) > 0) {
			return false
		}
	}
	return true
}

// gangReplay runs the virtual scan. done is false when the caller must
// run evictInOrder's loop instead; nothing is evicted then.
func (pm *preemptor) gangReplay(r *request, cands []int32, rule *victimRule) (nodes []NodeSlots, ok, done bool) {
	gs := pm.gangReset(r)
	defer gs.clear()
	v, best := pm.gangWalk(r, cands, rule)
	switch rule.kind {
	case victimsAboveShare:
		alloc := pm.p.sc.fs.alloc
		for _, i := range gs.seen {
			alloc[rule.facts[i].job] += rule.facts[i].slots
		}
	case victimsReclaim:
		for _, i := range gs.seen {
			pm.vic.account(rule, rule.facts[i].alloc, +1)
		}
	}
	switch v {
	case gangOther:
		return nil, false, false
	case gangWhole:
		gs.remK = -1
		for k := range gs.taken {
			gs.taken[k] = 0
		}
		g := &pm.st.groups[gs.groups[best]]
		gs.taken[best] = r.slots / g.size
		gs.order = append(gs.order[:0], int32(best))
		return pm.gangTake(r, rule)
	case gangMixed, gangPart:
		if v == gangMixed {
			gs.remK = -1
		}
		return pm.gangTake(r, rule)
	}
	// Evicting every candidate would not make it fit: the loop would
	// evict them all, fail, and preempt would roll them back.
	return nil, false, true
}

// gangWalk adds the candidates in victim order, as nextCand would offer
// them, until gangJudge says find would succeed (or gangOther, or the end
// of the list). It runs over thousands of candidates for every gang, so
// it is nextFact, allowsFact, took and gangAdd written out in one loop
// for the cases gangReplayable admits: facts and skip pointers, no GPU
// type; for the indexed rules no blocks and no preemption budgets, and
// for fair share no victim job in the share heap (so took would fix no
// heap position: it only moves the numbers, undone by the caller). The
// reclaim rule goes through allowsFact and blocks as nextFact does, with
// evict's accounting applied as it goes (undone by the caller).
func (pm *preemptor) gangWalk(r *request, cands []int32, rule *victimRule) (gangVerdict, int) {
	gs := &pm.gscan
	facts, final, evicted := rule.facts, pm.p.sc.final, pm.p.sc.evicted
	share := rule.kind == victimsAboveShare
	fs := &pm.p.sc.fs
	for i := 0; i < len(cands); i++ {
		if f := &facts[i]; f.stale || final[f.alloc] {
			if i = pm.vic.live(rule.next, cands, facts, i); i == len(cands) {
				break
			}
		}
		f := &facts[i]
		if pastFact(rule, f) {
			break
		}
		if share {
			// allowsFact, less what cannot hold here (stale, final, a
			// spent budget).
			if evicted[f.alloc] || fs.alloc[f.job]-f.slots < fs.share[f.job] {
				continue
			}
			fs.alloc[f.job] -= f.slots // evict's accounting, for later candidates of the job
		} else if !pm.vic.allowsFact(rule, f) {
			if rule.blockEnd != nil && pm.vic.blockClosed(rule, f.alloc) {
				i = int(rule.blockEnd[i]) - 1 // the loop adds one
			}
			continue
		} else if rule.kind == victimsReclaim {
			if f.node < 0 {
				return gangOther, -1 // several nodes: the loop's case
			}
			pm.vic.account(rule, f.alloc, -1)
		}
		gs.seen = append(gs.seen, int32(i))
		if !pm.gangAdd(f) {
			return gangOther, -1
		}
		if gs.wholeSlots+gs.largest >= r.slots { // else gangJudge's quick refusal
			if v, best := pm.gangJudge(r); v != gangFails {
				return v, best
			}
		}
	}
	return gangFails, -1
}

// victimJobsIdle reports, for a fair-share list, that no victim job waits
// in the allocation heap: then evict's accounting only moves numbers
// (fairShare.took fixes no heap position), and replaying it virtually,
// then undoing it, leaves everything as the loop would.
func (vl *victimLists) victimJobsIdle() bool {
	q := &vl.p.sc.fs.q
	if !q.track {
		return false
	}
	for _, pr := range vl.index.pairs {
		if q.pos[pr.job] != -1 {
			return false
		}
	}
	return true
}

func (pm *preemptor) gangReset(r *request) *gangScan {
	gs := &pm.gscan
	st := pm.st
	gs.groups, gs.order, gs.seen, gs.whole = gs.groups[:0], gs.order[:0], gs.seen[:0], gs.whole[:0]
	gs.avail, gs.taken, gs.size = gs.avail[:0], gs.taken[:0], gs.size[:0]
	gs.wholeSlots, gs.largest = 0, 0
	if len(gs.slot) != len(st.groups) {
		gs.slot = make([]int32, len(st.groups))
	}
	for i := range gs.slot {
		gs.slot[i] = -1
	}
	if len(gs.freed) != len(pm.s.Nodes) {
		gs.freed = make([]int32, len(pm.s.Nodes))
	}
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if g.size == 0 || !st.matches(g, r) {
			continue
		}
		k := len(gs.groups)
		gs.slot[gi] = int32(k)
		gs.groups = append(gs.groups, gi)
		gs.size = append(gs.size, g.size)
		gs.order = append(gs.order, int32(k))
		if len(gs.counts) <= k {
			gs.counts = append(gs.counts, nil)
		}
		gs.counts[k] = append(gs.counts[k][:0], g.counts...)
		gs.avail = append(gs.avail, g.avail)
		gs.taken = append(gs.taken, 0)
		gs.wholeSlots += g.counts[g.size] * g.size
		gs.largest = max(gs.largest, g.size)
	}
	// mixedGang takes whole nodes from the largest size down, ties by
	// group index (nextSmaller).
	slices.SortFunc(gs.order, func(a, b int32) int {
		ga, gb := gs.groups[a], gs.groups[b]
		if sa, sb := st.groups[ga].size, st.groups[gb].size; sa != sb {
			return int(sb - sa)
		}
		return int(ga - gb)
	})
	return gs
}

func (gs *gangScan) clear() {
	for _, n := range gs.touched {
		gs.freed[n] = 0
	}
	gs.touched = gs.touched[:0]
}

// gangAdd counts candidate f's slots on its node as freed; false when
// the node would hold more than its size (never expected: then give up).
// It runs for thousands of candidates per gang, so it reads the node's
// group from the facts and the size from the scan's own array.
func (pm *preemptor) gangAdd(f *victimFacts) bool {
	gs := &pm.gscan
	k := gs.slot[f.group]
	if k < 0 {
		return true // a node find does not look at
	}
	n, slots, size := f.node, f.slots, gs.size[k]
	old := pm.st.avail(n) + gs.freed[n]
	if old+slots > size {
		return false
	}
	if gs.freed[n] == 0 {
		gs.touched = append(gs.touched, n)
	}
	gs.freed[n] += slots
	gs.counts[k][old]--
	gs.counts[k][old+slots]++
	gs.avail[k] += int(slots)
	if old+slots == size {
		gs.whole = append(gs.whole, n)
		gs.wholeSlots += size
	}
	return true
}

// gangJudge is what find would do on the virtual state: gang() taking
// whole nodes of one group (which group), mixedGang succeeding, or
// failing. See gang, mixedGang and mixedRemainder, which it mirrors for
// gangs that every node size divides.
func (pm *preemptor) gangJudge(r *request) (gangVerdict, int) {
	gs := &pm.gscan
	if gs.wholeSlots+gs.largest < r.slots {
		return gangFails, -1 // see gangMayFit
	}
	best := -1
	for k, gi := range gs.groups {
		g := &pm.st.groups[gi]
		if gs.counts[k][g.size] >= r.slots/g.size &&
			(best < 0 || g.size > pm.st.groups[gs.groups[best]].size) {
			best = k
		}
	}
	if best >= 0 {
		return gangWhole, best
	}
	if len(gs.groups) < 2 {
		return gangFails, -1
	}
	total := 0
	for _, a := range gs.avail {
		total += a
	}
	if total < int(r.slots) {
		return gangFails, -1
	}
	left := r.slots
	for _, k := range gs.order {
		size := pm.st.groups[gs.groups[k]].size
		gs.taken[k] = min(gs.counts[k][size], left/size)
		left -= gs.taken[k] * size
	}
	if left == 0 {
		return gangMixed, -1
	}
	// mixedRemainder: the partly used node with the fewest slots that hold
	// the rest (ties to the earlier group), else a whole node not taken.
	gs.remK, gs.remF, gs.left = -1, 0, left
	for k, gi := range gs.groups {
		size := pm.st.groups[gi].size
		for f := left; f < size; f++ {
			if gs.counts[k][f] > 0 && (gs.remK < 0 || f < gs.remF) {
				gs.remK, gs.remF = int32(k), f
				break
			}
		}
	}
	if gs.remK >= 0 {
		return gangPart, -1
	}
	for k, gi := range gs.groups {
		if size := pm.st.groups[gi].size; size >= left && gs.counts[k][size] > gs.taken[k] {
			return gangOther, -1
		}
	}
	return gangFails, -1
}

// gangTake evicts, in victim order, the candidates seen on the whole
// nodes find would take (taken per group, groups in order, each group's
// first nodes by position), then runs find for real and checks it takes
// those nodes.
func (pm *preemptor) gangTake(r *request, rule *victimRule) ([]NodeSlots, bool, bool) {
	gs := &pm.gscan
	take := pm.taken[:0]
	for _, k := range gs.order {
		var ok bool
		if take, ok = pm.firstWhole(int(k), take); !ok {
			pm.taken = take
			return nil, false, false // cannot happen: the counts said enough
		}
	}
	whole := len(take)
	if gs.remK >= 0 {
		take = append(take, pm.firstWith(int(gs.remK), gs.remF))
	}
	pm.taken = take
	pm.markEvictions(take)
	mark := len(pm.stmt)
	for _, i := range gs.seen {
		if f := &rule.facts[i]; gs.mark[f.node] {
			pm.evict(f.alloc, rule)
		}
	}
	for _, n := range gs.touched {
		gs.mark[n] = false
	}
	nodes, ok := pm.st.find(r, pm.p.sc.scratch[:0])
	same := ok && len(nodes) == len(take)
	for j := 0; same && j < len(nodes); j++ {
		want := pm.st.groups[pm.st.nodeGroup[take[j]]].size
		if j == whole {
			want = gs.left
		}
		same = nodes[j].Node == take[j] && nodes[j].Slots == want
	}
	if !same {
		pm.rollback(mark, rule)
		return nil, false, false
	}
	return nodes, true, true
}

// markEvictions marks the nodes whose seen victims gangTake evicts: the
// nodes find takes, and for a remainder on a partly used node every
// touched node that could otherwise compete for it (available slots
// between the rest and the chosen node's), so that on the reduced state
// find sees each of them as it would with every candidate evicted. Extra
// evictions are harmless: minimize restores them.
func (pm *preemptor) markEvictions(take []int32) {
	gs := &pm.gscan
	if len(gs.mark) != len(pm.s.Nodes) {
		gs.mark = make([]bool, len(pm.s.Nodes))
	}
	for _, n := range take {
		if gs.freed[n] > 0 {
			gs.mark[n] = true
		}
	}
	if gs.remK < 0 {
		return
	}
	for _, n := range gs.touched {
		if a := pm.st.avail(n); a >= gs.left && a <= gs.remF {
			gs.mark[n] = true
		}
	}
}

// firstWith returns group k's first node by position whose available
// slots, with the candidates seen evicted, are f (f below the node size):
// untouched nodes in the real bucket, touched ones by their virtual count.
func (pm *preemptor) firstWith(k int, f int32) int32 {
	gs := &pm.gscan
	gi := gs.groups[k]
	g := &pm.st.groups[gi]
	best := int32(-1)
	b := &g.buckets[f]
	for pos := b.first(nil); pos >= 0; pos = b.next(pos+1, nil) {
		if gs.freed[g.nodes[pos]] == 0 {
			best = pos
			break
		}
	}
	for _, n := range gs.touched {
		if pm.st.nodeGroup[n] == gi && pm.st.avail(n)+gs.freed[n] == f {
			if pos := pm.st.nodePos[n]; best < 0 || pos < best {
				best = pos
			}
		}
	}
	return g.nodes[best]
}

// firstWhole appends group k's first taken[k] whole nodes by position:
// those whole already merged with those the candidates make whole.
func (pm *preemptor) firstWhole(k int, take []int32) ([]int32, bool) {
	gs := &pm.gscan
	gi := gs.groups[k]
	g := &pm.st.groups[gi]
	vpos := pm.gangPos[:0]
	for _, n := range gs.whole {
		if pm.st.nodeGroup[n] == gi {
			vpos = append(vpos, pm.st.nodePos[n])
		}
	}
	slices.Sort(vpos)
	pm.gangPos = vpos
	full := &g.buckets[g.size]
	pos, v := full.first(nil), 0
	for want := gs.taken[k]; want > 0; want-- {
		switch {
		case pos >= 0 && (v == len(vpos) || pos < vpos[v]):
			take = append(take, g.nodes[pos])
			pos = full.next(pos+1, nil)
		case v < len(vpos):
			take = append(take, g.nodes[vpos[v]])
			v++
		default:
			return take, false
		}
	}
	return take, true
}
