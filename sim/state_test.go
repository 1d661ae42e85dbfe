package sim

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
)

// TestStateOf pins the names results give the shared job states: the
// result's names are a public contract, older than the vocabulary, so
// they stay what they were whatever the vocabulary calls the states.
func TestStateOf(t *testing.T) {
	for _, c := range []struct {
		name string
		st   lifecycle.JobState
		want State
	}{
		{"queued is pending", lifecycle.JobQueued, "pending"},
		{"running", lifecycle.JobRunning, "running"},
		{"completed", lifecycle.JobCompleted, "completed"},
		{"failed", lifecycle.JobFailed, "failed"},
		{"killed", lifecycle.JobKilled, "killed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stateOf(c.st); got != c.want {
				t.Errorf("stateOf(%q) = %q, want %q", c.st, got, c.want)
			}
		})
	}
	t.Run("unknown panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("stateOf of an unknown state did not panic")
			}
		}()
		stateOf("paused")
	})
}
