package spec

import (
	"strconv"
	"time"

	"github.com/allot-sched/allot/sched"
)

// PoolChanges says, one line a change, how the pools' scheduling settings
// differ from was to now, in the order of now's pools (pools only in was
// last): "pool hpc: reservations easy → conservative", "pool x added".
// A reload's reply and its record use it, so that an admin learns what a
// reload changed, and a replay of a window that holds it why decisions
// before it may differ. Line numbers are no change.
func PoolChanges(was, now []Pool) []string {
	return entries[Pool]{kind: "pool", name: func(p Pool) string { return p.Name },
		added: func(p Pool) string { return "policy " + string(p.Policy) }, diffs: poolDiffs, apart: true}.changes(was, now)
}

// poolDiffs lists the settings of one pool that differ, "field a → b".
func poolDiffs(a, b Pool) []string {
	var d differ
	d.add("policy", string(a.Policy), string(b.Policy))
	d.add("preemption", strconv.FormatBool(a.Preemption), strconv.FormatBool(b.Preemption))
	d.add("backfill", strconv.FormatBool(a.Backfill), strconv.FormatBool(b.Backfill))
	d.add("reservations", orNone(string(a.Reservations)), orNone(string(b.Reservations)))
	d.add("placement", orNone(string(a.Placement)), orNone(string(b.Placement)))
	d.add("min_run_time", Span(a.MinRunTime), Span(b.MinRunTime))
	d.add("zero_slot_limit", strconv.Itoa(a.ZeroSlotLimit), strconv.Itoa(b.ZeroSlotLimit))
	d.add("kill_grace", Span(a.KillGrace), Span(b.KillGrace))
	return append(d, multifactorDiffs(a.Multifactor, b.Multifactor)...)
}

// multifactorDiffs lists the multifactor settings that differ, each as
// the file names it: "multifactor qos 0 → 1000", "multifactor max_age
// 1h → 2h", so that an admin learns which weight a reload changed.
func multifactorDiffs(a, b sched.Multifactor) []string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	span := func(secs int64) string {
		if secs == 0 {
			return "none"
		}
		return Span(time.Duration(secs) * time.Second)
	}
	var d differ
	d.add("multifactor age", num(a.Age), num(b.Age))
	d.add("multifactor fair_share", num(a.FairShare), num(b.FairShare))
	d.add("multifactor job_size", num(a.JobSize), num(b.JobSize))
	d.add("multifactor qos", num(a.QOS), num(b.QOS))
	d.add("multifactor pool", num(a.Pool), num(b.Pool))
	d.add("multifactor max_age", span(a.MaxAge), span(b.MaxAge))
	d.add("multifactor favor_small", strconv.FormatBool(a.FavorSmall), strconv.FormatBool(b.FavorSmall))
	d.add("multifactor fair_share_mode", orNone(string(a.FairShareMode)), orNone(string(b.FairShareMode)))
	d.add("multifactor pool_priority", num(a.PoolPriority), num(b.PoolPriority))
	return d
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Span is a duration as a configuration file writes it (10m, 1h30m,
// 45s), not as Go's Duration.String (10m0s): the one way messages write
// a configured span.
func Span(d time.Duration) string {
	s := d.String()
	for _, cut := range []string{"m0s", "h0m"} {
		if len(s) > len(cut) && s[len(s)-len(cut):] == cut {
			s = s[:len(s)-len(cut)+1]
		}
	}
	return s
}
