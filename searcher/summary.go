package searcher

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Promoted is a trial's decision at a rung it went on from.
const Promoted = "promoted"

// Join is a trial joining a rung: the report that reached it and what
// the searcher decided there.
type Join struct {
	Rung  int
	Step  int64 // the report's step, at or past the rung's length
	Value float64
	// RungTrials is how many values the rung held once this one joined,
	// itself included: 1 for the first to arrive, which always goes on.
	RungTrials int
	// Decision is Promoted, or Stop or Done at the last rung joined.
	Decision string
}

// ObserveJoins is Observe, and also returns the rungs that the report
// had trial i join, in order (none when it reached no new rung).
func (s *Search) ObserveJoins(i int, step int64, value float64) (Decision, []Join, error) {
	if i < 0 || i >= len(s.trials) {
		d, err := s.Observe(i, step, value)
		return d, nil, err
	}
	before := s.trials[i]
	d, err := s.Observe(i, step, value)
	if err != nil {
		return d, nil, err
	}
	after := s.trials[i]
	var out []Join
	for k := before.Rung; k < after.Rung; k++ {
		j := Join{Rung: k, Step: step, Value: value, Decision: Promoted,
			RungTrials: len(s.brackets[after.Bracket].rungs[k].values)}
		if k == after.Rung-1 && after.Decision != Continue {
			j.Decision = string(after.Decision)
		}
		out = append(out, j)
	}
	return d, out, nil
}

// FirstArrivals says at which rungs a trial went on only as the first
// to arrive there ("promoted at rungs 0-2 as the first to arrive"), ""
// when at none: the rule lets such a trial on with no value to rank it
// against, which is why a poor trial may train to max_length.
func FirstArrivals(joins []Join) string {
	var rungs []int
	for _, j := range joins {
		if j.Decision == Promoted && j.RungTrials == 1 {
			rungs = append(rungs, j.Rung)
		}
	}
	if len(rungs) == 0 {
		return ""
	}
	return "promoted at " + rungList(rungs) + " as the first to arrive"
}

// rungList names rungs: "rung 2", "rungs 0-3" for a run, else "rungs 0, 2".
func rungList(rungs []int) string {
	if len(rungs) == 1 {
		return "rung " + strconv.Itoa(rungs[0])
	}
	if rungs[len(rungs)-1]-rungs[0] == len(rungs)-1 {
		return fmt.Sprintf("rungs %d-%d", rungs[0], rungs[len(rungs)-1])
	}
	parts := make([]string, len(rungs))
	for i, r := range rungs {
		parts[i] = strconv.Itoa(r)
	}
	return "rungs " + strings.Join(parts, ", ")
}

// TrialRungs is a trial's bracket and its decision at each rung it
// joined, in order: what WriteRungs counts.
type TrialRungs struct {
	Trial     int
	Bracket   int
	Decisions []string
}

// WriteRungs prints a search's rungs for people, per bracket (named
// when there are several) and rung: how many trials joined it, how many
// went on, and which stopped there or were done. rungs are each
// bracket's rung lengths; every line starts with indent. The simulator's
// result and allot experiment show print the same lines.
func WriteRungs(w io.Writer, indent string, rungs [][]int64, trials []TrialRungs) {
	for b, lengths := range rungs {
		in := indent
		if len(rungs) > 1 {
			var ids []int
			for _, t := range trials {
				if t.Bracket == b {
					ids = append(ids, t.Trial)
				}
			}
			fmt.Fprintf(w, "%sbracket %d: %s\n", indent, b, TrialList(ids))
			in = indent + "  "
		}
		for k, length := range lengths {
			var joined, promoted int
			var ended []int
			for _, t := range trials {
				if t.Bracket != b || len(t.Decisions) <= k {
					continue
				}
				joined++
				if t.Decisions[k] == Promoted {
					promoted++
				} else {
					ended = append(ended, t.Trial)
				}
			}
			what := fmt.Sprintf("%d promoted, %d stopped", promoted, len(ended))
			if k == len(lengths)-1 {
				what = fmt.Sprintf("%d done", len(ended))
			}
			if len(ended) > 0 {
				what += " (" + TrialList(ended) + ")"
			}
			fmt.Fprintf(w, "%srung %d (step %d): %d joined, %s\n", in, k, length, joined, what)
		}
	}
}

// TrialList names trials: "trial 3" or "trials 1, 4, 7".
func TrialList(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	if len(ids) == 1 {
		return "trial " + parts[0]
	}
	return "trials " + strings.Join(parts, ", ")
}
