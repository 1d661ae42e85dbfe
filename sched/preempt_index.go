package sched

import "sort"

// nodeSearch scans the victim list from its start for every task of 2 to
// 8 slots; on a full cluster the first node whose victims all qualify
// sits hundreds of candidates deep, and the scan goes twice that far, so
// the priority policy spent most of a pass rescanning the same victims.
// victimIndex computes the same bids from per-node victim lists kept
// across the pass: for each task size, the position in the victim list at
// which each node would complete (its victims up to there free enough),
// in a heap keyed by that position, and a Fenwick tree counting the live
// candidates so that the scan's window (as many allowed candidates after
// the first complete node as before it) becomes a rank query. Only the
// nodes whose available slots or victims changed since the last search
// are recomputed (state.track lists them).
//
// It answers exactly as the scan only where it knows which candidates the
// rule allows: the priority rule with preemption on (a prefix of the
// list), or the fair-share rule (each victim job, per task size, may give
// or not: a few hundred pairs at most, re-checked per search); no
// preemption budgets, no GPU type asked, victims on one node each with
// slots, and no tentative eviction pending. Elsewhere nodeSearch scans as
// before.

type victimIndex struct {
	on    bool
	kind  victimKind
	facts []victimFacts
	start []int32 // node n's victims are at list[start[n]:start[n+1]]
	list  []int32 // positions in the victim list, ascending per node
	flag  []bool  // per position: counted live in fen
	fen   []int32 // Fenwick tree over positions, 1-based
	sizes []*sizeIndex
	spare []*sizeIndex
	// availAt is each node's available slots when last recomputed.
	availAt []int32
	// Fair share: pairOf[i] is position i's (job, slots) pair, and the
	// pair's positions are pairList[pairStart[k]:pairStart[k+1]].
	pairOf    []int32
	pairs     []sharePair
	pairStart []int32
	pairList  []int32
	pairKey   map[sharePair]int32
}

// sharePair is a victim job and a task size; ok caches canGive.
type sharePair struct {
	job, slots int32
	ok         bool
}

// maxSharePairs bounds the pairs re-checked on every search.
const maxSharePairs = 512

// sizeIndex holds, for one task size, each node's completing position.
type sizeIndex struct {
	slots int32
	compl []int32 // position completing the node, -1 when none does
	lost  []int64 // work lost by the victims up to compl
	stamp []int32
	h     complHeap
}

type complEntry struct{ pos, node, stamp int32 }

// complHeap is a min-heap by position, then node; entries whose stamp
// is not their node's current one are stale and skipped. It is written
// out rather than through container/heap, which would box every push.
type complHeap []complEntry

func (e complEntry) before(o complEntry) bool {
	return e.pos < o.pos || (e.pos == o.pos && e.node < o.node)
}

func (h *complHeap) push(e complEntry) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		up := (i - 1) / 2
		if !q[i].before(q[up]) {
			break
		}
		q[i], q[up] = q[up], q[i]
		i = up
	}
}

func (h *complHeap) pop() complEntry {
	q := *h
	top := q[0]
	q[0] = q[len(q)-1]
	q = q[:len(q)-1]
	*h = q
	q.down(0)
	return top
}

