package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestUsageEndsAtExit: an attempt whose exit the master hears of late
// (its agent was down when the task exited, and reports the exit time
// its shim recorded once back) is charged until the task exited, while
// the attempt ends, and its GPUs come free, when the master heard of
// it. An exit time the agent's clock puts outside the attempt is not
// believed.
func TestUsageEndsAtExit(t *testing.T) {
	cases := []struct {
		name   string
		exitAt time.Duration // after the start; 0: no time given
		want   float64       // GPU-seconds charged, of 2 GPUs over 40 minutes
	}{
		{"exit heard late", 10 * time.Minute, 2 * 600},
		{"exit before the start", -time.Hour, 2 * 2400},
		{"exit after the master heard", time.Hour, 2 * 2400},
		{"no exit time", 0, 2 * 2400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withFeatures(t))
			a := h.agent("n1", 4)
			id := h.submitAs("ana", jobSpec("work", 2, ""))
			h.step()
			h.sync(a, a)
			start := h.clock.Now()
			for range 4 {
				h.clock.Advance(10 * time.Minute)
				h.sync(a) // keeps the node up
			}
			task := tid(id, 0, 1)
			a.Forget(task)
			code := 0
			r := api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code}
			if c.exitAt != 0 {
				r.At = start.Add(c.exitAt)
			}
			a.Inject(r)
			h.sync(a)
			recs, err := h.st.Usage(h.ctx, store.UsageFilter{})
			if err != nil || len(recs) != 1 || recs[0].GPUSeconds != c.want {
				t.Fatalf("usage records %+v (%v), want one of %v GPU-seconds", recs, err, c.want)
			}
			atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
			if err != nil || len(atts) != 1 || !atts[0].EndedAt.Equal(h.clock.Now()) {
				t.Fatalf("attempts %+v (%v), want one ended when the master heard of it, %v", atts, err, h.clock.Now())
			}
		})
	}
}
