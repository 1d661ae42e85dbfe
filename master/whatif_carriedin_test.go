package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
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
	const note = "# Note: 1 job submitted before the window held GPUs in it (job 1 (1 GPU in pool default), most GPU time first), which the replay leaves free"
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

// TestCarriedInNoteOrder (trial p F7): the jobs carried into the window
// are named by the GPU time they held in it, most first, with their GPUs
// and pool, so that the one likely to explain a difference leads.
func TestCarriedInNoteOrder(t *testing.T) {
	since := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)
	until := since.Add(time.Hour)
	gpus := func(n int) []store.Placement {
		p := store.Placement{Node: "n1"}
		for i := range n {
			p.GPUs = append(p.GPUs, store.GPURef{Index: i})
		}
		return []store.Placement{p}
	}
	jobs := []store.Job{
		{ID: 1, Pool: "osmo", SubmittedAt: since.Add(-time.Hour)},
		{ID: 2, Pool: "fs", SubmittedAt: since.Add(-time.Hour)},
		{ID: 7, Pool: "hpc", SubmittedAt: since.Add(-time.Minute)},
		{ID: 9, Pool: "hpc", SubmittedAt: since.Add(time.Minute)}, // in the window
	}
	byJob := map[int64][]store.Attempt{
		1: {{StartedAt: since.Add(-time.Hour), EndedAt: since.Add(time.Minute), Placement: gpus(1)}},
		2: {{StartedAt: since.Add(-time.Hour), EndedAt: since.Add(2 * time.Minute), Placement: gpus(1)}},
		7: {{StartedAt: since.Add(-time.Minute), Placement: gpus(6)}},
	}
	got := carriedInNote(jobs, byJob, since, until)
	want := "3 jobs submitted before the window held GPUs in it (job 7 (6 GPUs in pool hpc), job 2 (1 GPU in pool fs), job 1 (1 GPU in pool osmo), most GPU time first)"
	if !strings.HasPrefix(got, want) {
		t.Errorf("note %q, want it to begin %q", got, want)
	}
}
