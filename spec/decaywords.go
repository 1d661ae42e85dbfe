package spec

import (
	"fmt"
	"time"
)

// WarningOf says of a decay that is valid but likely not meant why, and
// what to write instead; "" when there is nothing to say. A half-life
// shorter than the period still decays usage only at each period's end
// (periods run from the Unix epoch): with half_life 1h and the default
// 24h period, a job's usage counts in full until midnight UTC and is then
// all but forgotten at once, not halved after an hour as the name says
// (trial 2026-11-29i I25). The fix is a period no longer than the
// half-life: an hour where the half-life is an hour or more (Slurm
// recalculates every five minutes; a shorter period also measures usage
// against a shorter period's capacity, config.md's Decay). periodSet
// says the decay section gives its period (Cluster.DecayPeriodSet): only
// where it does not is the period called "(the default)" (trial
// 2026-11-29j J6).
func (d Decay) WarningOf(periodSet bool) string {
	if d.HalfLife <= 0 || d.Period <= 0 || d.HalfLife >= d.Period {
		return ""
	}
	period, half := span(d.Period), span(d.HalfLife)
	when := ""
	if d.Period == DefaultDecay.Period {
		when = " (00:00 UTC)"
	}
	if !periodSet && d.Period == DefaultDecay.Period {
		period += " (the default)"
	}
	fix := "set period: 1h for hourly decay"
	if d.HalfLife < 3600 {
		fix = fmt.Sprintf("set period: %s for decay every %s", half, half)
	}
	return fmt.Sprintf("decay: half_life %s is shorter than the period, %s: usage decays only at each period's end%s, "+
		"all at once, and counts in full until then; %s", half, period, when, fix)
}

// Words says how usage decays under d, for users, who cannot read the
// configuration: "usage halves every 168h, applied at each 24h period's
// end" or "usage is multiplied by 0.7 at each 24h period's end"; ""
// for a decay that does not validate.
func (d Decay) Words() string {
	if d.Sched().Validate() != nil {
		return ""
	}
	if d.HalfLife > 0 {
		return fmt.Sprintf("usage halves every %s, applied at each %s period's end", span(d.HalfLife), span(d.Period))
	}
	if d.PerPeriod == 1 {
		return fmt.Sprintf("usage never decays (counted per %s period)", span(d.Period))
	}
	return fmt.Sprintf("usage is multiplied by %v at each %s period's end", d.PerPeriod, span(d.Period))
}

// NextDecay is the seconds from now (Unix seconds) to the end of the
// period it falls in, when usage next decays: periods run from the Unix
// epoch. 0 for a period that is not positive.
func (d Decay) NextDecay(now int64) int64 {
	if d.Period <= 0 {
		return 0
	}
	rem := now % d.Period
	if rem < 0 {
		rem += d.Period
	}
	return d.Period - rem
}

func span(sec int64) string { return Span(time.Duration(sec) * time.Second) }
