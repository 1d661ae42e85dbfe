package sched

// The window view: placeAt lays each pool node's fewest free slots over
// [t, t+dur) out in the shadow state, where the ordinary placement rules
// run. A gang's search (earliestByTimes) tries moment after moment with
// the same dur, and from one moment to the next only the nodes with a
// breakpoint between them, or between the two windows' ends, see their
// window change; the others keep their slots in the view. Laying out
// every node at every moment (a view of 10,000 nodes, rebuilt up to
// maxTimes times per gang) was most of a conservative pass.

// freshViews, set only by tests, lays every view out from scratch, so
// that plans made by moving views can be compared with plans made without.
var freshViews bool

// windowView says which window the shadow state holds, and when that is
// still so: while the shadow (state.changes) and the node profile
// (nodeProfile.version) are as they were when it was laid out, for a
// search with the same dur from at on.
type windowView struct {
	ok      bool
	changes uint64
	version uint64
	at, dur int64
}

// layView makes the shadow state hold the window [t, t+dur) of every node
// of the pool, with nothing draining: from the view it holds when that is
// a window of the same length starting no later, moving only the nodes
// whose window changed, found in a heap by when they are due; else laid
// out from scratch. Both give the same state: a node's fewest free slots
// depend only on which of its steps the window meets, and that changes
// only when t passes its next breakpoint or the window's end passes the
// first one at or after the old end (dueAt).
func (np *nodeProfile) layView(t, dur int64) {
	sh := &np.p.sc.shadow
	end := addTime(t, dur)
	v := &np.view
	if !freshViews && v.ok && v.changes == sh.changes && v.version == np.version && v.dur == dur &&
		t >= v.at && t != Never {
		np.moveView(sh, t, end, dur)
		np.viewMoves++
	} else {
		np.due = np.due[:0]
		for _, gi := range np.st.poolGroups[np.pool] {
			g := &sh.groups[gi]
			for _, n := range g.nodes {
				m, next, nextEnd := np.windowNext(n, t, end)
				sh.free[n], sh.drain[n] = m, 0
				np.due = append(np.due, viewDue{at: dueAt(next, nextEnd, dur), n: n})
			}
			sh.index(g)
		}
		heapify(np.due, len(np.due))
	}
	*v = windowView{ok: true, changes: sh.changes, version: np.version, at: t, dur: dur}
}

// viewDue is a node of the view and the first start at which its window
// meets other steps; dueHeap keeps them, earliest first.
type viewDue struct {
	at int64
	n  int32
}

type dueHeap []viewDue

func (h dueHeap) less(i, k int) bool { return h[i].at < h[k].at }
func (h dueHeap) swap(i, k int)      { h[i], h[k] = h[k], h[i] }

// dueAt is the first start, for windows of length dur, at which a window
// passes next (the node's first breakpoint after the window's start) or
// reaches nextEnd (its first at or after the window's end): the end
// t+dur passes nextEnd once t > nextEnd-dur. A window ending at Never
// never does.
func dueAt(next, nextEnd, dur int64) int64 {
	if nextEnd != Never && dur != Never && nextEnd-dur+1 < next {
		return nextEnd - dur + 1
	}
	return next
}

// moveView moves the view to [t, end): only the nodes due by t are
// looked at again, each then due later than t.
func (np *nodeProfile) moveView(sh *state, t, end, dur int64) {
	h := np.due
	for len(h) > 0 && h[0].at <= t {
		n := h[0].n
		m, next, nextEnd := np.windowNext(n, t, end)
		h[0].at = dueAt(next, nextEnd, dur)
		siftDown(h, 0, len(h))
		if old := sh.free[n]; m != old {
			sh.free[n] = m
			sh.move(&sh.groups[sh.nodeGroup[n]], sh.nodePos[n], old, m)
		}
	}
}

// windowNext is node n's fewest free slots over [from, to), its first
// breakpoint after from and its first at or after to (Never for none).
// Searches whose start times only grow (earliestByTimes, after
// resetCursors) move each node's cursor forward to the step holding from
// instead of searching for it.
func (np *nodeProfile) windowNext(n int32, from, to int64) (m int32, next, nextEnd int64) {
	st := np.steps[n]
	i := int(np.cursor[n])
	if i < len(st) && st[i].at <= from {
		for i+1 < len(st) && st[i+1].at <= from {
			i++
		}
		np.cursor[n] = int32(i)
	} else {
		i = np.stepAt(n, from) // not a forward search
	}
	m, next, nextEnd = st[i].free, Never, Never
	if i+1 < len(st) {
		next = st[i+1].at
	}
	for i++; i < len(st) && st[i].at < to; i++ {
		m = min(m, st[i].free)
	}
	if i < len(st) {
		nextEnd = st[i].at
	}
	return m, next, nextEnd
}
