package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestSearchWithAnotherMetricNameSaysSo: trials of an asha search on
// loss that report val_loss run to their end unjudged; the experiment's
// view names what they reported, each trial's decision note says it
// never reported loss, and each attempt's log gets one line of the
// master's saying so (trial 2026-11-29i I16).
func TestSearchWithAnotherMetricNameSaysSo(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	job := h.submit(ashaSpec)
	h.step()
	h.sync(a, a)
	if n := len(a.Started()); n != 4 {
		t.Fatalf("%d trials started, want 4", n)
	}
	for i := range 3 {
		for step := int64(1); step <= 2; step++ {
			a.Inject(api.Report{Task: tid(job, i, 1), Event: api.EventMetrics, Step: step,
				Metrics: map[string]float64{"val_loss": float64(i) + 0.5}})
		}
	}
	a.Inject(api.Report{Task: tid(job, 3, 1), Event: api.EventMetrics, Step: 1, Metrics: map[string]float64{"loss": 1}})
	h.sync(a, a)
	m := h.metrics(job)
	if m.MetricReports != 1 || strings.Join(m.ReportedMetrics, ",") != "loss,val_loss" {
		t.Fatalf("metric reports %d, names %v: want 1 and loss,val_loss", m.MetricReports, m.ReportedMetrics)
	}
	if n := m.Trials[0].DecisionNote; n != "no report of loss yet; it reports val_loss" {
		t.Errorf("running trial 0's note %q", n)
	}
	for i := range 4 {
		if !a.Exit(tid(job, i, 1), agent.OutcomeCompleted, 0) {
			t.Fatalf("trial %d is not running on the agent", i)
		}
	}
	h.sync(a, a, a)
	m = h.metrics(job)
	for i, want := range []string{"never reported loss; it reported val_loss", "never reported loss; it reported val_loss",
		"never reported loss; it reported val_loss", "promoted at rung 0 as the first to arrive"} {
		tr := m.Trials[i]
		if tr.Decision != "done" || tr.DecisionNote != want {
			t.Errorf("trial %d: decision %q note %q, want done and %q", i, tr.Decision, tr.DecisionNote, want)
		}
		if tr.MetricReports != min(i/3, 1) {
			t.Errorf("trial %d: %d reports of loss", i, tr.MetricReports)
		}
		lines, err := h.st.Logs(h.ctx, store.LogQuery{JobID: job, Index: i})
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		for _, l := range lines {
			if strings.HasPrefix(l.Text, "[allot master]") {
				notes = append(notes, l.Text)
			}
		}
		switch {
		case i == 3 && len(notes) != 0:
			t.Errorf("trial 3 reported loss, yet its log says %q", notes)
		case i < 3 && (len(notes) != 1 || !strings.Contains(notes[0], "2 metrics reports of this attempt had val_loss but not loss")):
			t.Errorf("trial %d's log notes %q, want one naming val_loss", i, notes)
		}
	}
}
