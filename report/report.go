package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/sim"
)

// Comparison is one workload replayed under several settings.
type Comparison struct {
	// Workload is the file replayed; Slots the cluster's size.
	Workload string
	// Title, when set, is what the workload is in words (the cluster's
	// history exported for a window), for a page's heading.
	Title string
	Slots int
	// Skipped and Notes describe how the workload was read; they are the
	// same for every run.
	Skipped []sim.Skip
	Notes   []string
	Runs    []Run
}

// Run is one replay of the workload.
type Run struct {
	Name string
	// Policy describes the pools' settings in the run on its own, e.g.
	// backfill/easy (sim.Input.Policy).
	Policy string
	// Config is each pool's configuration in the run (sim.Input.Config),
	// from which Labels tells the runs apart; nil to label the run by
	// Policy.
	Config []sim.PoolConfig
	Result *sim.Result
}

// row is one line of the comparison table: a label and how to read the
// value of each run.
type row struct {
	label string
	value func(m *sim.Metrics) string
}

// rows are the table's rows for c: the metrics, the accounts' fairness
// where a run has accounts, then, where the runs counted starvation, the
// starved jobs and the longest wait.
func rows(c *Comparison) []row {
	rs := metricRows()
	if anyRequeues(c) {
		rs = withRequeues(rs)
	}
	if anyAccounts(c) {
		rs = append(rs, row{"Jain fairness (accounts)", accountsCell})
	}
	if after, ok := starveAfter(c); ok {
		rs = append(rs,
			row{"starved (wait over " + sim.Clock(after) + ")", starvedCell},
			row{"longest wait", longestCell})
	}
	return rs
}

// lostLabel is the row of the slot-hours spent checkpointing.
const lostLabel = "slot-hours lost to preemption"

func metricRows() []row {
	dur := func(f func(m *sim.Metrics) float64) func(m *sim.Metrics) string {
		return func(m *sim.Metrics) string { return sim.Duration(f(m)) }
	}
	num := func(f func(m *sim.Metrics) float64) func(m *sim.Metrics) string {
		return func(m *sim.Metrics) string { return Significant(f(m)) }
	}
	// Figures over ended jobs are "-" in a run where none ended: 0s
	// would read as instant.
	ended := func(f func(m *sim.Metrics) string) func(m *sim.Metrics) string {
		return func(m *sim.Metrics) string {
			if !m.AnyEnded() {
				return "-"
			}
			return f(m)
		}
	}
	return []row{
		{"jobs", func(m *sim.Metrics) string { return fmt.Sprint(m.Jobs) }},
		{"completed / failed / killed", func(m *sim.Metrics) string { return fmt.Sprintf("%d / %d / %d", m.Completed, m.Failed, m.Killed) }},
		{"unfinished", func(m *sim.Metrics) string { return fmt.Sprint(m.Unfinished) }},
		{"makespan", dur(func(m *sim.Metrics) float64 { return float64(m.Makespan) })},
		{"utilisation", func(m *sim.Metrics) string { return fmt.Sprintf("%.1f%%", 100*m.Utilization) }},
		{"wait mean", dur(func(m *sim.Metrics) float64 { return m.Wait.Mean })},
		{"wait p50", dur(func(m *sim.Metrics) float64 { return m.Wait.P50 })},
		{"wait p90", dur(func(m *sim.Metrics) float64 { return m.Wait.P90 })},
		{"wait p99", dur(func(m *sim.Metrics) float64 { return m.Wait.P99 })},
		{"wait max", dur(func(m *sim.Metrics) float64 { return m.Wait.Max })},
		{"JCT mean", ended(dur(func(m *sim.Metrics) float64 { return m.JCT.Mean }))},
		{"JCT p90", ended(dur(func(m *sim.Metrics) float64 { return m.JCT.P90 }))},
		{"bounded slowdown mean", ended(num(func(m *sim.Metrics) float64 { return m.BoundedSlowdown.Mean }))},
		{"bounded slowdown p50", ended(num(func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P50 }))},
		{"bounded slowdown p90", ended(num(func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P90 }))},
		{"bounded slowdown p99", ended(num(func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P99 }))},
		{"queue mean / max", func(m *sim.Metrics) string { return fmt.Sprintf("%s / %d", Significant(m.AvgQueue), m.MaxQueue) }},
		{"killed at time limit", func(m *sim.Metrics) string { return fmt.Sprint(m.TimeLimitKills) }},
		{"preemptions", func(m *sim.Metrics) string { return fmt.Sprint(m.Preemptions) }},
		{lostLabel, num(func(m *sim.Metrics) float64 { return m.PreemptionLostSlotHours })},
		{"Jain fairness (projects)", func(m *sim.Metrics) string {
			return fmt.Sprintf("%s (%d)", trim(m.JainFairness), len(m.Projects))
		}},
	}
}

