package master

import (
	"github.com/allot-sched/allot/agent"
	"strings"
	"testing"
	"time"
)

// TestHistoryScenarioCarriedIn: a window that starts while a job
// submitted before it holds GPUs leaves that job out, so the replay
// starts what waited for its GPUs at once (seen live on allot dev:
// allot history check --since a time mid-run differed by 4 and 29 lines
// with no note). The export now says so; a window the job ended before,
// or one holding it, has no such note.
func TestHistoryScenarioCarriedIn(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 1)
	t0 := h.clock.Now().Truncate(time.Second)
	h.clock.Advance(10 * time.Second)
	early := h.submit(jobSpec("early", 1, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Minute)
	h.submit(jobSpec("late", 1, ""))
	h.step()
	h.clock.Advance(time.Minute)
	a.Exit(tid(early, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Minute)
	h.submit(jobSpec("last", 1, ""))
	h.step()
	h.clock.Advance(time.Second)
	const note = "# Note: 1 job submitted before the window held GPUs in it (job 1), which the replay leaves free"
	for _, tt := range []struct {
		name  string
		since time.Duration
		want  bool
	}{
		{"the window holds the job", 0, false},
		{"the window starts while it runs", 30 * time.Second, true},
		{"the window starts after it ended", 150 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, body := exportScenario(t, h, window(t0.Add(tt.since), h.clock.Now()))
			if got := strings.Contains(body, note); got != tt.want {
				t.Errorf("note %q: %v, want %v:\n%s", note, got, tt.want, body)
			}
		})
	}
}
