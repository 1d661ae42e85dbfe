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
	keys := slices.Grow(vl.keys[:0], len(vl.p.sc.poolRuns[pool]))
	for _, a := range vl.p.sc.poolRuns[pool] {
		keys = append(keys, key(a, &vl.s.Allocs[a]))
	}
	slices.SortFunc(keys, cmpVictimKey)
	v := slices.Grow(vl.list[:0], len(keys))
	for i := range keys {
		v = append(v, keys[i].a)
	}
	vl.keys, vl.list = keys, v
	return v
}
