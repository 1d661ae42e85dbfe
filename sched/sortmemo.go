package sched

import "slices"

// A pass sorts long lists that a small change barely moves: every
// running task of a pool as victims (40,000 on a full cluster, priority,
// fair share, quota and multifactor) or as movers for consolidation (by
// node), a multifactor pool's queue (100,000 jobs). orderMemo keeps each sorted list from the previous pass and
// repairs it instead of sorting again: the kept items still in the list
// are taken in their old order, those now out of order and the new ones
// are sorted apart and merged in.
//
// Why this gives exactly the plan a fresh sort gives, whatever was kept:
// the repaired list holds every current item once (kept items are
// matched to current ones one to one and checked to be in the list; the
// rest are added), and it is accepted only when every neighbour pair
// compares strictly less. With a comparator that is a strict weak order
// (every one here is), a strictly increasing list is the one order the
// items can be sorted in, the order any sort gives. A list with a tie is
// refused and sorted as before, since a sort may break a tie by where
// the items started. So what is kept, and how items are matched to the
// previous pass's (by Job.Rev, allocations by job and start), only
// decides how much work the repair saves, never the result.

// orderMemo holds the previous pass's sorted lists, each under a slot
// (a pool and a list kind), in the previous pass's indices.
type orderMemo struct {
	prev, cur [][]int32
	// prevOK and curOK say which slots hold a list.
	prevOK, curOK []bool
	// stamp marks, per current item, whether it is in the list being
	// repaired (at) or already taken (at+1); at grows by 2 per repair so
	// that stamp is never cleared.
	stamp       []uint32
	at          uint32
	kept, fresh []int32
	merged      []int32
	// relPos, relIDs and relOut are sortReleases' scratch.
	relPos, relIDs []int32
	relOut         []release
	// repaired counts the lists repaired rather than sorted, so that the
	// tests can tell that they exercised the repair.
	repaired int
}

// List kinds: a pool's slot is pool*listKinds + kind.
const (
	listVictims = iota
	listMFJobs
	listMFZero
	listFSFirst
	listReleases
	listProfile
	listMovers
	listKinds
)

// begin sizes the memo for a pass with pools pools.
func (om *orderMemo) begin(pools int) {
	n := pools * listKinds
	om.cur = resizeLists(om.cur, n)
	om.curOK = resize(om.curOK, n)
	clear(om.curOK)
}

// end makes this pass's lists the previous ones.
func (om *orderMemo) end() {
	om.prev, om.cur = om.cur, om.prev
	om.prevOK, om.curOK = om.curOK, om.prevOK
}

// drop forgets the kept lists, as after a failed pass.
func (om *orderMemo) drop() { clear(om.prevOK) }

// sort sorts items (current indices below n) in place by cmp, as
// slices.SortFunc(items, cmp) would, and keeps the result under slot for
// the next pass. newOf maps the previous pass's indices to current ones
// (-1: gone); nil means nothing matches. sorter, when not nil, is the
// full sort used when the kept list cannot be repaired (it must give
// slices.SortFunc's result).
func (om *orderMemo) sort(slot int, items []int32, n int, newOf []int32, cmp func(a, b int32) int, sorter func([]int32)) {
	if !om.repair(slot, items, n, newOf, cmp) {
		if sorter != nil {
			sorter(items)
		} else {
			slices.SortFunc(items, cmp)
		}
	}
	if slot < len(om.cur) {
		om.cur[slot] = append(om.cur[slot][:0], items...)
		om.curOK[slot] = true
	}
}

// repair writes into items the previous list of slot, repaired, and
// reports whether that list is the sorted one (else items is unchanged).
func (om *orderMemo) repair(slot int, items []int32, n int, newOf []int32, cmp func(a, b int32) int) bool {
	if newOf == nil || slot >= len(om.prevOK) || !om.prevOK[slot] || len(items) < 2 {
		return false
	}
	om.stamp = resizeKeep(om.stamp, n) // older stamps never equal at or at+1
	if om.at >= 1<<31 {
		clear(om.stamp[:cap(om.stamp)])
		om.at = 0
	}
	om.at += 2
	in, taken := om.at, om.at+1
	for _, it := range items {
		om.stamp[it] = in
	}
	kept, fresh := om.kept[:0], om.fresh[:0]
	for _, o := range om.prev[slot] {
		if int(o) >= len(newOf) {
			continue
		}
		it := newOf[o]
		if it < 0 || int(it) >= n || om.stamp[it] != in {
			continue
		}
		om.stamp[it] = taken
		// An item that no longer follows the last kept one is sorted
		// again with the new ones.
		if len(kept) > 0 && cmp(kept[len(kept)-1], it) >= 0 {
			fresh = append(fresh, it)
			continue
		}
		kept = append(kept, it)
	}
	om.kept = kept
	if len(kept) < len(items)/2 {
		om.fresh = fresh
		return false // mostly new: a plain sort costs less
	}
	for _, it := range items {
		if om.stamp[it] == in {
			fresh = append(fresh, it)
		}
	}
	om.fresh = fresh
	slices.SortFunc(fresh, cmp)
	out := slices.Grow(om.merged[:0], len(items))
	i, k := 0, 0
	for i < len(kept) && k < len(fresh) {
		c := cmp(kept[i], fresh[k])
		switch {
		case c == 0:
			om.merged = out
			return false // a tie: sort as before
		case c < 0:
			out = append(out, kept[i])
			i++
		default:
			out = append(out, fresh[k])
			k++
		}
	}
	out = append(append(out, kept[i:]...), fresh[k:]...)
	om.merged = out
	for i := 1; i < len(fresh); i++ {
		if cmp(fresh[i-1], fresh[i]) >= 0 {
			return false // a tie among the new ones
		}
	}
	copy(items, out)
	om.repaired++
	return true
}

