package sched

import "slices"

// The victim lists (victimOrder, shareVictims, quotaVictims) sort every
// running task of a pool on every pass. Their comparators read each
// task's allocation and job, which on a full cluster of 40,000 tasks is a
// cache miss per look; so each task's sort key is computed once into a
// compact array and that is sorted instead. The order is the same: every
// comparator ends on the allocation index, so it is total.

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
// and returns them in the victim lists' list.
func (vl *victimLists) sortVictims(pool int, key func(a int32, al *Alloc) victimKey) []int32 {
	sc := vl.p.sc
	runs := sc.poolRuns[pool]
	keys := slices.Grow(vl.keys[:0], len(runs))
	vl.keyPos = resize(vl.keyPos, len(vl.s.Allocs))
	for i, a := range runs {
		keys = append(keys, key(a, &vl.s.Allocs[a]))
		vl.keyPos[a] = int32(i)
	}
	v := append(vl.list[:0], runs...)
	vl.keys = keys
	cmp := func(a, b int32) int { return cmpVictimKey(keys[vl.keyPos[a]], keys[vl.keyPos[b]]) }
	sc.orders.sort(pool*listKinds+listVictims, v, len(vl.s.Allocs), sc.allocs.newOf, cmp, vl.sortKeys)
	vl.list = v
	return v
}

// sortKeys sorts v, the allocations keyed in keys (in that order), by
// their keys: a sort of the compact keys reads no allocation.
func (vl *victimLists) sortKeys(v []int32) {
	keys := vl.keys
	slices.SortFunc(keys, cmpVictimKey)
	for i := range keys {
		v[i] = keys[i].a
	}
}
