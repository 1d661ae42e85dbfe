package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// lateSearchSpec is an ASHA experiment of trials trials of 2 GPUs each,
// not preemptible (held through a node's loss): rungs at steps 1, 3, 9.
func lateSearchSpec(trials int) string {
	return fmt.Sprintf(`{"name": "tune", "entrypoint": "python train.py", "resources": {"slots": 2, "preemptible": false},
	"hyperparameters": {"lr": {"type": "double", "minval": 0, "maxval": 1}},
	"searcher": {"name": "asha", "metric": "loss", "max_length": 9, "divisor": 3, "num_rungs": 3, "max_trials": %d, "seed": 1}}`, trials)
}

// TestLateExitTellsTheSearcher: the metrics a trial's agent, back after
// its node was lost and the trial failed, sends late, ahead of its exit,
// are stored when taken before the master ended the trial, and a live
// experiment's searcher sees them: the trial, amended to completed,
// counts for the search with its last metric (here reaching the top
// rung: done). An ended experiment stores them for its standing (GET
// /jobs/{id}/metrics). A report taken after the master's end is dropped.
func TestLateExitTellsTheSearcher(t *testing.T) {
	for _, c := range []struct {
		name      string
		trials    int           // 2: the other trial runs on n2, the experiment goes on
		taken     time.Duration // when the late reports were taken, after the start
		exit      bool          // the trial's exit at 75 s is reported after them
		wantTask  store.TaskState
		wantJob   string
		wantSteps int // stored reports of the trial
		wantRung  int // its rung in the live search (2 trials)
	}{
		{"live experiment", 2, 60 * time.Second, true, store.TaskCompleted, "running", 3, 3},
		{"taken after the master's end", 2, 100 * time.Second, false, store.TaskFailed, "running", 1, 1},
		{"ended experiment", 1, 60 * time.Second, true, store.TaskCompleted, "completed", 3, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\n")))
			n1, n2 := h.agent("n1", 2), h.agent("n2", 2)
			id := h.submitAs("ana", lateSearchSpec(c.trials))
			h.step()
			h.sync(n1, n2, n1, n2)
			if len(n1.Running()) != 1 {
				t.Fatalf("n1 runs %v, want a trial", n1.Running())
			}
			lost := n1.Running()[0]
			start := h.clock.Now()
			metricReport(n1, id, lost.TaskIndex, 1, 5)
			h.sync(n1)
			for i := 0; i < 24; i++ { // n1 silent: lost at 35 s, its trial failed at 95 s
				h.clock.Advance(5 * time.Second)
				h.sync(n2)
				h.m.Tick(h.ctx)
			}
			if got := h.taskState(id, lost.TaskIndex); got != store.TaskFailed {
				t.Fatalf("trial on the lost node %s, want failed", got)
			}
			n1.Forget(lost)
			for i, step := range []int64{3, 9} {
				n1.Inject(api.Report{Task: lost, Event: api.EventMetrics, Step: step, At: start.Add(c.taken + time.Duration(i)*time.Second),
					Metrics: map[string]float64{"loss": 4 - float64(i)}})
			}
			if c.exit {
				code := 0
				n1.Inject(api.Report{Task: lost, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code,
					At: start.Add(75 * time.Second)})
			}
			n1.Master = h.srv.URL
			if _, err := n1.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(n1)
			checkLateSearch(t, h, id, lost.TaskIndex, c.wantTask, c.wantJob, c.wantSteps, c.wantRung)
		})
	}
}

// checkLateSearch checks the trial idx of experiment id, its stored
// reports and, while the experiment runs, its rung in the live search
// (done at the top, 3).
func checkLateSearch(t *testing.T, h *harness, id int64, idx int, task store.TaskState, job string, steps, rung int) {
	t.Helper()
	if got, j := h.taskState(id, idx), h.job(id); got != task || j.State != job {
		t.Fatalf("trial %s, experiment %s; want %s, %s", got, j.State, task, job)
	}
	m := h.metrics(id)
	if tr := m.Trials[idx]; tr.Reports != steps {
		t.Fatalf("trial %+v: %d reports stored, want %d", tr, tr.Reports, steps)
	}
	if job != "running" {
		return
	}
	h.m.lock()
	st := h.m.jobs[id].search.Trial(idx)
	h.m.mu.Unlock()
	if st.Rung != rung || (rung == 3) != (st.Decision == searcher.Done) {
		t.Fatalf("live search: trial %+v; want rung %d (done at 3)", st, rung)
	}
}
