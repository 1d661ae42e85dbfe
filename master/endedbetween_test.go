package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

func TestEndedBetween(t *testing.T) {
	ended := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		tasks []store.Task
		atts  []store.Attempt
		want  bool
	}{
		{"open attempt of a killing task", []store.Task{{Index: 0, State: store.TaskKilling}},
			[]store.Attempt{{Index: 0, Number: 2}}, false},
		{"open attempt of a task read killed", []store.Task{{Index: 0, State: store.TaskKilled}},
			[]store.Attempt{{Index: 0, Number: 1, EndedAt: ended}, {Index: 0, Number: 2}}, true},
		{"open attempt of a task read queued again", []store.Task{{Index: 1, State: store.TaskQueued}},
			[]store.Attempt{{Index: 1, Number: 1}}, true},
		{"every attempt of an ended task ended", []store.Task{{Index: 0, State: store.TaskKilled}},
			[]store.Attempt{{Index: 0, Number: 1, EndedAt: ended}}, false},
		{"another task's open attempt", []store.Task{{Index: 0, State: store.TaskCompleted}, {Index: 1, State: store.TaskRunning}},
			[]store.Attempt{{Index: 0, Number: 1, EndedAt: ended}, {Index: 1, Number: 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := endedBetween(tt.tasks, tt.atts); got != tt.want {
				t.Errorf("endedBetween = %v, want %v", got, tt.want)
			}
		})
	}
}
