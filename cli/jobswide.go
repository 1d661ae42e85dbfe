package cli

import (
	"time"

	"github.com/allot-sched/allot/api"
)

// The run-time columns of allot jobs -o wide, squeue's TIME, TIME_LIMIT,
// END_TIME and NODELIST (trial r R12): how long a job holding GPUs has
// run, its time limit, when that limit ends it, and its nodes.

// wideRunHeader are their headers, before REASON.
var wideRunHeader = []string{"ELAPSED", "LIMIT", "ENDS", "NODES"}

// wideRunCells are job j's cells of wideRunHeader at time at.
func wideRunCells(j api.Job, at time.Time) []string {
	elapsed, limit, ends, nodes := "-", "-", "-", "-"
	if j.TimeLimitS > 0 {
		limit = exactDuration(j.TimeLimitS)
	}
	if j.StartedAt != nil {
		// Down to the whole second, as AGE and START count (jobAge).
		elapsed = humanDur(max(at.Sub(*j.StartedAt).Truncate(time.Second), 0))
		// A task's limit counts from its attempt's first start, which
		// started_at is for a job of one task; an experiment's trials
		// each have their own.
		if j.TimeLimitS > 0 && j.Tasks <= 1 {
			ends = clockTime(j.StartedAt.Add(time.Duration(j.TimeLimitS)*time.Second), at)
		}
	}
	if len(j.Nodes) > 0 {
		nodes = api.CompactNodes(j.Nodes)
	}
	return []string{elapsed, limit, ends, nodes}
}

// clockTime is t in the display zone: the time of day on the day of
// ref, else with its date.
func clockTime(t, ref time.Time) string {
	t, ref = t.In(displayZone), ref.In(displayZone)
	if t.Year() == ref.Year() && t.YearDay() == ref.YearDay() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}
