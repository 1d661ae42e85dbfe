package sched

import "slices"

// Conservative backfilling must know where, not only when, a reservation
// lands. Counting slots (profile) is exact on single-slot nodes, the
// textbook setting, but on 8-GPU nodes it both promises starts that no
// node can hold (a fragmented count: the reservation then slips to a later
// pass) and refuses starts that fit in a gap nobody reserved (the count is
// short somewhere in the window, on other nodes). nodeProfile keeps each
// node's free slots over time instead, and a reservation is a placement:
// the nodes the task will use from its start to its time limit. A pool
// with any node larger than one slot, or of several kinds, uses it; a pool
// of alike single-slot nodes keeps the count, which is the same and faster.

// nodeStep: a node has free slots from at until the next step.
type nodeStep struct {
	at   int64
	free int32
}

// heldResv is a job's reservation in this pass: its placement is
// resv[lo:hi] from at for dur. gen tells this pass's entries from stale
// ones without clearing the slice.
type heldResv struct {
	gen     uint32
	at, dur int64
	lo, hi  int32
}

// nodeProfile is conservative backfill's per-node profile for the pool
// being planned: it owns each node's free slots over time, the
// reservations held in it this pass, and the placement its searches last
// found. It reads the snapshot, the planning state, the pool's slot-count
// profile (for its releases) and the license profiles; it plans placements
// on the Scheduler's shadow state, which it writes.
type nodeProfile struct {
	p *pass
	// s and st are the pass's snapshot and planning state.
	s     *Snapshot
	st    *state
	on    bool
	pool  int
	steps [][]nodeStep // by snapshot node index; only the pool's nodes
	times []int64      // every node's breakpoints, sorted, unique
	found []NodeSlots  // the placement the last earliestNodes found
	resv  []NodeSlots
	held  []heldResv // by job
	gen   uint32
	// stepGen is the gen in which each node's steps were laid out: a
	// node of another pool (a running task on a node that a reload moved
	// to another pool) has none this pass and is left out.
	stepGen []uint32
	// lifted is the placement of the promise the current job was lifted
	// out of, at liftedAt: still free for it, so its new reservation is
	// never later (earliestNodes).
	lifted   []NodeSlots
	liftedAt int64
	cursor   []int32 // windowNext's position in each node's steps
	// version counts the changes of steps, for the window view (view,
	// nodeview.go) laid out in the shadow state, with the pool's nodes by
	// when their window changes (due).
	version   uint64
	view      windowView
	due       dueHeap
	viewMoves uint64 // views moved rather than laid out (tests)
}

// usesNodes reports whether a pool needs the per-node profile.
func (np *nodeProfile) usesNodes(pool int) bool {
	gs := np.st.poolGroups[pool]
	return len(gs) > 1 || (len(gs) == 1 && np.st.groups[gs[0]].size > 1)
}

// buildNodeProfile starts every node of the pool from its slots available
// now and adds back each running task's slots at its time limit, like
// buildProfile does with counts (whose releases it reuses).
func (np *nodeProfile) buildNodeProfile(pool int) {
	np.on, np.pool = np.usesNodes(pool), pool
	if !np.on {
		return
	}
	np.gen++
	np.version++
	np.resv = np.resv[:0]
	np.held = resizeKeep(np.held, len(np.s.Jobs))
	for len(np.steps) < len(np.s.Nodes) {
		np.steps = append(np.steps, nil)
	}
	np.stepGen = resizeKeep(np.stepGen, len(np.s.Nodes))
	np.times = append(np.times[:0], np.s.Now)
	np.resetCursors(len(np.s.Nodes))
	for _, gi := range np.st.poolGroups[pool] {
		for _, n := range np.st.groups[gi].nodes {
			np.steps[n] = append(np.steps[n][:0], nodeStep{at: np.s.Now, free: np.st.avail(n)})
			np.stepGen[n] = np.gen
		}
	}
	for _, e := range np.p.sc.profile.ends {
		for _, ns := range e.nodes {
			if ns.Slots > 0 && np.stepGen[ns.Node] == np.gen && !np.s.Nodes[ns.Node].Drained {
				np.add(ns.Node, e.at, Never, ns.Slots)
			}
		}
	}
	// Per-pass scratch that the Scheduler's shadow state holds: the window view.
	np.p.sc.shadow.copyFrom(np.st)
}

