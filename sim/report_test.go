package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/sim"
)

func TestDuration(t *testing.T) {
	cases := []struct {
		name string
		sec  float64
		want string
	}{
		{"zero", 0, "0s"},
		{"seconds", 12.34, "12.3s"},
		{"minutes", 90, "1.5m"},
		{"an hour", 3600, "1h"},
		{"hours", 5400, "1.5h"},
		{"days", 86400 * 3.25, "3.3d"},
		{"years", 63025323, "729.5d"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sim.Duration(c.sec); got != c.want {
				t.Errorf("Duration(%v) = %q, want %q", c.sec, got, c.want)
			}
		})
	}
}

// TestReportFormats: the readable report prints its durations as sim
// compare does (sim.Duration), not as a clock of hours ("17507h2m3s"),
// and its slot-hours to two decimals, not the result's six.
func TestReportFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    sim.Metrics
		want string
	}{
		{"makespan", sim.Metrics{Makespan: 63025323}, "makespan     729.5d\n"},
		{"avg wait", sim.Metrics{AvgWait: 2498.4}, "avg wait     41.6m\n"},
		{"avg JCT", sim.Metrics{AvgJCT: 11471.2, Completed: 1}, "avg JCT      3.2h\n"},
		{"avg JCT with no job ended", sim.Metrics{Jobs: 2, Unfinished: 2}, "avg JCT      -\n"},
		{"JCT with no job ended", sim.Metrics{Jobs: 2, Unfinished: 2}, "JCT          - (no job ended)\n"},
		{"slowdown with no job ended", sim.Metrics{Jobs: 2, Unfinished: 2}, "slowdown     - (no job ended)\n"},
		{"wait percentiles", sim.Metrics{Wait: metrics.Dist{P50: 45, P90: 6600, P99: 20400, Max: 20400}},
			"wait         p50 45s  p90 1.8h  p99 5.7h  max 5.7h\n"},
		{"JCT percentiles", sim.Metrics{Killed: 1, JCT: metrics.Dist{P50: 720, P90: 21000, P99: 38400, Max: 172800}},
			"JCT          p50 12m  p90 5.8h  p99 10.7h  max 2d\n"},
		{"lost work", sim.Metrics{LostWorkSlotHours: 3.866667},
			"lost work    3.87 slot-hours since the last checkpoints (preempted or lost)\n"},
		{"lost work that rounds to one", sim.Metrics{LostWorkSlotHours: 0.999722},
			"lost work    1 slot-hour since the last checkpoints (preempted or lost)\n"},
		{"lost work under a hundredth", sim.Metrics{LostWorkSlotHours: 0.000278},
			"lost work    <0.01 slot-hours since the last checkpoints (preempted or lost)\n"},
		{"checkpointing", sim.Metrics{Preemptions: 2, PreemptionLostSlotHours: 0.633333},
			"lost         0.63 slot-hours checkpointing after preemption\n"},
		// Trial k D: a shrink and a growth, no preemption, read "2 elastic
		// tasks grown" and no lost line.
		{"checkpointing after resizes alone", sim.Metrics{Resizes: 2, Shrinks: 1, PreemptionLostSlotHours: 0.005556},
			"lost         0.01 slot-hours checkpointing after resize\n"},
		{"checkpointing after preemptions and resizes", sim.Metrics{Preemptions: 1, Resizes: 1, PreemptionLostSlotHours: 0.5},
			"lost         0.5 slot-hours checkpointing after preemption or resize\n"},
		{"a shrink and a growth", sim.Metrics{Resizes: 2, Shrinks: 1}, "resized      1 elastic task shrunk for another job, 1 grown\n"},
		{"shrinks alone", sim.Metrics{Resizes: 2, Shrinks: 2}, "resized      2 elastic tasks shrunk for other jobs\n"},
		{"growth alone", sim.Metrics{Resizes: 1}, "resized      1 elastic task grown\n"},
		{"moves", sim.Metrics{Moves: 3, Preemptions: 1}, "moved        3 tasks (consolidation)\n"},
		{"slowdown, one precision", sim.Metrics{Failed: 1, BoundedSlowdown: metrics.Dist{Mean: 590.054, P50: 41.407, P90: 1870.3, P99: 6703.684, Max: 17772.4}},
			"slowdown     mean 590.05  p50 41.41  p90 1870.30  p99 6703.68  max 17772.40 (bounded"},
		{"queue", sim.Metrics{AvgQueue: 0.961538, MaxQueue: 4}, "queue        mean 0.96 jobs, max 4\n"},
		{"jobs, one at its time limit", sim.Metrics{Jobs: 11, Completed: 8, Killed: 3, TimeLimitKills: 1},
			"jobs         11 submitted: 8 completed, 3 killed (1 at its time limit), 0 unfinished\n"},
		{"jobs, several at their time limits", sim.Metrics{Jobs: 5, Completed: 1, Killed: 3, TimeLimitKills: 2, Unfinished: 1},
			"jobs         5 submitted: 1 completed, 3 killed (2 at their time limits), 1 unfinished\n"},
		{"jobs killed, none at a time limit", sim.Metrics{Jobs: 2, Completed: 1, Killed: 1},
			"jobs         2 submitted: 1 completed, 1 killed (none at a time limit), 0 unfinished\n"},
		{"jobs, none killed, some failed", sim.Metrics{Jobs: 1, Failed: 1},
			"jobs         1 submitted: 0 completed, 0 killed, 1 failed, 0 unfinished\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := sim.WriteReport(&b, &sim.Result{Metrics: tc.m}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("report lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}

// TestReportJobTimes: the jobs table prints its times as the metrics
// under it do (sim.Duration), so that a job's wait of 4h15m and the
// report's "max 4.3h" read as the same number.
func TestReportJobTimes(t *testing.T) {
	sec := func(s int64) *int64 { return &s }
	for _, tc := range []struct {
		name string
		job  sim.JobResult
		want string
	}{
		{"at the start", sim.JobResult{Name: "a", State: "completed", Start: sec(0), End: sec(3600), Wait: sec(0)},
			"a    completed  0s      0s     1h   0s    0\n"},
		{"a long wait", sim.JobResult{Name: "b", State: "completed", Submit: 600, Start: sec(15900), End: sec(30300), Wait: sec(15300)},
			"b    completed  10m     4.4h   8.4h  4.3h  0\n"},
		{"still waiting", sim.JobResult{Name: "c", State: "pending", Submit: 45},
			"c    pending  45s     -      -    -     0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			res := &sim.Result{Jobs: []sim.JobResult{tc.job}, Metrics: sim.Metrics{Wait: metrics.Dist{Max: 15300}}}
			if err := sim.WriteReport(&b, res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("report lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}
