package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/sim"
)

// noneEnded compares a run cut off before any job ended with one where a
// job did: the figures over ended jobs are undefined in the first, not 0.
func noneEnded() *Comparison {
	cut := &sim.Result{Metrics: sim.Metrics{Makespan: 1800, Jobs: 2, Unfinished: 2}}
	done := &sim.Result{Metrics: sim.Metrics{Makespan: 1800, Jobs: 2, Completed: 1, Unfinished: 1,
		AvgJCT: 600, JCT: metrics.Dist{Mean: 600, P90: 600}, BoundedSlowdown: metrics.Dist{Mean: 1, P50: 1}}}
	return &Comparison{Workload: "long.yaml", Slots: 4, Runs: []Run{
		{Name: "current", Policy: "backfill", Result: cut}, {Name: "fifo", Policy: "fifo", Result: done}}}
}

func TestNoJobEnded(t *testing.T) {
	t.Run("table", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteTable(&b, noneEnded()); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"JCT mean -", "JCT p90 -", "bounded slowdown mean -", "bounded slowdown p99 -"} {
			found := false
			for line := range strings.Lines(b.String()) {
				if strings.HasPrefix(strings.Join(strings.Fields(line), " "), want+" ") {
					found = true
				}
			}
			if !found {
				t.Errorf("no row %q:\n%s", want, b.String())
			}
		}
		if !strings.Contains(b.String(), "10m") {
			t.Errorf("the run where a job ended lost its JCT:\n%s", b.String())
		}
		if strings.Contains(b.String(), "starved") {
			t.Errorf("starvation rows for runs that did not count it:\n%s", b.String())
		}
	})
	t.Run("csv", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteCSV(&b, noneEnded()); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, name := range recs[0] {
			col[name] = i
		}
		for _, name := range []string{"jct_mean_s", "jct_p90_s", "bsld_mean", "bsld_max"} {
			if got := recs[1][col[name]]; got != "" {
				t.Errorf("cut run %s = %q, want an empty cell", name, got)
			}
		}
		if got := recs[2][col["jct_mean_s"]]; got != "600" {
			t.Errorf("ended run jct_mean_s = %q, want 600", got)
		}
		if got := recs[1][col["makespan_s"]]; got != "1800" {
			t.Errorf("cut run makespan_s = %q, want 1800", got)
		}
	})
	t.Run("json", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteJSON(&b, noneEnded()); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Runs []struct {
				Metrics map[string]any `json:"metrics"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"avg_jct", "jct", "bounded_slowdown"} {
			if v, ok := got.Runs[0].Metrics[k]; !ok || v != nil {
				t.Errorf("cut run %s = %v (present %v), want null", k, v, ok)
			}
			if got.Runs[1].Metrics[k] == nil {
				t.Errorf("ended run %s is null", k)
			}
		}
		if got.Runs[0].Metrics["makespan"] != 1800.0 || got.Runs[0].Metrics["unfinished"] != 2.0 {
			t.Errorf("cut run lost its other metrics: %v", got.Runs[0].Metrics)
		}
	})
}