// Significant prints a number with about four significant digits, and
// whole numbers from 1,000 up: 13861, 652.8, 88.54, 1.702, 0.271.
func Significant(x float64) string {
	digits := 3
	if a := math.Abs(x); a >= 1 {
		digits = max(0, 3-int(math.Floor(math.Log10(a))))
	}
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// trim prints a number with at most three decimals and no trailing zeros.
func trim(x float64) string {
	s := fmt.Sprintf("%.3f", x)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// anyAccounts reports whether a run of c has the accounts' fairness.
// anyRequeues says whether a run requeued a task (a history's
// allot job requeue).
func anyRequeues(c *Comparison) bool {
	for _, r := range c.Runs {
		if r.Result.Metrics.Requeues > 0 {
			return true
		}
	}
	return false
}

// withRequeues adds the requeues' row after the preemptions' and names
// the checkpoints' row after both, since their checkpoints count in it
// too: "preemptions 0" beside time lost "to preemption" read as a
// contradiction.
func withRequeues(rs []row) []row {
	out := make([]row, 0, len(rs)+1)
	for _, r := range rs {
		switch r.label {
		case lostLabel:
			r.label = "slot-hours lost to preemption and requeue"
		case "preemptions":
			out = append(out, r)
			r = row{"requeues", func(m *sim.Metrics) string { return fmt.Sprint(m.Requeues) }}
		}
		out = append(out, r)
	}
	return out
}

func anyAccounts(c *Comparison) bool {
	for _, r := range c.Runs {
		if len(r.Result.Metrics.Accounts) > 0 {
			return true
		}
	}
	return false
}

// accountsCell reads "0.87 (4)": Jain's index over the accounts jobs
// charged, and how many; "-" for a run without accounts.
func accountsCell(m *sim.Metrics) string {
	if len(m.Accounts) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%d)", trim(m.JainFairnessAccounts), sim.ChargedAccounts(m))
}

// starveAfter is the starvation threshold of c's runs (Options.StarveAfter,
// one for the whole comparison), if they counted starvation.
func starveAfter(c *Comparison) (int64, bool) {
	for _, r := range c.Runs {
		if st := r.Result.Metrics.Starvation; st != nil {
			return st.After, true
		}
	}
	return 0, false
}

// starvedCell reads "3 (1 never started)": the starved jobs, and those of
// them that never started, counted by their wait until the run stopped.
func starvedCell(m *sim.Metrics) string {
	st := m.Starvation
	switch {
	case st == nil:
		return "-"
	case st.NeverStarted > 0:
		return fmt.Sprintf("%d (%d never started)", st.Jobs, st.NeverStarted)
	}
	return fmt.Sprint(st.Jobs)
}

// longestCell reads "5.2h (job 17)", or "3.1d (job 9, never started)".
func longestCell(m *sim.Metrics) string {
	if m.Starvation == nil || m.Starvation.Longest == nil {
		return "-"
	}
	l := m.Starvation.Longest
	never := ""
	if !l.Started {
		never = ", never started"
	}
	return fmt.Sprintf("%s (job %s%s)", waitNear(l.Wait, m.Starvation.After), l.Job, never)
}

// waitNear prints a wait as the table does, rounded (1d), or exactly
// (24h10m) where rounding would make it read as the threshold, after: a
// starved job's wait must not read as not over it.
func waitNear(wait, after int64) string {
	w := sim.Duration(float64(wait))
	if wait != after && (w == sim.Duration(float64(after)) || w == sim.Clock(after)) {
		return sim.Clock(wait)
	}
	return w
}

// starveNote defines the starvation rows, under the table and the page's.
func starveNote(after int64) string {
	return fmt.Sprintf("starved: jobs that waited over %s to start (wait = start − submit); "+
		"one that never started counts its wait until it was killed or the run stopped", sim.Clock(after))
}
