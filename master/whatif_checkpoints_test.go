package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// TestJobCheckpoints: the export gives each attempt whose checkpoint
// took another time than its pool's cost its own, numbered as the
// simulator numbers attempts (a move's restart continues the attempt
// before it), and an attempt of the simulator's whose checkpoints took
// different times the first's and each later one's that differs, by its
// nth.
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
		killed    map[[2]int]int // task, attempt: when killing
		moved     [][2]int
		want      []scenario.Checkpoint
	}{
		{name: "the pool's time", atts: []store.Attempt{att(0, 1, 0, 140, store.AttemptPreempted)},
			requested: map[[2]int]int{{0, 1}: 100}},
		{name: "its own", atts: []store.Attempt{att(0, 1, 0, 110, store.AttemptPreempted), att(0, 2, 200, 0, "")},
			requested: map[[2]int]int{{0, 1}: 100},
			want:      []scenario.Checkpoint{cp(0, 1, 0, 10)}},
		{name: "later attempts and tasks", atts: []store.Attempt{
			att(0, 1, 0, 140, store.AttemptPreempted), att(0, 2, 200, 305, store.AttemptPreempted),
			att(1, 1, 0, 102, store.AttemptPreempted), att(1, 2, 200, 0, "")},
			requested: map[[2]int]int{{0, 1}: 100, {0, 2}: 300, {1, 1}: 100},
			want:      []scenario.Checkpoint{cp(0, 2, 0, 5), cp(1, 1, 0, 2)}},
		{name: "lost while checkpointing", atts: []store.Attempt{att(0, 1, 0, 120, store.AttemptLost)},
			requested: map[[2]int]int{{0, 1}: 100},
			want:      []scenario.Checkpoint{cp(0, 1, 0, 21)}},
		// Killed at 103 while checkpointing since 100, ending at 110 (its
		// kill's time, slow_kills): its checkpoint took longer than until
		// the kill, so the replay's landing comes after it.
		{name: "killed while checkpointing", atts: []store.Attempt{att(0, 1, 0, 110, store.AttemptKilled)},
			requested: map[[2]int]int{{0, 1}: 100}, killed: map[[2]int]int{{0, 1}: 103},
			want: []scenario.Checkpoint{cp(0, 1, 0, 4)}},
		{name: "still checkpointing when exported at 1000 s", atts: []store.Attempt{att(0, 1, 0, 0, "")},
			requested: map[[2]int]int{{0, 1}: 990},
			want:      []scenario.Checkpoint{cp(0, 1, 0, 11)}},
		{name: "a move continues the attempt", atts: []store.Attempt{
			att(0, 1, 0, 60, store.AttemptPreempted), att(0, 2, 60, 330, store.AttemptPreempted), att(0, 3, 400, 0, "")},
			requested: map[[2]int]int{{0, 1}: 50, {0, 2}: 300}, moved: [][2]int{{0, 1}},
			want: []scenario.Checkpoint{cp(0, 1, 0, 10), cp(0, 1, 2, 30)}},
		{name: "a move's checkpoint takes the pool's time", atts: []store.Attempt{
			att(0, 1, 0, 90, store.AttemptPreempted), att(0, 2, 90, 310, store.AttemptPreempted), att(0, 3, 400, 0, "")},
			requested: map[[2]int]int{{0, 1}: 50, {0, 2}: 300}, moved: [][2]int{{0, 1}},
			want: []scenario.Checkpoint{cp(0, 1, 0, 40), cp(0, 1, 2, 10)}},
		{name: "the same time twice", atts: []store.Attempt{
			att(0, 1, 0, 60, store.AttemptPreempted), att(0, 2, 60, 310, store.AttemptPreempted), att(0, 3, 400, 0, "")},
			requested: map[[2]int]int{{0, 1}: 50, {0, 2}: 300}, moved: [][2]int{{0, 1}},
			want: []scenario.Checkpoint{cp(0, 1, 0, 10)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := historyEvents{preempted: map[attemptKey]time.Time{}, moved: map[attemptKey]bool{}}
			for k, s := range c.requested {
				h.preempted[attemptKey{1, k[0], k[1]}] = at(s)
			}
			h.killing = map[attemptKey]time.Time{}
			for k, s := range c.killed {
				h.killing[attemptKey{1, k[0], k[1]}] = at(s)
			}
			for _, k := range c.moved {
				h.moved[attemptKey{1, k[0], k[1]}] = true
			}
			sj := scenario.Job{Name: "j1"}
			h.jobCheckpoints(&sj, c.atts, nil, 40, since, at(1000))
			if !slices.Equal(sj.Checkpoints, c.want) {
				t.Errorf("checkpoints = %+v, want %+v", sj.Checkpoints, c.want)
			}
		})
	}
}

// cp is a checkpoints item of task's attempt, for its nth checkpoint (0:
// each not named).
func cp(task, attempt, nth int, after int64) scenario.Checkpoint {
	return scenario.Checkpoint{StartLost: scenario.StartLost{Task: task, Attempt: attempt, After: after}, Nth: nth}
}