func (h complHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].before(h[l]) {
			l = r
		}
		if !h[l].before(h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

func (h complHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// indexVictims sets up the index for a priority pool's victim list, or
// leaves it off when the list or the projects do not allow it.
func (vl *victimLists) indexVictims(facts []victimFacts, kind victimKind) {
	x := &vl.index
	x.stop(vl.p)
	x.kind, x.pairs = kind, x.pairs[:0]
	if kind == victimsAboveShare && !vl.sharePairs(facts) {
		return
	}
	for i := range vl.s.Projects {
		if vl.s.Projects[i].PreemptBudget > 0 {
			return
		}
	}
	nodes := len(vl.s.Nodes)
	x.start = resize(x.start, nodes+1)
	for i := range facts {
		if facts[i].node < 0 || facts[i].slots <= 0 {
			return
		}
		x.start[facts[i].node+1]++
	}
	for n := range nodes {
		x.start[n+1] += x.start[n]
	}
	x.list = resize(x.list, len(facts))
	x.availAt = resize(x.availAt, nodes) // set per node by recompute; first a cursor
	fill := x.availAt
	copy(fill, x.start[:nodes])
	x.flag = resize(x.flag, len(facts))
	x.fen = resize(x.fen, len(facts)+1)
	x.facts = facts
	for i := range facts {
		n := facts[i].node
		x.list[fill[n]] = int32(i)
		fill[n]++
		if vl.allowedNow(i) {
			x.flag[i] = true
			x.fenAdd(i, 1)
		}
	}
	x.spare = append(x.spare, x.sizes...)
	x.facts, x.sizes, x.on = facts, x.sizes[:0], true
	vl.st.dirtyMark = resize(vl.st.dirtyMark, nodes)
	vl.st.track = true
}

// sharePairs groups a fair-share list's positions by (job, slots), or
// reports that there are too many pairs to re-check on every search.
func (vl *victimLists) sharePairs(facts []victimFacts) bool {
	x := &vl.index
	if x.pairKey == nil {
		x.pairKey = map[sharePair]int32{}
	}
	clear(x.pairKey)
	x.pairs = x.pairs[:0]
	x.pairOf = resize(x.pairOf, len(facts))
	for i := range facts {
		key := sharePair{job: facts[i].job, slots: facts[i].slots}
		k, ok := x.pairKey[key]
		if !ok {
			if len(x.pairs) == maxSharePairs {
				return false
			}
			k = int32(len(x.pairs))
			x.pairKey[key] = k
			key.ok = vl.p.sc.fs.canGive(key.job, key.slots)
			x.pairs = append(x.pairs, key)
		}
		x.pairOf[i] = k
	}
	x.pairStart = resize(x.pairStart, len(x.pairs)+1)
	for _, k := range x.pairOf {
		x.pairStart[k+1]++
	}
	for k := range x.pairs {
		x.pairStart[k+1] += x.pairStart[k]
	}
	x.pairList = resize(x.pairList, len(facts))
	fill := append(vl.heldPos[:0], x.pairStart[:len(x.pairs)]...)
	for i, k := range x.pairOf {
		x.pairList[fill[k]] = int32(i)
		fill[k]++
	}
	vl.heldPos = fill[:0]
	return true
}

// allowedNow reports whether the search's rule would take position i
// now, apart from the priority rule's cutoff (applied per search).
func (vl *victimLists) allowedNow(i int) bool {
	x := &vl.index
	if vl.goneAt(nil, x.facts, i) {
		return false
	}
	return x.kind != victimsAboveShare || x.pairs[x.pairOf[i]].ok
}

// stop turns the index off, at the end of a pool or before a new list.
func (x *victimIndex) stop(p *pass) {
	x.on = false
	p.st.track = false
	for _, n := range p.st.dirty {
		p.st.dirtyMark[n] = false
	}
	p.st.dirty = p.st.dirty[:0]
}

func (x *victimIndex) fenAdd(i int, d int32) {
	for i++; i < len(x.fen); i += i & -i {
		x.fen[i] += d
	}
}

// fenRank counts live positions at or before i.
func (x *victimIndex) fenRank(i int) int {
	s := int32(0)
	for i++; i > 0; i -= i & -i {
		s += x.fen[i]
	}
	return int(s)
}

// fenSelect returns the position of the k-th live candidate (k ≥ 1), or
// len(facts) when there are fewer.
func (x *victimIndex) fenSelect(k int) int {
	pos, step := 0, 1
	for step*2 < len(x.fen) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if pos+step < len(x.fen) && int(x.fen[pos+step]) < k {
			pos += step
			k -= int(x.fen[pos])
		}
	}
	return pos // 0-based position of the k-th, since pos counts those before it
}

// victimIndexOff makes nodeSearch scan even where the index applies, so
// that tests can compare the two.
var victimIndexOff bool

// usable reports whether this search may use the index.
func (vl *victimLists) usable(r *request, rule *victimRule) bool {
	x := &vl.index
	return !victimIndexOff && x.on && rule.kind == x.kind && (rule.preemption || rule.kind == victimsAboveShare) &&
		rule.facts != nil && r.gpu == "" && r.slots >= 2 && len(vl.p.pre.stmt) == 0
}

// refresh recomputes the nodes that changed since the last search.
func (vl *victimLists) refresh() {
	x := &vl.index
	st := vl.st
	for k := range x.pairs {
		// A victim job's allocation moved: its tasks of this size may
		// now give, or no longer.
		pr := &x.pairs[k]
		if ok := vl.p.sc.fs.canGive(pr.job, pr.slots); ok != pr.ok {
			pr.ok = ok
			for _, i := range x.pairList[x.pairStart[k]:x.pairStart[k+1]] {
				st.noteDirty(x.facts[i].node)
			}
		}
	}
	for _, n := range st.dirty {
		st.dirtyMark[n] = false
		changed := st.avail(n) != x.availAt[n]
		for _, i := range x.list[x.start[n]:x.start[n+1]] {
			if want := vl.allowedNow(int(i)); want != x.flag[i] {
				x.flag[i] = want
				d := int32(-1)
				if want {
					d = 1
				}
				x.fenAdd(int(i), d)
				changed = true
			}
		}
		if changed {
			for _, si := range x.sizes {
				vl.recompute(si, n)
			}
		}
	}
	st.dirty = st.dirty[:0]
}

// recompute sets node n's completing position for one size, and pushes
// a fresh heap entry when it moved.
func (vl *victimLists) recompute(si *sizeIndex, n int32) {
	x := &vl.index
	x.availAt[n] = vl.st.avail(n)
	compl, lost := int32(-1), int64(0)
	if vl.st.groups[vl.st.nodeGroup[n]].size >= si.slots {
		need, freed := si.slots-x.availAt[n], int32(0)
		for _, i := range x.list[x.start[n]:x.start[n+1]] {
			if !x.flag[i] {
				continue
			}
			freed += x.facts[i].slots
			lost += x.facts[i].lost
			if freed >= need {
				compl = i
				break
			}
		}
	}
	if compl < 0 {
		lost = 0
	}
	if compl == si.compl[n] && lost == si.lost[n] {
		return
	}
	si.compl[n], si.lost[n] = compl, lost
	si.stamp[n]++
	if compl >= 0 {
		si.h.push(complEntry{pos: compl, node: n, stamp: si.stamp[n]})
	}
	if len(si.h) > 4*len(si.compl)+1024 {
		vl.rebuildHeap(si)
	}
}

func (vl *victimLists) rebuildHeap(si *sizeIndex) {
	si.h = si.h[:0]
	for n, c := range si.compl {
		if c >= 0 {
			si.h = append(si.h, complEntry{pos: c, node: int32(n), stamp: si.stamp[n]})
		}
	}
	si.h.init()
}

// sizeFor returns the index for a task size, building it on first use.
func (vl *victimLists) sizeFor(slots int32) *sizeIndex {
	x := &vl.index
	for _, si := range x.sizes {
		if si.slots == slots {
			return si
		}
	}
	nodes := len(vl.s.Nodes)
	// The sizes' memory is kept from pass to pass (spare holds it).
	var si *sizeIndex
	if len(x.spare) > 0 {
		si, x.spare = x.spare[len(x.spare)-1], x.spare[:len(x.spare)-1]
	} else {
		si = &sizeIndex{}
	}
	si.slots, si.h = slots, si.h[:0]
	si.compl, si.lost, si.stamp = resize(si.compl, nodes), resize(si.lost, nodes), resize(si.stamp, nodes)
	for n := range si.compl {
		si.compl[n] = -2 // differs from any result, so recompute sets it
	}
	for n := range nodes {
		vl.recompute(si, int32(n))
	}
	vl.rebuildHeap(si)
	x.sizes = append(x.sizes, si)
	return si
}

// valid reports whether a heap entry is its node's current one.
func (si *sizeIndex) valid(e complEntry) bool { return e.stamp == si.stamp[e.node] }

// nodeSearchIndexed is nodeSearch answered from the index: the same bids,
// in the same order, evicted the same way.
func (pm *preemptor) nodeSearchIndexed(r *request, rule *victimRule) ([]NodeSlots, bool) {
	x := &pm.vic.index
	pm.vic.refresh()
	si := pm.vic.sizeFor(r.slots)
	facts := x.facts
	// The scan stops at the first live candidate as important as the job
	// (pastRule); the list is sorted by priority, largest number first.
	cutoff := len(facts)
	if x.kind == victimsByPriority {
		cutoff = sort.Search(len(facts), func(i int) bool { return int(facts[i].prio) <= rule.prio })
	}
	for len(si.h) > 0 && !si.valid(si.h[0]) {
		si.h.pop()
	}
	if len(si.h) == 0 || int(si.h[0].pos) >= cutoff {
		return nil, false
	}
	first := int(si.h[0].pos)
	stop := first
	if seen := x.fenRank(first); seen > 1 {
		// The scan takes 2×seen allowed candidates, none of a larger
		// class (a smaller priority number) than the first bid's.
		stop = min(x.fenSelect(2*seen), cutoff-1)
		if x.kind == victimsByPriority {
			cl := facts[first].prio
			stop = min(stop, first+sort.Search(len(facts)-first, func(k int) bool { return facts[first+k].prio < cl })-1)
		}
	}
	ns := &pm.nscan
	ns.bids = ns.bids[:0]
	// Every entry at or before stop, read off the heap without popping:
	// a child is never before its parent. A bid's order is its completing
	// position, which is when the scan would have made it.
	stack := append(pm.heapStack[:0], 0)
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if i >= len(si.h) || int(si.h[i].pos) > stop {
			continue
		}
		stack = append(stack, int32(2*i+1), int32(2*i+2))
		e := si.h[i]
		if !si.valid(e) {
			continue
		}
		cl := int32(0) // fair share ranks every victim alike (victimClass)
		if x.kind == victimsByPriority {
			cl = -facts[e.pos].prio
		}
		ns.bids = append(ns.bids, nodeBid{node: e.node, class: cl, lost: si.lost[e.node], order: e.pos})
	}
	pm.heapStack = stack[:0]
	bestBids(ns.bids, maxBids)
	mark := len(pm.stmt)
	for k := 0; k < len(ns.bids) && k < maxBids; k++ {
		if nodes, ok := pm.evictOnIndexed(si, ns.bids[k].node, r, rule); ok {
			return nodes, true
		}
		pm.rollback(mark, rule)
	}
	return nil, false
}

// evictOnIndexed is evictOn over node n's victims up to its completing
// position that were live when the search began.
func (pm *preemptor) evictOnIndexed(si *sizeIndex, n int32, r *request, rule *victimRule) ([]NodeSlots, bool) {
	x := &pm.vic.index
	compl := si.compl[n]
	for _, i := range x.list[x.start[n]:x.start[n+1]] {
		if pm.st.avail(n) >= r.slots || i > compl {
			break
		}
		if a := x.facts[i].alloc; x.flag[i] && pm.vic.allows(rule, a) {
			pm.evict(a, rule)
		}
	}
	if pm.st.avail(n) < r.slots {
		return nil, false
	}
	return pm.st.find(r, pm.p.sc.scratch[:0])
}
