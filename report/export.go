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
	Name   string `json:"name"`
	Policy string `json:"policy"`
	// Label is the run's configuration as the table heads it
	// (Comparison.Labels); Config is each pool's, when the run has it.
	Label   string           `json:"label"`
	Config  []sim.PoolConfig `json:"config,omitempty"`
	Metrics sim.Metrics      `json:"metrics"`
	Series  *metrics.Series  `json:"series,omitempty"`
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
	labels := c.Labels()
	for i, r := range c.Runs {
		out.Runs = append(out.Runs, jsonRun{Name: r.Name, Policy: r.Policy, Label: labels[i], Config: r.Config,
			Metrics: r.Result.Metrics, Series: r.Result.Series})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// csvColumn is a column of the CSV and how its cells are read.
type csvColumn struct {
	name  string
	value func(m *sim.Metrics) float64
	// blank, when set, tells a run whose cell is empty: a figure over
	// ended jobs in a run where none ended (null in the JSON), or
	// starvation where it was not counted (absent there).
	blank func(m *sim.Metrics) bool
}

// noJobEnded blanks the figures over ended jobs in a run where none ended.
func noJobEnded(m *sim.Metrics) bool { return !m.AnyEnded() }

// uncounted blanks the starvation figures where they were not counted.
func uncounted(m *sim.Metrics) bool { return m.Starvation == nil }

// noLongest blanks the longest wait where no job was submitted.
func noLongest(m *sim.Metrics) bool { return m.Starvation == nil || m.Starvation.Longest == nil }

// csvColumns are the CSV's metric columns: times in seconds, ratios as
// fractions, at full precision.
var csvColumns = []csvColumn{
	{"jobs", func(m *sim.Metrics) float64 { return float64(m.Jobs) }, nil},
	{"completed", func(m *sim.Metrics) float64 { return float64(m.Completed) }, nil},
	{"killed", func(m *sim.Metrics) float64 { return float64(m.Killed) }, nil},
	{"unfinished", func(m *sim.Metrics) float64 { return float64(m.Unfinished) }, nil},
	{"time_limit_kills", func(m *sim.Metrics) float64 { return float64(m.TimeLimitKills) }, nil},
	{"makespan_s", func(m *sim.Metrics) float64 { return float64(m.Makespan) }, nil},
	{"utilization", func(m *sim.Metrics) float64 { return m.Utilization }, nil},
	{"wait_mean_s", func(m *sim.Metrics) float64 { return m.Wait.Mean }, nil},
	{"wait_p50_s", func(m *sim.Metrics) float64 { return m.Wait.P50 }, nil},
	{"wait_p90_s", func(m *sim.Metrics) float64 { return m.Wait.P90 }, nil},
	{"wait_p99_s", func(m *sim.Metrics) float64 { return m.Wait.P99 }, nil},
	{"wait_max_s", func(m *sim.Metrics) float64 { return m.Wait.Max }, nil},
	{"jct_mean_s", func(m *sim.Metrics) float64 { return m.JCT.Mean }, noJobEnded},
	{"jct_p50_s", func(m *sim.Metrics) float64 { return m.JCT.P50 }, noJobEnded},
	{"jct_p90_s", func(m *sim.Metrics) float64 { return m.JCT.P90 }, noJobEnded},
	{"jct_p99_s", func(m *sim.Metrics) float64 { return m.JCT.P99 }, noJobEnded},
	{"bsld_mean", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.Mean }, noJobEnded},
	{"bsld_p50", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P50 }, noJobEnded},
	{"bsld_p90", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P90 }, noJobEnded},
	{"bsld_p99", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.P99 }, noJobEnded},
	{"bsld_max", func(m *sim.Metrics) float64 { return m.BoundedSlowdown.Max }, noJobEnded},
	{"avg_queue", func(m *sim.Metrics) float64 { return m.AvgQueue }, nil},
	{"max_queue", func(m *sim.Metrics) float64 { return float64(m.MaxQueue) }, nil},
	{"preemptions", func(m *sim.Metrics) float64 { return float64(m.Preemptions) }, nil},
	{"preemption_lost_slot_hours", func(m *sim.Metrics) float64 { return m.PreemptionLostSlotHours }, nil},
	{"jain_fairness", func(m *sim.Metrics) float64 { return m.JainFairness }, nil},
	{"starve_after_s", func(m *sim.Metrics) float64 { return float64(m.Starvation.After) }, uncounted},
	{"starved", func(m *sim.Metrics) float64 { return float64(m.Starvation.Jobs) }, uncounted},
	{"starved_never_started", func(m *sim.Metrics) float64 { return float64(m.Starvation.NeverStarted) }, uncounted},
	{"longest_wait_s", func(m *sim.Metrics) float64 { return float64(m.Starvation.Longest.Wait) }, noLongest},
}

// noAccounts blanks the accounts' fairness in a run without accounts.
func noAccounts(m *sim.Metrics) bool { return len(m.Accounts) == 0 }

// csvLate are metric columns added after the label, so that the columns
// of older files keep their places.
var csvLate = []csvColumn{
	{"jain_fairness_accounts", func(m *sim.Metrics) float64 { return m.JainFairnessAccounts }, noAccounts},
}

// WriteCSV writes one row per run: its name, its policy and its metrics,
// then the job that waited longest and the run's label (Labels), after
// the numbers so that the columns of older files keep their places, then
// the metrics added since (csvLate).
func WriteCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	head := []string{"run", "policy"}
	for _, col := range csvColumns {
		head = append(head, col.name)
	}
	head = append(head, "longest_wait_job", "label")
	for _, col := range csvLate {
		head = append(head, col.name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	labels := c.Labels()
	for i, r := range c.Runs {
		m := &r.Result.Metrics
		rec := csvCells([]string{r.Name, r.Policy}, csvColumns, m)
		job := ""
		if !noLongest(m) {
			job = m.Starvation.Longest.Job
		}
		rec = csvCells(append(rec, job, labels[i]), csvLate, m)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvCells appends the cells of cols for m to rec.
func csvCells(rec []string, cols []csvColumn, m *sim.Metrics) []string {
	for _, col := range cols {
		if col.blank != nil && col.blank(m) {
			rec = append(rec, "")
			continue
		}
		rec = append(rec, strconv.FormatFloat(col.value(m), 'f', -1, 64))
	}
	return rec
}
