package lifecycle

import (
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestLaunchWorks: a fresh task starts with its own work where the
// submission gives one (Works), else Fresh; a resumed task keeps the
// work it had left.
func TestLaunchWorks(t *testing.T) {
	nodes := []sched.NodeSlots{{Node: 0, Slots: 1}}
	tests := []struct {
		name  string
		works map[int32]int64
		want  []int64 // the work of tasks 0, 1 and 2 as they launch
	}{
		{"no works", nil, []int64{100, 100, 100}},
		{"task 1 its own", map[int32]int64{1: 30}, []int64{100, 30, 100}},
		{"no work and more", map[int32]int64{0: 0, 2: 250}, []int64{0, 100, 250}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ts Tasks
			j := NewJob(Submission{Tasks: 3, Fresh: 100, Works: tc.works}, nil)
			for i, w := range tc.want {
				ti := j.Launch(&ts, 0, nodes, false, 0)
				if got := ts.At(ti); got.ID != int32(i) || got.Work != w {
					t.Errorf("launch %d: task %d with work %d, want task %d with %d", i, got.ID, got.Work, i, w)
				}
			}
		})
	}
	t.Run("a resumed task keeps its work left", func(t *testing.T) {
		var ts Tasks
		j := NewJob(Submission{Tasks: 2, Fresh: 100, Works: map[int32]int64{0: 30}}, nil)
		j.Launch(&ts, 0, nodes, false, 0)
		j.Resume = append(j.Resume, Resumed{Work: 12, ID: 0, Retries: 1})
		j.Waiting++
		if got := ts.At(j.Launch(&ts, 0, nodes, false, 5)); got.ID != 0 || got.Work != 12 {
			t.Errorf("resumed task %d with work %d, want task 0 with 12", got.ID, got.Work)
		}
	})
}
