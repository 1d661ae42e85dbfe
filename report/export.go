package report

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/sim"
)

// jsonComparison is the JSON form of a comparison; docs/simulator.md
// documents it.
type jsonComparison struct {
	Workload jsonWorkload `json:"workload"`
	Runs     []jsonRun    `json:"runs"`
}

type jsonWorkload struct {
	Path    string     `json:"path"`
	Slots   int        `json:"slots"`
	Skipped []sim.Skip `json:"skipped"`
	Notes   []string   `json:"notes"`
}

type jsonRun struct {
	Name    string          `json:"name"`
	Policy  string          `json:"policy"`
	Metrics sim.Metrics     `json:"metrics"`
	Series  *metrics.Series `json:"series,omitempty"`
}

// WriteJSON writes the comparison: the workload, then each run's metrics
// (the same object as `allot sim --json` prints) and time series.
func WriteJSON(w io.Writer, c *Comparison) error {
	out := jsonComparison{Workload: jsonWorkload{Path: c.Workload, Slots: c.Slots,
		Skipped: c.Skipped, Notes: c.Notes}}
	if out.Workload.Skipped == nil {
		out.Workload.Skipped = []sim.Skip{}
	}
	if out.Workload.Notes == nil {
		out.Workload.Notes = []string{}
	}
	for _, r := range c.Runs {
		out.Runs = append(out.Runs, jsonRun{Name: r.Name, Policy: r.Policy, Metrics: r.Result.Metrics, Series: r.Result.Series})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// csvColumns are the CSV header and how each cell is read: times in
// seconds, ratios as fractions, at full precision.
var csvColumns = []struct {
	name  string
	value func(m *sim.Metrics) float64
	// overEnded marks a figure over ended jobs, an empty cell in a run
	// where none ended (null in the JSON).
	overEnded bool
}{
	{"jobs", func(m *sim.Metrics) float64 { return float64(m.Jobs) }, false},
	{"completed", func(m *sim.Metrics) float64 { return float64(m.Completed) }, false},
	{"killed", func(m *sim.Metrics) float64 { return float64(m.Killed) }, false},
	{"unfinished", func(m *sim.Metrics) float64 { return float64(m.Unfinished) }, false},
	{"time_limit_kills", func(m *sim.Metrics) float64 { return float64(m.TimeLimitKills) }, false},
	{"makespan_s", func(m *sim.Metrics) float64 { return float64(m.Makespan) }, false},
	{"utilization", func(m *sim.Metrics) float64 { return m.Utilization }, false},
	{"wait_mean_s", func(m *sim.Metrics) float64 { return m.Wait.Mean }, false},
	{"wait_p50_s", func(m *sim.Metrics) float64 { return m.Wait.P50 }, false},
	{"wait_p90_s", func(m *sim.Metrics) float64 { return m.Wait.P90 }, false},
	{"wait_p99_s", func(m *sim.Metrics) float64 { return m.Wait.P99 }, false},
	{"wait_max_s", func(m *sim.Metrics) float64 { return m.Wait.Max }, false},
	{"jct_mean_s", func(m *sim.Metrics) float64 { return m.JCT.Mean }, true},
	{"jct_p50_s", func(m *sim.Metrics) float64 { return m.JCT.P50 }, true},
	{"jct_p90_s", func(m *sim.Metrics) float64 { return m.JCT.P90 }, true},
	{"jct_p99_s", func(m *sim.Metrics) float64 { return m.JCT.P99 }, true},
	{"bsld_mean", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.Mean }, true},
	{"bsld_p50", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P50 }, true},
	{"bsld_p90", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P90 }, true},
	{"bsld_p99", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P99 }, true},
	{"bsld_max", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.Max }, true},
	{"avg_queue", func(m *sim.Metrics) float64 { return m.AvgQueue }, false},
	{"max_queue", func(m *sim.Metrics) float64 { return float64(m.MaxQueue) }, false},
	{"preemptions", func(m *sim.Metrics) float64 { return float64(m.Preemptions) }, false},
	{"preemption_lost_slot_hours", func(m *sim.Metrics) float64 { return m.PreemptionLostSlotHours }, false},
	{"jain_fairness", func(m *sim.Metrics) float64 { return m.JainFairness }, false},
}

// WriteCSV writes one row per run: its name, its policy and its metrics.
func WriteCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	head := []string{"run", "policy"}
	for _, col := range csvColumns {
		head = append(head, col.name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range c.Runs {
		rec := []string{r.Name, r.Policy}
		for _, col := range csvColumns {
			if col.overEnded && !r.Result.Metrics.AnyEnded() {
				rec = append(rec, "")
				continue
			}
			rec = append(rec, strconv.FormatFloat(col.value(&r.Result.Metrics), 'f', -1, 64))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