// resizeKeep grows s to n entries without clearing what it holds.
func resizeKeep[T any](s []T, n int) []T {
	if cap(s) < n {
		return append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

// add adds k slots to node n over [from, to) (to may be Never).
func (np *nodeProfile) add(n int32, from, to int64, k int32) {
	np.version++
	i := np.split(n, from)
	j := len(np.steps[n])
	if to != Never {
		j = np.split(n, to)
	}
	for ; i < j; i++ {
		np.steps[n][i].free += k
	}
}

// split makes t a breakpoint of node n and returns its index.
func (np *nodeProfile) split(n int32, t int64) int {
	st := np.steps[n]
	i, found := slices.BinarySearchFunc(st, t, func(s nodeStep, t int64) int { return cmp64(s.at, t) })
	if found {
		return i
	}
	np.steps[n] = slices.Insert(st, i, nodeStep{at: t, free: st[i-1].free})
	if k, ok := slices.BinarySearch(np.times, t); !ok {
		np.times = slices.Insert(np.times, k, t)
	}
	return i
}

// resetCursors starts windowNext's cursors over at the first step.
func (np *nodeProfile) resetCursors(nodes int) {
	np.cursor = resize(np.cursor, nodes)
}

// windowMin is node n's fewest free slots over [from, to).
func (np *nodeProfile) windowMin(n int32, from, to int64) int32 {
	st := np.steps[n]
	i := np.stepAt(n, from)
	m := st[i].free
	for i++; i < len(st) && st[i].at < to; i++ {
		m = min(m, st[i].free)
	}
	return m
}

// stepAt is the index of node n's step holding t.
func (np *nodeProfile) stepAt(n int32, t int64) int {
	i, found := slices.BinarySearchFunc(np.steps[n], t, func(s nodeStep, t int64) int { return cmp64(s.at, t) })
	if !found {
		i-- // t lies inside step i-1; never before the first step
	}
	return i
}

// placeAt finds a placement of one task of j that stays free over
// [t, t+dur), leaving it in np.found: the window's free slots per node go
// into the shadow state, where the ordinary placement rules run.
func (np *nodeProfile) placeAt(j int32, slots int32, t, dur int64) bool {
	np.layView(t, dur)
	r := np.p.request(j, true)
	r.slots = slots
	nodes, ok := np.p.sc.shadow.find(&r, np.found[:0])
	np.found = nodes
	return ok
}

// placeNow is placeAt for a start now, without building the window view
// of every node: the ordinary placement on the slots available now, kept
// when every node it uses also stays free for the whole window (no later
// reservation there). On a cluster with room most jobs start this way; a
// refusal falls back to placeAt.
func (np *nodeProfile) placeNow(j int32, slots int32, dur int64) bool {
	r := np.p.request(j, true)
	r.slots = slots
	nodes, ok := np.st.find(&r, np.found[:0])
	np.found = nodes
	if !ok {
		return false
	}
	end := addTime(np.s.Now, dur)
	for _, ns := range nodes {
		if np.windowMin(ns.Node, np.s.Now, end) < ns.Slots {
			return false
		}
	}
	return true
}

// earliestNodes finds the first time from t on at which a placement of
// the task stays free for dur, given the count (and license) profile's
// earliest time as a lower bound; the placement is left in np.found.
func (np *nodeProfile) earliestNodes(j int32, slots int32, dur int64) int64 {
	t := np.p.lic.earliestAll(j, int64(slots), dur)
	if t == np.s.Now && np.placeNow(j, slots, dur) {
		return t
	}
	r := np.p.request(j, true)
	r.slots = slots
	var at int64
	if np.st.oneNode(&r) {
		at = np.earliestOneNode(j, &r, dur, t)
	}
	if at == Never || !np.st.oneNode(&r) {
		at = np.earliestByTimes(j, slots, dur, t)
	}
	if np.lifted != nil && np.liftedAt < at {
		// The promise it was lifted from is still free: keep it.
		np.found = append(np.found[:0], np.lifted...)
		return np.liftedAt
	}
	return at
}

// maxTimes caps the moments earliestByTimes tries, each a view of every
// node: a gang on a busy cluster of 10,000 nodes could otherwise try
// thousands. Past it the gang gets no reservation this pass (or keeps its
// promise).
const maxTimes = 64

// earliestByTimes tries each moment from t on at which some node's
// availability changes (and the count and licenses allow it) until a
// placement stays free for dur: for gangs, which span nodes.
func (np *nodeProfile) earliestByTimes(j int32, slots int32, dur, t int64) int64 {
	np.resetCursors(len(np.s.Nodes))
	for tries := 0; t != Never && tries < maxTimes; tries++ {
		if np.placeAt(j, slots, t, dur) {
			return t
		}
		k, found := slices.BinarySearch(np.times, t)
		if found {
			k++
		}
		if k == len(np.times) {
			return Never
		}
		t = np.p.lic.earliestAllFrom(j, int64(slots), dur, np.times[k])
	}
	return Never
}

// earliestOneNode finds, for a task that fits one node, the first time
// from t on at which some node keeps its slots free for dur, node by node
// (one walk over each node's steps, not a view of every node per moment);
// among nodes free at that time the best fit (or the emptiest, for
// spread), ties to the lower index. The count and licenses must agree on
// the time, else the search goes on from theirs.
func (np *nodeProfile) earliestOneNode(j int32, r *request, dur, t int64) int64 {
	for t != Never {
		best, bestAt, bestF := int32(-1), Never, int32(0)
		for _, gi := range np.st.poolGroups[np.pool] {
			g := &np.st.groups[gi]
			if g.size < r.slots || !np.st.matches(g, r) {
				continue
			}
			for _, n := range g.nodes {
				at, f := np.nodeEarliest(n, r.slots, dur, t)
				if at < bestAt || (at == bestAt && at != Never && np.st.better(r, f, n, bestF, best)) {
					best, bestAt, bestF = n, at, f
				}
			}
		}
		if best < 0 {
			return Never
		}
		if t2 := np.p.lic.earliestAllFrom(j, int64(r.slots), dur, bestAt); t2 != bestAt {
			t = t2 // the count or a license is short then: look later
			continue
		}
		np.found = append(np.found[:0], NodeSlots{Node: best, Slots: r.slots})
		return bestAt
	}
	return Never
}

// nodeEarliest is the first time from t on at which node n keeps k slots
// free for dur, and the fewest it has free over that window, or Never.
func (np *nodeProfile) nodeEarliest(n int32, k int32, dur, t int64) (int64, int32) {
	st := np.steps[n]
	i, found := slices.BinarySearchFunc(st, t, func(s nodeStep, t int64) int { return cmp64(s.at, t) })
	if !found {
		i--
	}
	start := t
	for i < len(st) {
		if st[i].free < k {
			i++
			if i < len(st) {
				start = st[i].at
			}
			continue
		}
		end := addTime(start, dur)
		m, q := st[i].free, i+1
		for ; q < len(st) && st[q].at < end; q++ {
			if st[q].free < k {
				break
			}
			m = min(m, st[q].free)
		}
		if q < len(st) && st[q].at < end {
			i = q // too few free at step q: start after it
			continue
		}
		return start, m
	}
	return Never, 0
}

// hold records j's reservation of np.found at at for dur and takes it
// from the node profile.
func (np *nodeProfile) hold(j int32, at, dur int64) {
	lo := int32(len(np.resv))
	np.resv = append(np.resv, np.found...)
	np.held[j] = heldResv{gen: np.gen, at: at, dur: dur, lo: lo, hi: int32(len(np.resv))}
	for _, ns := range np.found {
		np.add(ns.Node, at, addTime(at, dur), -ns.Slots)
	}
}

// unhold gives j's reservation back to the node profile and returns it.
func (np *nodeProfile) unhold(j int32) []NodeSlots {
	h := &np.held[j]
	if h.gen != np.gen {
		return nil
	}
	h.gen = 0
	nodes := np.resv[h.lo:h.hi]
	for _, ns := range nodes {
		np.add(ns.Node, h.at, addTime(h.at, h.dur), ns.Slots)
	}
	return nodes
}

// promiseNodes puts back the placement a job was promised by the previous
// pass (Job.ReservedNodes) when it still fits there, or else any placement
// that fits at the promised time; it reports false when neither does, and
// the job is then placed like a new one.
func (np *nodeProfile) promiseNodes(j int32, at, dur int64, slots int32) bool {
	job := &np.s.Jobs[j]
	if np.promisedFits(job, at, dur, slots) {
		np.found = append(np.found[:0], job.ReservedNodes...)
	} else if !np.placeAt(j, slots, at, dur) {
		return false
	}
	np.hold(j, at, dur)
	return true
}

// promisedFits reports whether the job's carried placement is one task's
// worth of the pool's nodes, all free over the window.
func (np *nodeProfile) promisedFits(job *Job, at, dur int64, slots int32) bool {
	if len(job.ReservedNodes) == 0 || Slots(job.ReservedNodes) != int(slots) {
		return false
	}
	end := addTime(at, dur)
	for _, ns := range job.ReservedNodes {
		if ns.Node < 0 || int(ns.Node) >= len(np.s.Nodes) || np.s.Nodes[ns.Node].Pool != np.pool ||
			ns.Slots <= 0 || np.windowMin(ns.Node, at, end) < ns.Slots {
			return false
		}
	}
	return true
}
