package sched

import (
	"errors"
	"fmt"
	"math"
)

// Decay says how fast past usage stops counting against an account's fair
// share. The core keeps no state between snapshots, so the caller (the
// master or the simulator) keeps each account's decayed usage and updates
// it between passes with Charge, then passes it in Account.Usage.
//
// Usage is measured as a share of the cluster's capacity over one Period:
// an account that used every slot for a whole period has used 1. Seed 003
// counts usage per day with a decay factor D = 0.7 per day:
//
//	U = u(today) + D·u(today−1) + D²·u(today−2) + ...
//
// which is Decay{Period: 86400, PerPeriod: 0.7}. Slurm's half-life decay is
// Decay{Period: 86400, HalfLife: 7 * 86400}.
type Decay struct {
	// Period is the accounting period in seconds: usage is normalised by
	// the capacity of one period, and PerPeriod applies once per period.
	Period int64
	// PerPeriod multiplies usage once per elapsed period, in (0, 1]; 1
	// means usage never decays. Exactly one of PerPeriod and HalfLife is
	// set.
	PerPeriod float64
	// HalfLife is the half-life, in seconds: usage decays by
	// 2^(−elapsed/HalfLife). The master and the simulator apply it at each
	// period's end (lifecycle.Usage), so a HalfLife shorter than Period
	// does not halve usage after HalfLife (spec.Decay's Warning).
	HalfLife int64
}

// Validate reports a decay that cannot be used, naming the field.
func (d Decay) Validate() error {
	switch {
	case d.Period <= 0:
		return fmt.Errorf("decay: period must be a positive number of seconds, got %d", d.Period)
	case d.HalfLife < 0:
		return fmt.Errorf("decay: half-life must not be negative, got %d", d.HalfLife)
	case d.HalfLife > 0 && d.PerPeriod != 0:
		return errors.New("decay: set either a per-period factor or a half-life, not both")
	case d.HalfLife == 0 && !(d.PerPeriod > 0 && d.PerPeriod <= 1):
		return fmt.Errorf("decay: per-period factor must be in (0, 1], got %v", d.PerPeriod)
	}
	return nil
}

// Factor returns what usage is multiplied by after elapsed seconds:
// PerPeriod^(elapsed/Period), or 2^(−elapsed/HalfLife). Decay over whole
// periods is applied as a plain product, so a day at D = 0.7 gives exactly
// the seed's figures. A non-positive elapsed time, or a decay that does
// not validate, gives 1.
func (d Decay) Factor(elapsed int64) float64 {
	if elapsed <= 0 || d.Validate() != nil {
		return 1
	}
	if d.HalfLife > 0 {
		return math.Exp2(-float64(elapsed) / float64(d.HalfLife))
	}
	if n := elapsed / d.Period; elapsed%d.Period == 0 && n <= 64 {
		// A few whole periods: multiply, as the seed's sum does.
		f := 1.0
		for range n {
			f *= d.PerPeriod
		}
		return f
	}
	return math.Pow(d.PerPeriod, float64(elapsed)/float64(d.Period))
}

// DecayUsage returns usage after elapsed seconds of decay.
func DecayUsage(usage float64, d Decay, elapsed int64) float64 {
	return usage * d.Factor(elapsed)
}

// UsageShare converts slot-seconds used into a share of the capacity of
// one period: seed 003's "used hours / available hours", where a day on
// four nodes offers 96 node-hours and a job on all four for six hours uses
// 24/96 = 0.25. It returns 0 when the capacity is empty.
func UsageShare(slotSeconds float64, capacitySlots int, period int64) float64 {
	if capacitySlots <= 0 || period <= 0 {
		return 0
	}
	return slotSeconds / (float64(capacitySlots) * float64(period))
}

// Charge returns an account's usage after elapsed seconds in which it used
// slotSeconds on a cluster of capacitySlots: the old usage decays and the
// new usage is added undecayed, as the seed counts today's usage. Callers
// that charge often (every pass) get the continuous decay; callers that
// charge once per period get the seed's sum exactly.
func (d Decay) Charge(usage float64, elapsed int64, slotSeconds float64, capacitySlots int) float64 {
	return DecayUsage(usage, d, elapsed) + UsageShare(slotSeconds, capacitySlots, d.Period)
}
