package lifecycle

import (
	"slices"

	"github.com/allot-sched/allot/sched"
)

// Usage keeps each key's decayed usage for fair share: a share of the
// capacity of one period (sched.UsageShare), counted per period (see the
// package comment). A key is whatever the caller charges: the simulator
// charges accounts by index, the master (pool, project, user) leaves.
//
// It is driven in either or both of two ways. A caller that knows what
// each key holds (the simulator) calls Hold when holdings change and
// Advance to move time on; a caller that learns usage afterwards, as
// records of slot-seconds over an interval (the master), calls Charge.
// Both end in the same per-period sums.
type Usage[K comparable] struct {
	decay    sched.Decay
	capacity int
	cmp      func(a, b K) int
	keys     []K       // sorted by cmp: sums go in this order
	index    map[K]int // key → position in keys
	u        []float64 // per key: usage up to at, in shares of one period's capacity
	held     []float64 // per key: slots held from at on
	holding  int       // keys with held ≠ 0
	at       int64     // usage counts everything before at
}

// NewUsage returns an empty ledger that decays by d and measures usage
// against capacity slots (1 gives slot-periods, for a caller that divides
// by its capacity later). Time starts at start. d must validate.
func NewUsage[K comparable](d sched.Decay, capacity int, start int64, cmp func(a, b K) int) *Usage[K] {
	return &Usage[K]{decay: d, capacity: capacity, cmp: cmp, index: map[K]int{}, at: start}
}

// Keys lists the keys in their order; the caller must not change it.
func (l *Usage[K]) Keys() []K { return l.keys }

// setCapacity measures usage against capacity slots from At on: what
// was counted so far becomes a share of it.
func (l *Usage[K]) setCapacity(capacity int) {
	f := float64(l.capacity) / float64(capacity)
	for i := range l.u {
		l.u[i] *= f
	}
	l.capacity = capacity
}

// Get returns k's usage as of At (0 for a key never charged).
func (l *Usage[K]) Get(k K) float64 {
	if i, ok := l.index[k]; ok {
		return l.u[i]
	}
	return 0
}

// slot returns k's position, adding k in its order if it is new.
func (l *Usage[K]) slot(k K) int {
	if i, ok := l.index[k]; ok {
		return i
	}
	i, _ := slices.BinarySearchFunc(l.keys, k, l.cmp)
	l.keys = slices.Insert(l.keys, i, k)
	l.u = slices.Insert(l.u, i, 0)
	l.held = slices.Insert(l.held, i, 0)
	for j := i; j < len(l.keys); j++ {
		l.index[l.keys[j]] = j
	}
	return i
}

// Add puts usage u (already a share, counted as of At) on k: a starting
// balance, such as a scenario's account usage at time 0.
func (l *Usage[K]) Add(k K, u float64) {
	l.u[l.slot(k)] += u
}

// Hold changes the slots k holds from At on by slots. Call Advance to the
// time of the change first.
func (l *Usage[K]) Hold(k K, slots int) {
	i := l.slot(k)
	was := l.held[i] != 0
	l.held[i] += float64(slots)
	if now := l.held[i] != 0; now != was {
		if now {
			l.holding++
		} else {
			l.holding--
		}
	}
}

// Advance moves the ledger to time t: what keys hold is charged, and at
// every period's end all usage decays once. Periods in which nothing is
// held only decay, in one step. A t at or before At changes nothing.
func (l *Usage[K]) Advance(t int64) {
	period := l.decay.Period
	for l.at < t {
		end := periodOf(l.at, period)*period + period // the end of the current period
		if end > t {
			l.chargeHeld(t - l.at)
			l.at = t
			return
		}
		l.chargeHeld(end - l.at)
		l.decayAll(period)
		l.at = end
		if k := (t - end) / period; k > 0 && l.holding == 0 {
			l.decayAll(k * period)
			l.at += k * period
		}
	}
}

// chargeHeld adds dt seconds of what each key holds, in the current
// period, so it counts in full.
func (l *Usage[K]) chargeHeld(dt int64) {
	if l.holding == 0 || dt <= 0 {
		return
	}
	for i, h := range l.held {
		if h != 0 {
			l.u[i] += sched.UsageShare(h*float64(dt), l.capacity, l.decay.Period)
		}
	}
}

// decayAll decays every key's usage over elapsed seconds of ended periods.
func (l *Usage[K]) decayAll(elapsed int64) {
	f := l.decay.Factor(elapsed)
	for i := range l.u {
		l.u[i] *= f
	}
}

// Charge adds slotSeconds used evenly over [from, to) to k: a usage record.
// The ledger first advances to to. Each period's part of the record is
// decayed once per period that ended since, so records may come late or
// out of order, and one record gives what many shorter ones do.
func (l *Usage[K]) Charge(k K, from, to int64, slotSeconds float64) {
	l.Advance(to)
	i := l.slot(k)
	l.u[i] += Worth(l.decay, l.capacity, from, to, slotSeconds, l.at)
}

// Worth is what slotSeconds used evenly over [from, to) count at time now,
// as a share of capacity slots over one period: each period's part counts
// in full in its period and decays once per period that ended before now.
// Parts after now count in full. A record with to ≤ from counts at to.
func Worth(d sched.Decay, capacity int, from, to int64, slotSeconds float64, now int64) float64 {
	period := d.Period
	cur := periodOf(now, period)
	pf, pt := periodOf(from, period), periodOf(max(to-1, from), period)
	if to <= from || pf == pt {
		// One period: no split, so the share is exactly the record's.
		return sched.UsageShare(slotSeconds, capacity, period) * d.Factor(max(cur-pt, 0)*period)
	}
	var sum float64
	rate := slotSeconds / float64(to-from)
	for p := pf; p <= pt; p++ {
		a, b := max(from, p*period), min(to, (p+1)*period)
		sum += sched.UsageShare(rate*float64(b-a), capacity, period) * d.Factor(max(cur-p, 0)*period)
	}
	return sum
}

// periodOf is the period holding time t: ⌊t / period⌋, also for t < 0.
func periodOf(t, period int64) int64 {
	p := t / period
	if t%period != 0 && t < 0 {
		p--
	}
	return p
}
