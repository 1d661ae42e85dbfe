package metrics

import (
	"math"
	"slices"
)

// SlowdownBound is the τ of bounded slowdown: runs shorter than this count
// as this long, so that a one-second job that waited a minute does not
// dominate the average with a slowdown of 61.
const SlowdownBound = 10

// BoundedSlowdown is max(1, response / max(run, SlowdownBound)), with
// response = end − submit and run the time the job held slots.
func BoundedSlowdown(response, run int64) float64 {
	return max(1, float64(response)/float64(max(run, SlowdownBound)))
}

// Dist summarises a sample: its mean, nearest-rank percentiles and
// maximum. All fields are 0 for an empty sample.
type Dist struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Summarize sorts xs in place and summarises it.
func Summarize(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return Dist{
		Mean: Round(sum/float64(len(xs)), 3),
		P50:  Round(Percentile(xs, 50), 3),
		P90:  Round(Percentile(xs, 90), 3),
		P99:  Round(Percentile(xs, 99), 3),
		Max:  Round(xs[len(xs)-1], 3),
	}
}

// Percentile returns the nearest-rank p-th percentile of sorted: the
// element at rank ⌈p/100 × n⌉ (1-based), so that at least p% of the
// samples are at or below it. p = 0 gives the minimum. It panics on an
// empty slice.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	rank := int(math.Ceil(p / 100 * float64(n)))
	return sorted[min(max(rank, 1), n)-1]
}

// Quantiles returns the nearest-rank percentiles 0, 100/k, 200/k … 100 of
// sorted (k+1 values), a compact description of its distribution for a
// CDF plot. It returns nil for an empty slice.
func Quantiles(sorted []float64, k int) []float64 {
	if len(sorted) == 0 || k <= 0 {
		return nil
	}
	out := make([]float64, k+1)
	for i := range out {
		out[i] = Round(Percentile(sorted, 100*float64(i)/float64(k)), 3)
	}
	return out
}

// Round rounds x to the given number of decimal digits, half away from
// zero, so that JSON output is short and stable.
func Round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
