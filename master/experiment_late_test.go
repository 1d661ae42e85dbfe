package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestLateStopNamesTheOutage (trial r R3): a trial that ran to the end
// while the master's store was down, and that the searcher stopped from
// its late reports once the store was back, has a note naming the
// outage as the cause; reports late for another cause (an agent that
// did not sync) keep the plain "hearing its reports late".
func TestLateStopNamesTheOutage(t *testing.T) {
	for _, c := range []struct {
		name   string
		outage bool
		want   string
	}{
		{"during a store outage", true, "ran to step 9: it had exited before the searcher, hearing its reports late " +
			"(the master's store was unavailable from 12:00:05 to 12:01:05 UTC, and took no report until it was back), stopped it at step 1"},
		{"an agent that did not sync", false,
			"ran to step 9: it had exited before the searcher, hearing its reports late, stopped it at step 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, flaky, _ := outageHarness(t)
			a := h.agent("n1", 4)
			job := h.submit(ashaSpec)
			h.step()
			h.sync(a, a)
			report := func(idx int, step int64, loss float64) {
				a.Inject(api.Report{Task: tid(job, idx, 1), Event: api.EventMetrics, Step: step,
					Metrics: map[string]float64{"loss": loss}, At: h.clock.Now()})
			}
			report(0, 1, 5)
			h.sync(a)
			h.clock.Advance(5 * time.Second)
			if c.outage {
				flaky.Down.Store(true)
				h.m.Tick(h.ctx)
			}
			h.clock.Advance(10 * time.Second)
			// Trial 1 trains to max_length (9), behind trial 0 at rung
			// 0, and exits 0; its agent holds the exit report.
			report(1, 1, 9)
			report(1, 3, 8)
			report(1, 9, 7)
			if !a.HoldExit(tid(job, 1, 1)) {
				t.Fatal("trial 1 is not running on the agent")
			}
			h.clock.Advance(50 * time.Second)
			if c.outage {
				flaky.Down.Store(false)
				h.m.Tick(h.ctx)
			}
			h.sync(a)
			a.Exit(tid(job, 1, 1), agent.OutcomeCompleted, 0)
			h.sync(a, a)
			tr := h.metrics(job).Trials[1]
			if tr.DecisionNote != c.want {
				t.Errorf("trial 1: note %q\nwant %q", tr.DecisionNote, c.want)
			}
			if !c.outage && strings.Contains(tr.DecisionNote, "store") {
				t.Errorf("trial 1: note %q names a store outage that was not", tr.DecisionNote)
			}
		})
	}
}
