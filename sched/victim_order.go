package sched

import "slices"

// The victim lists (victimOrder, shareVictims, quotaVictims) sort every
// running task of a pool on every pass. Their comparators read each
// task's allocation and job, which on a full cluster of 40,000 tasks is a
// cache miss per look; so each task's sort key is computed once into a
// compact array and that is sorted instead. The order is the same: every
// comparator ends on the allocation index, so it is total.

// victimLists holds a pass's victim lists and answers which of their
// candidates a victimRule allows. It owns the sorted list (list, with
// its sort keys), the list's skip pointers (next, see victimRule.next)
// and victimFacts (facts), the index that answers nodeSearch for priority
// and fair-share pools (index, heldPos), and the preemption budget counts
// (preempts per project, allocProject per allocation), which account
// moves as victims are evicted or restored. It reads the snapshot, the
// planning state, the policies' counters (fair share, quota, multifactor
// priorities), the evicted and final marks, and whether the preemption's
// statement is empty (usable), all through the pass; it writes only the
// counters, in account, and the state's dirty-node tracking.
type victimLists struct {
	p    *pass
	list []int32
	keys []victimKey // sortVictims' scratch
	// next holds the skip pointers over list (victimRule.next).
	next []int32
	// facts holds the list's victimFacts (victim_facts.go).
	facts []victimFacts
	// index answers nodeSearch for priority pools (preempt_index.go).
	index   victimIndex
	heldPos []int32
	// preempts is per project the preemptions planned this pass.
	preempts []int32
	// allocProject is each allocation's project, or -1 out of range, so
	// that accounting for thousands of tentative victims reads no job.
	allocProject []int32
}

// victimKey is one task's place in a victim list: major, then minor,
// ascending, then lost ascending, then start and the allocation index
// descending (newest first; see lessLost).
type victimKey struct {
	major, minor, lost, start int64
	a                         int32
}

func cmpVictimKey(x, y victimKey) int {
	switch {
	case x.major != y.major:
		return cmp64(x.major, y.major)
	case x.minor != y.minor:
		return cmp64(x.minor, y.minor)
	case x.lost != y.lost:
		return cmp64(x.lost, y.lost)
	case x.start != y.start:
		return cmp64(y.start, x.start)
	}
	return int(y.a - x.a)
}

// sortVictims orders the pool's running tasks by the key key gives each
// and returns them in the Scheduler's victims list.
func (vl *victimLists) sortVictims(pool int, key func(a int32, al *Alloc) victimKey) []int32 {
	keys := slices.Grow(vl.keys[:0], len(vl.p.sc.poolRuns[pool]))
	for _, a := range vl.p.sc.poolRuns[pool] {
		keys = append(keys, key(a, &vl.p.s.Allocs[a]))
	}
	slices.SortFunc(keys, cmpVictimKey)
	v := slices.Grow(vl.list[:0], len(keys))
	for i := range keys {
		v = append(v, keys[i].a)
	}
	vl.keys, vl.list = keys, v
	return v
}
