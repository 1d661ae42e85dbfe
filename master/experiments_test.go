package master

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// ashaSpec is a four-trial ASHA experiment: rungs at steps 1, 3 and 9.
const ashaSpec = `{"name": "tune", "entrypoint": "python train.py", "resources": {"slots": 1},
	"hyperparameters": {"lr": {"type": "double", "minval": 0, "maxval": 1}},
	"searcher": {"name": "asha", "metric": "loss", "max_length": 9, "divisor": 3, "num_rungs": 3, "max_trials": 4, "seed": 1}}`

// report queues a metrics report of task idx (attempt 1) of job.
func metricReport(a *mastertest.Agent, job int64, idx int, step int64, loss float64) {
	a.Inject(api.Report{Task: tid(job, idx, 1), Event: api.EventMetrics, Step: step, Metrics: map[string]float64{"loss": loss}})
}

func (h *harness) metrics(job int64) api.JobMetrics {
	h.t.Helper()
	var out api.JobMetrics
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(job, 10)+"/metrics", nil, &out); code != http.StatusOK {
		h.t.Fatalf("GET metrics of job %d: %d", job, code)
	}
	return out
}

// TestASHAStopsTrialsFromReportedMetrics runs four trials on four GPUs:
// metrics reported through the agents' syncs are stored and shown, the
// searcher stops the trial that falls behind (killed at once, ended
// completed), and a restarted master replays the reports to the same
// standing and goes on deciding from it.
func TestASHAStopsTrialsFromReportedMetrics(t *testing.T) { onBackends(t, ashaStopsTrials) }

func ashaStopsTrials(t *testing.T, h *harness) {
	a := h.agent("n1", 4)
	job := h.submit(ashaSpec)
	h.step()
	h.sync(a, a)
	started := a.Started()
	if len(started) != 4 {
		t.Fatalf("%d trials started, want 4", len(started))
	}
	for _, s := range started {
		if s.MaxSteps != 9 {
			t.Fatalf("trial %d: max steps %d, want 9 (max_length)", s.TaskIndex, s.MaxSteps)
		}
	}
	metricReport(a, job, 0, 1, 5)
	metricReport(a, job, 1, 1, 9) // behind trial 0 at rung 0: stopped
	metricReport(a, job, 0, 1, 1) // the same step again: the first value stays
	h.sync(a, a, a)
	if got := h.taskState(job, 1); got != store.TaskCompleted {
		t.Fatalf("stopped trial is %s, want completed", got)
	}
	if got := h.taskState(job, 0); got != store.TaskRunning {
		t.Fatalf("leading trial is %s, want running", got)
	}
	tasks, _ := h.st.Tasks(h.ctx, store.TaskFilter{JobID: job})
	if !strings.Contains(tasks[1].Reason, "stopped early by the searcher at step 1") {
		t.Errorf("reason %q", tasks[1].Reason)
	}
	m := h.metrics(job)
	if m.Metric != "loss" || m.Searcher != "asha" || len(m.Points) != 2 {
		t.Fatalf("metrics %+v: want loss, asha and 2 points", m)
	}
	if tr := m.Trials[0]; tr.Decision != "continue" || tr.Latest == nil || *tr.Latest != 5 {
		t.Errorf("trial 0: %+v", tr)
	}
	if tr := m.Trials[1]; tr.Decision != "stopped" || tr.State != "completed" {
		t.Errorf("trial 1: %+v", tr)
	}

	h.start() // the master restarts and replays the stored reports
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.m.lock()
	s := h.m.jobs[job].search
	h.m.mu.Unlock()
	if s == nil || s.Trial(1).Decision != searcher.Stop || s.Trial(0).Rung != 1 {
		t.Fatalf("search after the restart: %+v", s)
	}
	metricReport(a, job, 2, 1, 7) // ranks 2nd of 3 at rung 0: only the top 1/3 goes on
	metricReport(a, job, 3, 2, 0.5)
	h.sync(a, a, a)
	want := []store.TaskState{store.TaskRunning, store.TaskCompleted, store.TaskCompleted, store.TaskRunning}
	for i, w := range want {
		if got := h.taskState(job, i); got != w {
			t.Errorf("trial %d is %s, want %s", i, got, w)
		}
	}
}

// TestMetricsOnlyFromTheNodeOfTheTask checks that a node cannot report
// metrics for a task that runs elsewhere.
func TestMetricsOnlyFromTheNodeOfTheTask(t *testing.T) {
	h := newHarness(t)
	a, b := h.agent("n1", 1), h.agent("n2", 1)
	job := h.submit(jobSpec("one", 1, ""))
	h.step()
	h.sync(a, b)
	runs, other := a, b
	if len(a.Running()) == 0 {
		runs, other = b, a
	}
	metricReport(other, job, 0, 1, 1)
	if _, err := other.Sync(h.ctx, 0); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("sync with another node's metrics: %v, want 403", err)
	}
	metricReport(runs, job, 0, 1, 1)
	h.sync(runs)
	if got := h.metrics(job); len(got.Points) != 1 || got.Metric != "loss" || got.Searcher != "" {
		t.Fatalf("metrics %+v", got)
	}
}
