package metrics

import (
	"cmp"
	"slices"
)

// Jain returns Jain's fairness index of xs, (Σx)² ÷ (n Σx²): 1 when every
// x is equal, 1/n when one of n takes everything. An empty slice, or one
// of zeros, is perfectly fair (1): nobody got less than anybody else.
func Jain(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	if s2 == 0 {
		return 1
	}
	return s * s / (float64(len(xs)) * s2)
}

// claim is one demand in a water-filling.
type claim struct {
	demand float64
	idx    int32
}

func byDemand(a, b claim) int {
	if c := cmp.Compare(a.demand, b.demand); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// maxMinFair sets share[c.idx] for every claim to its max-min fair share
// of capacity: equal shares, none above its demand, and what one does not
// need split among the rest. It sorts claims in place.
func maxMinFair(capacity float64, claims []claim, share []float64) {
	slices.SortFunc(claims, byDemand)
	left := capacity
	for i, c := range claims {
		equal := left / float64(len(claims)-i)
		if c.demand <= equal {
			share[c.idx] = c.demand
			left -= c.demand
			continue
		}
		// Every later claim demands at least as much: all get equal.
		for _, r := range claims[i:] {
			share[r.idx] = equal
		}
		return
	}
}

// MaxMinFair returns the max-min fair shares of capacity for demands, in
// the order of demands.
func MaxMinFair(capacity float64, demands []float64) []float64 {
	claims := make([]claim, len(demands))
	for i, d := range demands {
		claims[i] = claim{demand: d, idx: int32(i)}
	}
	share := make([]float64, len(demands))
	maxMinFair(capacity, claims, share)
	return share
}
