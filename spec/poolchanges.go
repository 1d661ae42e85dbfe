package spec

import (
	"strconv"
	"time"
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
	if a.Multifactor != b.Multifactor {
		d = append(d, "multifactor weights changed")
	}
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
