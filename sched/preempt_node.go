package sched

// Preempting for a task that fits on one node must free that much on one
// node. Evicting candidates in the global victim order (evictInOrder) does
// that only when the preferred victims happen to share a node: with
// one-slot victims spread round-robin over four full 8-slot nodes it takes
// 29 victims before any node is empty, and a rule that caps what a victim
// may give (its quota, its fair share) refuses long before that, so the
// task never starts. The priority policy got away with it only because it
// has no cap.
//
// nodeSearch therefore scans the candidates once, in victim order, and
// counts per node what the preferred victims there would free and lose;
// then it evicts on the node that completes the task with the least
// important, least costly victims, re-checking every victim against the
// rule as it goes (earlier evictions use up a victim's allowance), and
// tries the next node when the rule refuses.

// nodeBid is one node whose victims could make room for the task.
type nodeBid struct {
	node  int32
	class int32 // the most important victim taken (see victimClass)
	lost  int64 // slot-seconds of work the victims would lose
	order int32 // when the node completed during the scan: ties go first
}

// nodeScan is the per-node scratch of nodeSearch, indexed by node; the
// entries it touches are listed so that resetting costs only those.
type nodeScan struct {
	// tally is per node, in one array so that a bid touches one cache
	// line per node rather than four.
	tally   []nodeTally
	touched []int32
	seen    []seenVictim
	bids    []nodeBid
}

// nodeTally is what a scan found on one node: the slots its seen
// victims free, the work they lose, the highest class among them, and
// whether the node is complete (bid).
type nodeTally struct {
	lost  int64
	freed int32
	class int32
	done  bool
}

type seenVictim struct {
	alloc, node int32
}

func (ns *nodeScan) reset(nodes int) {
	for _, n := range ns.touched {
		ns.tally[n] = nodeTally{}
	}
	ns.touched, ns.seen, ns.bids = ns.touched[:0], ns.seen[:0], ns.bids[:0]
	if len(ns.tally) != nodes {
		ns.tally = make([]nodeTally, nodes)
	}
}

// oneNode reports whether the request fits on a single node of some group.
func (st *state) oneNode(r *request) bool {
	for _, gi := range st.poolGroups[r.pool] {
		if g := &st.groups[gi]; g.size >= r.slots && st.matches(g, r) {
			return true
		}
	}
	return false
}

// gangMayFit reports whether a request that no single node can hold
// could be placed at all. Every part of a gang but one is a whole node
// with all its slots available (gangIn, gangUnderSwitch, mixedGang), and
// the one other part is at most the largest node; so a gang needs at
// least its size less the largest node in whole available nodes. This
// necessary condition is cheap: a few groups' counts.
func (st *state) gangMayFit(r *request) bool {
	whole, largest := int32(0), int32(0)
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if g.size == 0 || !st.matches(g, r) {
			continue
		}
		if g.size >= r.slots {
			return true // one node might hold it: let find decide
		}
		whole += g.counts[g.size] * g.size
		largest = max(largest, g.size)
	}
	return whole+largest >= r.slots
}

// evictInOrder evicts candidates in victim order until the request fits
// anywhere; gangs over several nodes are placed this way. A gang on a
// full cluster may need thousands of evictions before enough nodes are
// whole, so find runs only once gangMayFit says it could succeed.
func (pm *preemptor) evictInOrder(r *request, cands []int32, rule *victimRule) ([]NodeSlots, bool) {
	if pm.gangReplayable(r, rule) {
		if nodes, ok, done := pm.gangReplay(r, cands, rule); done {
			return nodes, ok
		}
	}
	for i := pm.vic.nextCand(cands, 0, r, rule); i < len(cands); i = pm.vic.nextCand(cands, i+1, r, rule) {
		pm.evict(cands[i], rule)
		if !pm.st.gangMayFit(r) {
			continue
		}
		if nodes, ok := pm.st.find(r, pm.p.sc.scratch[:0]); ok {
			return nodes, true
		}
	}
	return nil, false
}

