package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// TestHistoryScenarioSubSecond: a job whose task started and ended
// within one second live did no work in whole seconds; it is exported
// with duration 0 and ends in the replay at the second it started, as
// live, not a second later (the run time was once at least a second,
// from when the export omitted a duration of 0, which read as "runs
// until killed").
func TestHistoryScenarioSubSecond(t *testing.T) {
	tests := []struct {
		name      string
		run       time.Duration // the task's run time live, within its second
		wantDur   int64
		wantEndAt int64 // seconds from the window's start
	}{
		{"ends in the second it started", 500 * time.Millisecond, 0, 9},
		{"ends in the next second", 900 * time.Millisecond, 1, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			a := h.agent("n1", 1)
			t0 := h.clock.Now().Truncate(time.Second)
			h.clock.Advance(t0.Add(9*time.Second + 300*time.Millisecond).Sub(h.clock.Now()))
			id := h.submit(jobSpec("quick", 1, ""))
			h.step()
			h.sync(a, a)
			h.clock.Advance(tt.run)
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.clock.Advance(time.Minute)
			sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
			if len(sc.Jobs) != 1 || sc.Jobs[0].Submit != 9 || sc.Jobs[0].Duration != tt.wantDur {
				t.Fatalf("jobs %+v, want one submitted at 9 s running %d s:\n%s", sc.Jobs, tt.wantDur, body)
			}
			res := replayScenario(t, sc, -1)
			if j := res.Jobs[0]; j.End == nil || *j.End != tt.wantEndAt {
				t.Errorf("replayed end %v, want %d s (live: %d s)", j.End, tt.wantEndAt, tt.wantEndAt)
			}
		})
	}
}
