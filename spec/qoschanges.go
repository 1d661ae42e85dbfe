package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// QOSChanges says, one line a QOS, how the QOS levels the scheduler ranks
// and preempts by differ from was to now, as ProjectChanges does the
// projects', in the order of now's levels (levels only in was last):
// "qos emergency: priority 100 → 50, preempt true → false", "qos x added
// (priority 10)", "qos y removed". Line numbers are no change.
func QOSChanges(was, now []QOS) []string {
	return entries[QOS]{kind: "qos", name: func(q QOS) string { return q.Name },
		added: func(q QOS) string { return fmt.Sprintf("priority %d%s", q.Priority, mayPreempt(q.Preempt)) },
		diffs: func(a, b QOS) []string {
			var d differ
			d.add("priority", strconv.Itoa(a.Priority), strconv.Itoa(b.Priority))
			d.add("preempt", strconv.FormatBool(a.Preempt), strconv.FormatBool(b.Preempt))
			return d
		}}.changes(was, now)
}

// DefaultQOSChanges says how default_qos, as in force (the file's, or
// the default's when it names none), differs from was to now, in one
// line or none: "default_qos: normal → emergency". Jobs that name no QOS
// take it at every pass, so it changes their QOS factor and preemption
// as a level's priority does (trial 29h H2).
func DefaultQOSChanges(was, now string) []string {
	if was == now {
		return nil
	}
	return []string{fmt.Sprintf("default_qos: %s → %s", orNone(was), orNone(now))}
}

func mayPreempt(p bool) string {
	if p {
		return ", preempt true"
	}
	return ""
}

// DecayChanges says how the usage decay differs from was to now, in one
// line or none: "decay: half_life 7d → 1d" (period, per_period,
// half_life, as the file writes them; the line number is no change).
func DecayChanges(was, now Decay) []string {
	var d []string
	span := func(secs int64) string {
		if secs == 0 {
			return "none"
		}
		return Span(time.Duration(secs) * time.Second)
	}
	num := func(f float64) string {
		if f == 0 {
			return "none"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if was.Period != now.Period {
		d = append(d, fmt.Sprintf("period %s → %s", span(was.Period), span(now.Period)))
	}
	if was.PerPeriod != now.PerPeriod {
		d = append(d, fmt.Sprintf("per_period %s → %s", num(was.PerPeriod), num(now.PerPeriod)))
	}
	if was.HalfLife != now.HalfLife {
		d = append(d, fmt.Sprintf("half_life %s → %s", span(was.HalfLife), span(now.HalfLife)))
	}
	if len(d) == 0 {
		return nil
	}
	return []string{"decay: " + strings.Join(d, ", ")}
}
