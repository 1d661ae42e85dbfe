package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// TestEndsAfterPass: an attempt is in ends_after_pass when a decision
// came before its end within its second, numbered as the simulator
// numbers attempts; not for a decision in the second before, at or after
// the end, nor for a lost attempt or a moved task.
func TestEndsAfterPass(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return since.Add(time.Duration(s * float64(time.Second))) }
	att := func(task, n int, end float64, st store.AttemptState) store.Attempt {
		return store.Attempt{JobID: 1, Index: task, Number: n, StartedAt: at(1), EndedAt: at(end), EndState: st}
	}
	for _, tc := range []struct {
		name      string
		decisions []float64
		atts      []store.Attempt
		moved     bool
		want      []scenario.EndAfterPass
	}{
		{"a start before the end", []float64{34.167}, []store.Attempt{att(0, 1, 34.856, store.AttemptCompleted)}, false,
			[]scenario.EndAfterPass{{Task: 0, Attempt: 1}}},
		{"a start after the end", []float64{34.9}, []store.Attempt{att(0, 1, 34.856, store.AttemptCompleted)}, false, nil},
		{"a start at the end", []float64{34.856}, []store.Attempt{att(0, 1, 34.856, store.AttemptCompleted)}, false, nil},
		{"a start the second before", []float64{33.99}, []store.Attempt{att(0, 1, 34.856, store.AttemptCompleted)}, false, nil},
		{"the second attempt, preempted then killed", []float64{20.1, 34.1},
			[]store.Attempt{att(0, 1, 20.5, store.AttemptPreempted), att(0, 2, 34.856, store.AttemptKilled)}, false,
			[]scenario.EndAfterPass{{Task: 0, Attempt: 1}, {Task: 0, Attempt: 2}}},
		{"lost", []float64{34.1}, []store.Attempt{att(0, 1, 34.856, store.AttemptLost)}, false, nil},
		{"moved", []float64{34.1}, []store.Attempt{att(0, 1, 34.856, store.AttemptCompleted)}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHistoryEvents(nil)
			for _, d := range tc.decisions {
				h.decisions = append(h.decisions, at(d))
			}
			if tc.moved {
				h.moved[attemptKey{1, 0, 1}] = true
			}
			if got := h.endsAfterPass(tc.atts, since); !slices.Equal(got, tc.want) {
				t.Errorf("ends_after_pass %+v, want %+v", got, tc.want)
			}
		})
	}
}
