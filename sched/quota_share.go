package sched

import (
	"math"
	"slices"
)

// divide gives each project in kids its fair share of capacity, then
// recurses into the children of each. A project deserves its quota (up to
// what it wants); spare slots go to projects that want more, in proportion
// to their over-quota weight. If the quotas themselves add up to more than
// the capacity, the capacity is divided in proportion to quota.
func (q *quotaPass) divide(kids []int32, capacity int32, s *Snapshot) {
	n := len(kids)
	if n == 0 {
		return
	}
	deserved := make([]int32, n) // small: one per sibling
	wants := make([]int32, n)
	weights := make([]float64, n)
	out := make([]int32, n)
	sum := int32(0)
	for i, k := range kids {
		wants[i] = q.demand[k]
		if q.limit[k] > 0 {
			wants[i] = min(wants[i], q.limit[k])
		}
		deserved[i] = min(q.quota[k], wants[i])
		sum += deserved[i]
	}
	if sum > capacity {
		for i, k := range kids {
			weights[i] = float64(q.quota[k])
		}
		fill(deserved, weights, capacity, out)
		for i, k := range kids {
			q.share[k] = out[i]
		}
	} else {
		extra := make([]int32, n)
		for i, k := range kids {
			q.share[k] = deserved[i]
			extra[i] = wants[i] - deserved[i]
			weights[i] = s.Projects[k].OverQuotaWeight
		}
		fill(extra, weights, capacity-sum, out)
		for i, k := range kids {
			q.share[k] += out[i]
		}
	}
	for _, k := range kids {
		q.divide(q.kids[k], q.share[k], s)
	}
}

// fill divides total among items in proportion to weight, each capped at
// its cap, in whole units: the exact continuous water level first, then
// the units left by rounding down go to the largest remainders (ties to the
// lower index). Items with no weight or no cap get nothing.
func fill(caps []int32, weight []float64, total int32, out []int32) {
	n := len(caps)
	x := make([]float64, n)
	idx := make([]int, 0, n)
	sumW := 0.0
	for i := range n {
		out[i] = 0
		if caps[i] > 0 && weight[i] > 0 {
			idx = append(idx, i)
			sumW += weight[i]
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ra, rb := float64(caps[a])/weight[a], float64(caps[b])/weight[b]
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	left := float64(total)
	for k, i := range idx {
		level := left / sumW
		if float64(caps[i]) <= level*weight[i] {
			x[i] = float64(caps[i])
			left -= x[i]
			sumW -= weight[i]
			continue
		}
		for _, r := range idx[k:] {
			x[r] = level * weight[r]
		}
		break
	}
	given := int32(0)
	for _, i := range idx {
		out[i] = int32(math.Floor(x[i] + 1e-9))
		given += out[i]
	}
	rest := total - given
	slices.SortStableFunc(idx, func(a, b int) int {
		fa, fb := x[a]-float64(out[a]), x[b]-float64(out[b])
		switch {
		case fa > fb+1e-12:
			return -1
		case fb > fa+1e-12:
			return 1
		}
		return a - b
	})
	for rest > 0 {
		moved := false
		for _, i := range idx {
			if rest == 0 {
				break
			}
			if out[i] < caps[i] {
				out[i]++
				rest--
				moved = true
			}
		}
		if !moved {
			break
		}
	}
}