// allocMatch pairs the previous pass's allocations with this pass's, for
// the kept victim lists: the snapshot gives allocations no identity, so
// an allocation is taken for the same task when its job (matched by Rev,
// else by index) and its start are the same, looking a little ahead for
// allocations that ended. A wrong pair costs only the repair's saving
// (see orderMemo).
type allocMatch struct {
	prevJob, curJob     []int32
	prevStart, curStart []int64
	// newOf is each previous allocation's index in this pass, or -1.
	newOf []int32
}

// begin matches s's allocations with the previous pass's; jobOld maps
// this pass's job indices to the previous pass's, or is nil when jobs
// keep their indices.
func (am *allocMatch) begin(s *Snapshot, jobOld []int32) {
	n := len(s.Allocs)
	am.curJob = resize(am.curJob, n)
	am.curStart = resize(am.curStart, n)
	am.newOf = resize(am.newOf, len(am.prevJob))
	for i := range am.newOf {
		am.newOf[i] = -1
	}
	o := 0
	for i := range s.Allocs {
		al := &s.Allocs[i]
		j := int32(al.Job)
		if jobOld != nil {
			j = jobOld[al.Job]
		}
		am.curJob[i], am.curStart[i] = int32(al.Job), al.Start
		if j < 0 {
			continue
		}
		for k := o; k < len(am.prevJob) && k < o+lookahead; k++ {
			if am.prevJob[k] == j && am.prevStart[k] == al.Start {
				am.newOf[k] = int32(i)
				o = k + 1
				break
			}
		}
	}
}

// end keeps this pass's allocations for the next match.
func (am *allocMatch) end() {
	am.prevJob, am.curJob = am.curJob, am.prevJob
	am.prevStart, am.curStart = am.curStart, am.prevStart
}

// drop forgets the previous allocations.
func (am *allocMatch) drop() {
	am.prevJob, am.prevStart = am.prevJob[:0], am.prevStart[:0]
}

// sortReleases sorts releases by time, keeping the list's order among
// equal times, as slices.SortStableFunc does (a stable sort of the
// 40,000 releases of a full cluster, symMerge, took half of an EASY pass;
// numbering them and sorting by time then number gives the same order
// several times faster), and keeps the order under slot for the next pass
// to repair. A release of an allocation is known by the allocation's
// index (matched to the previous pass's by newOf, over nAllocs
// allocations); any other by its place, after them, which matches
// nothing.
func (om *orderMemo) sortReleases(slot int, ends []release, nAllocs int, newOf []int32) {
	n := nAllocs + len(ends)
	om.relPos = resize(om.relPos, n)
	ids := om.relIDs[:0]
	for i := range ends {
		ends[i].ord = int32(i)
		id := int32(nAllocs + i)
		if ends[i].from > 0 {
			id = ends[i].from - 1
		}
		om.relPos[id] = int32(i)
		ids = append(ids, id)
	}
	om.relIDs = ids
	pos := om.relPos
	sorted := false // by the plain sort, ends itself
	om.sort(slot, ids, n, newOf, func(a, b int32) int {
		pa, pb := pos[a], pos[b]
		if ea, eb := ends[pa].at, ends[pb].at; ea != eb {
			return cmp64(ea, eb)
		}
		return int(pa - pb)
	}, func(ids []int32) {
		slices.SortFunc(ends, func(a, b release) int {
			if a.at != b.at {
				return cmp64(a.at, b.at)
			}
			return int(a.ord - b.ord)
		})
		for i := range ends {
			ids[i] = int32(nAllocs) + ends[i].ord
			if ends[i].from > 0 {
				ids[i] = ends[i].from - 1
			}
		}
		sorted = true
	})
	if sorted {
		return
	}
	out := slices.Grow(om.relOut[:0], len(ends))
	for _, id := range ids {
		out = append(out, ends[pos[id]])
	}
	copy(ends, out)
	om.relOut = out[:0]
}
