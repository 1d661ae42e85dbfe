package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// TestSettlingOneInstant: a settling's passes build and apply at the
// instant read as it began, as the Cluster's Step settles the instant it
// is given, although the clock ticks while the core plans (each pass
// moves it a second on); but a handler that changes something while the
// core plans moves the instant on to the clock then, so that no start is
// stamped before the submission it follows. In a priority pool the
// passes go on until one changes nothing: a start, then a confirming
// pass (two jobs: one pass more).
func TestSettlingOneInstant(t *testing.T) {
	tests := []struct {
		name string
		// mid submits the second job while the first pass plans.
		mid bool
		// nows are the passes' snapshots' Now, starts the jobs' starts
		// (the tasks' transitions to starting, the attempts' and the
		// jobs' transitions to running), both from the instant the
		// settling began.
		nows   []time.Duration
		starts []time.Duration
	}{
		{"the clock ticks while the core plans", false, []time.Duration{0, 0}, []time.Duration{0}},
		{"a job submitted while the core plans", true, []time.Duration{0, time.Second, time.Second},
			[]time.Duration{time.Second, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority}\n")))
			h.agent("n1", 4)
			h.clock.Advance(900 * time.Millisecond) // the instant has a fraction of a second
			began := h.clock.Now()
			jobs := []int64{h.submit(jobSpec("a", 2, ""))}
			var nows []time.Duration
			passUnlocked = func(*sched.Plan) {
				nows = append(nows, time.Duration(h.m.planner.snap.Now-began.Unix())*time.Second)
				h.clock.Advance(time.Second)
				if tt.mid && len(nows) == 1 {
					jobs = append(jobs, h.submit(jobSpec("b", 2, "")))
				}
			}
			t.Cleanup(func() { passUnlocked = nil })
			h.step()
			passUnlocked = nil
			if !slices.Equal(nows, tt.nows) {
				t.Errorf("passes at %v, want %v (from the settling's start)", nows, tt.nows)
			}
			if len(jobs) != len(tt.starts) {
				t.Fatalf("%d jobs, want %d", len(jobs), len(tt.starts))
			}
			for i, id := range jobs {
				checkStartedAt(t, h, id, began.Add(tt.starts[i]))
			}
		})
	}
}

// checkStartedAt checks that job id's task 0 started at at (its
// transition to starting and its attempt), and its job went running
// then, neither before the job's submission.
func checkStartedAt(t *testing.T, h *harness, id int64, at time.Time) {
	t.Helper()
	j, err := h.st.Job(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range evs {
		if (e.Index == 0 && e.To == string(store.TaskStarting)) || (e.Index < 0 && e.To == string(store.JobRunning)) {
			seen++
			if e.At.Before(j.SubmittedAt) {
				t.Errorf("job %d: event %d (task %d to %s) at %v, before its submission at %v", id, e.Seq, e.Index, e.To, e.At, j.SubmittedAt)
			}
			if !e.At.Equal(at) {
				t.Errorf("job %d: event %d (task %d to %s) at %v, want %v", id, e.Seq, e.Index, e.To, e.At, at)
			}
		}
	}
	if seen != 2 {
		t.Errorf("job %d: %d transitions to starting and running, want 2: %+v", id, seen, evs)
	}
	atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 1 || !atts[0].StartedAt.Equal(at) {
		t.Errorf("job %d: attempts %+v, want one started at %v", id, atts, at)
	}
}
