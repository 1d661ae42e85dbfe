package master

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

// lockedBuf is a log sink that the master's goroutines may share.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestOutageTrialExitNotStopped (trial r R3): a trial that trained to
// max_length and exited while the store was down has its metrics sent
// when the store is back, its exit report still held by its agent until
// its logs are delivered (agentd), which says the attempt exited: the
// searcher's stop from those late metrics asks no kill and logs none, the
// trial ends completed when its exit comes, and the experiment view says
// it ran on past the stop. An agent that says nothing of the held exit
// (one before api.Sync.Exited) still gets the kill.
func TestOutageTrialExitNotStopped(t *testing.T) {
	for _, c := range []struct {
		name     string
		held     bool
		killed   bool
		decision string
		note     string
	}{
		{"the agent says the attempt exited", true, false, "done",
			"ran to step 9: it had exited before the searcher, hearing its reports late, stopped it at step 1"},
		{"the agent says nothing of it", false, true, "done",
			"ran to step 9: it had exited before the searcher, hearing its reports late, stopped it at step 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, flaky, logs := outageHarness(t)
			a := h.agent("n1", 4)
			a.HoldKill = true
			job := h.submit(ashaSpec)
			h.step()
			h.sync(a, a)
			metricReport(a, job, 0, 1, 5)
			h.sync(a)

			flaky.Down.Store(true)
			h.m.Tick(h.ctx)
			// Trial 1 trains to max_length (9) during the outage, behind
			// trial 0 at rung 0, and exits 0; its exit report waits.
			metricReport(a, job, 1, 1, 9)
			metricReport(a, job, 1, 3, 8)
			metricReport(a, job, 1, 9, 7)
			if c.held && !a.HoldExit(tid(job, 1, 1)) {
				t.Fatal("trial 1 is not running on the agent")
			}
			if _, err := a.Sync(h.ctx, 0); err == nil {
				t.Fatal("a sync during the outage was taken")
			}
			flaky.Down.Store(false)
			h.m.Tick(h.ctx)
			h.sync(a)
			killed := strings.Contains(logs.String(), "killing task")
			for _, cmd := range a.Commands() {
				killed = killed || cmd.Type == api.CommandKill
			}
			if killed != c.killed {
				t.Errorf("kill logged or sent: %v, want %v\n%s", killed, c.killed, logs.String())
			}
			a.Exit(tid(job, 1, 1), agent.OutcomeCompleted, 0)
			h.sync(a, a)
			tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: job})
			if err != nil {
				t.Fatal(err)
			}
			if tasks[1].State != store.TaskCompleted || tasks[1].Reason != "completed" {
				t.Errorf("trial 1: %s %q, want completed", tasks[1].State, tasks[1].Reason)
			}
			tr := h.metrics(job).Trials[1]
			if tr.Decision != c.decision || tr.DecisionNote != c.note {
				t.Errorf("trial 1: decision %q note %q, want %q %q", tr.Decision, tr.DecisionNote, c.decision, c.note)
			}
		})
	}
}

// outageHarness is a harness whose store fails while flaky.down is set,
// and whose master logs to logs.
func outageHarness(t *testing.T) (*harness, *flakyStore, *lockedBuf) {
	var flaky *flakyStore
	logs := &lockedBuf{}
	h := newHarness(t, func(o *Options) {
		flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}
		o.Store = flaky
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	h.m.health.minGap = 0
	return h, flaky, logs
}
