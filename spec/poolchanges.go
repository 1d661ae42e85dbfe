package spec

import (
	"fmt"
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
	old := make(map[string]Pool, len(was))
	for _, p := range was {
		old[p.Name] = p
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range now {
		seen[p.Name] = true
		o, ok := old[p.Name]
		if !ok {
			out = append(out, fmt.Sprintf("pool %s added (policy %s)", p.Name, p.Policy))
			continue
		}
		for _, d := range poolDiffs(o, p) {
			out = append(out, "pool "+p.Name+": "+d)
		}
	}
	for _, p := range was {
		if !seen[p.Name] {
			out = append(out, fmt.Sprintf("pool %s removed", p.Name))
		}
	}
	return out
}

// poolDiffs lists the settings of one pool that differ, "field a → b".
func poolDiffs(a, b Pool) []string {
	var out []string
	add := func(field, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s %s → %s", field, x, y))
		}
	}
	add("policy", string(a.Policy), string(b.Policy))
	add("preemption", strconv.FormatBool(a.Preemption), strconv.FormatBool(b.Preemption))
	add("backfill", strconv.FormatBool(a.Backfill), strconv.FormatBool(b.Backfill))
	add("reservations", orNone(string(a.Reservations)), orNone(string(b.Reservations)))
	add("placement", orNone(string(a.Placement)), orNone(string(b.Placement)))
	add("min_run_time", Span(a.MinRunTime), Span(b.MinRunTime))
	add("zero_slot_limit", strconv.Itoa(a.ZeroSlotLimit), strconv.Itoa(b.ZeroSlotLimit))
	add("kill_grace", Span(a.KillGrace), Span(b.KillGrace))
	if a.Multifactor != b.Multifactor {
		out = append(out, "multifactor weights changed")
	}
	return out
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
