package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// TestJobCheckpoints: the export gives each attempt whose checkpoint
// took another time than its pool's cost its own, numbered as the
// simulator numbers attempts (a move's restart continues the attempt
// before it), and notes an attempt of the simulator's whose checkpoints
// took different times.
func TestJobCheckpoints(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return since.Add(time.Duration(s) * time.Second) }
	att := func(task, n, start, end int, st store.AttemptState) store.Attempt {
		a := store.Attempt{JobID: 1, Index: task, Number: n, StartedAt: at(start), EndState: st}
		if end > 0 {
			a.EndedAt = at(end)
		}
		return a
	}
	for _, c := range []struct {
		name      string
		atts      []store.Attempt
		requested map[[2]int]int // task, attempt: when asked
		moved     [][2]int
		want      []scenario.StartLost
		note      string
	}{
		{name: "the pool's time", atts: []store.Attempt{att(0, 1, 0, 140, store.AttemptPreempted)},
			requested: map[[2]int]int{{0, 1}: 100}},
		{name: "its own", atts: []store.Attempt{att(0, 1, 0, 110, store.AttemptPreempted), att(0, 2, 200, 0, "")},
			requested: map[[2]int]int{{0, 1}: 100},
			want:      []scenario.StartLost{{Task: 0, Attempt: 1, After: 10}}},
		{name: "later attempts and tasks", atts: []store.Attempt{
			att(0, 1, 0, 140, store.AttemptPreempted), att(0, 2, 200, 305, store.AttemptPreempted),
			att(1, 1, 0, 102, store.AttemptPreempted), att(1, 2, 200, 0, "")},
			requested: map[[2]int]int{{0, 1}: 100, {0, 2}: 300, {1, 1}: 100},
			want:      []scenario.StartLost{{Task: 0, Attempt: 2, After: 5}, {Task: 1, Attempt: 1, After: 2}}},
		{name: "lost while checkpointing", atts: []store.Attempt{att(0, 1, 0, 120, store.AttemptLost)},
			requested: map[[2]int]int{{0, 1}: 100},
			want:      []scenario.StartLost{{Task: 0, Attempt: 1, After: 21}}},
		{name: "still checkpointing when exported at 1000 s", atts: []store.Attempt{att(0, 1, 0, 0, "")},
			requested: map[[2]int]int{{0, 1}: 990},
			want:      []scenario.StartLost{{Task: 0, Attempt: 1, After: 11}}},
		{name: "a move continues the attempt", atts: []store.Attempt{
			att(0, 1, 0, 60, store.AttemptPreempted), att(0, 2, 60, 330, store.AttemptPreempted), att(0, 3, 400, 0, "")},
			requested: map[[2]int]int{{0, 1}: 50, {0, 2}: 300}, moved: [][2]int{{0, 1}},
			want: []scenario.StartLost{{Task: 0, Attempt: 1, After: 10}},
			note: "task 0's attempt 1 checkpointed 2 times"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := historyEvents{preempted: map[attemptKey]time.Time{}, moved: map[attemptKey]bool{}}
			for k, s := range c.requested {
				h.preempted[attemptKey{1, k[0], k[1]}] = at(s)
			}
			for _, k := range c.moved {
				h.moved[attemptKey{1, k[0], k[1]}] = true
			}
			sj := scenario.Job{Name: "j1"}
			notes := h.jobCheckpoints(&sj, c.atts, 40, since, at(1000))
			if !slices.Equal(sj.Checkpoints, c.want) {
				t.Errorf("checkpoints = %+v, want %+v", sj.Checkpoints, c.want)
			}
			if got := strings.Join(notes, "\n"); c.note == "" && got != "" || !strings.Contains(got, c.note) {
				t.Errorf("notes = %q, want one with %q", got, c.note)
			}
		})
	}
}
