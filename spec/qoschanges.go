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
	old := make(map[string]QOS, len(was))
	for _, q := range was {
		old[q.Name] = q
	}
	var out []string
	seen := map[string]bool{}
	for _, q := range now {
		seen[q.Name] = true
		o, ok := old[q.Name]
		if !ok {
			out = append(out, fmt.Sprintf("qos %s added (priority %d%s)", q.Name, q.Priority, mayPreempt(q.Preempt)))
			continue
		}
		var d []string
		if o.Priority != q.Priority {
			d = append(d, fmt.Sprintf("priority %d → %d", o.Priority, q.Priority))
		}
		if o.Preempt != q.Preempt {
			d = append(d, fmt.Sprintf("preempt %t → %t", o.Preempt, q.Preempt))
		}
		if len(d) > 0 {
			out = append(out, "qos "+q.Name+": "+strings.Join(d, ", "))
		}
	}
	for _, q := range was {
		if !seen[q.Name] {
			out = append(out, fmt.Sprintf("qos %s removed", q.Name))
		}
	}
	return out
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