// nodeSearch makes room for a one-node task on the node whose victims are
// least important and lose least (see the comment at the top of the file).
// The scan stops once as many more allowed candidates were seen after the
// first complete node as before it, or a less preferred class begins:
// later candidates lose more, so they rarely make a cheaper node, and the
// search stays proportional to the victims it needs.
func (pm *preemptor) nodeSearch(r *request, cands []int32, rule *victimRule) ([]NodeSlots, bool) {
	if pm.vic.usable(r, rule) {
		return pm.nodeSearchIndexed(r, rule)
	}
	ns := &pm.nscan
	ns.reset(len(pm.s.Nodes))
	seen, window := 0, -1
	for i := pm.vic.nextCand(cands, 0, r, rule); i < len(cands); i = pm.vic.nextCand(cands, i+1, r, rule) {
		a := cands[i]
		var cl int32
		if rule.facts != nil {
			cl = pm.vic.classFact(rule, &rule.facts[i])
		} else {
			cl = pm.vic.victimClass(rule, a)
		}
		if len(ns.bids) > 0 && (seen >= window || cl > ns.bids[0].class) {
			break
		}
		seen++
		if f := pm.factAt(rule, i); f != nil && f.node >= 0 {
			pm.bidOn(r, a, f.node, f.slots, f.lost, cl)
		} else {
			pm.bidVictim(r, a, cl)
		}
		if window < 0 && len(ns.bids) > 0 {
			if seen == 1 {
				break // the first allowed victim alone makes room: none is cheaper
			}
			window = 2 * seen
		}
	}
	bestBids(ns.bids, maxBids)
	mark := len(pm.stmt)
	for k := 0; k < len(ns.bids) && k < maxBids; k++ {
		if nodes, ok := pm.evictOn(ns.bids[k].node, r, rule); ok {
			return nodes, true
		}
		pm.rollback(mark, rule)
	}
	return nil, false
}

// maxBids is how many complete nodes a search tries, best first.
const maxBids = 4

// bidBefore orders bids: the lower class first, then the less work lost,
// then the node completed first. order is unique, so this is a total
// order and the best bids do not depend on how they are found.
func bidBefore(a, b *nodeBid) bool {
	switch {
	case a.class != b.class:
		return a.class < b.class
	case a.lost != b.lost:
		return a.lost < b.lost
	}
	return a.order < b.order
}

// bestBids moves the k best bids to the front, in order. Only those are
// tried; a full sort of every bid cost a fair-share pass a tenth of its
// time when hundreds of nodes complete within the scan's window.
func bestBids(bids []nodeBid, k int) {
	for i := 0; i < k && i < len(bids); i++ {
		best := i
		for j := i + 1; j < len(bids); j++ {
			if bidBefore(&bids[j], &bids[best]) {
				best = j
			}
		}
		bids[i], bids[best] = bids[best], bids[i]
	}
}

// bidVictim adds a's slots on each node that could hold the request to
// that node's tally, and records a bid for each node it completes.
func (pm *preemptor) bidVictim(r *request, a int32, cl int32) {
	al := &pm.s.Allocs[a]
	cost := al.Lost(pm.s.Now) * int64(Slots(al.Nodes))
	for _, x := range al.Nodes {
		pm.bidOn(r, a, x.Node, x.Slots, cost, cl)
	}
}

// factAt returns the facts of position i when the rule's list has them.
func (pm *preemptor) factAt(rule *victimRule, i int) *victimFacts {
	if rule.facts == nil {
		return nil
	}
	return &rule.facts[i]
}

// bidOn adds the slots a holds on node n to the node's tally (bidVictim).
func (pm *preemptor) bidOn(r *request, a, n, slots int32, cost int64, cl int32) {
	ns := &pm.nscan
	g := &pm.st.groups[pm.st.nodeGroup[n]]
	t := &ns.tally[n]
	if slots == 0 || t.done || g.size < r.slots || !pm.st.matches(g, r) {
		return
	}
	if t.freed == 0 && t.lost == 0 && t.class == 0 {
		ns.touched = append(ns.touched, n)
		t.class = cl
	}
	ns.seen = append(ns.seen, seenVictim{alloc: a, node: n})
	t.freed += slots
	t.lost += cost
	t.class = max(t.class, cl)
	if pm.st.avail(n)+t.freed >= r.slots {
		t.done = true
		ns.bids = append(ns.bids, nodeBid{node: n, class: t.class, lost: t.lost, order: int32(len(ns.bids))})
	}
}

// evictOn evicts the seen victims on node n, in victim order and as the
// rule still allows, until the request fits there.
func (pm *preemptor) evictOn(n int32, r *request, rule *victimRule) ([]NodeSlots, bool) {
	for _, v := range pm.nscan.seen {
		if pm.st.avail(n) >= r.slots {
			break
		}
		if v.node == n && pm.vic.allows(rule, v.alloc) {
			pm.evict(v.alloc, rule)
		}
	}
	if pm.st.avail(n) < r.slots {
		return nil, false
	}
	return pm.st.find(r, pm.p.sc.scratch[:0])
}
