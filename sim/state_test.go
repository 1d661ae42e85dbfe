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

// TestAttemptNames pins the names results give the shared attempt end
// states (attemptNames): like the job states', they are a public
// contract. Every end state has a name, each name means one end state,
// and the open attempts' names mean none.
func TestAttemptNames(t *testing.T) {
	for _, c := range []struct {
		name      string
		end       lifecycle.AttemptState
		timeLimit bool
		want      AttemptState
	}{
		{"completed", lifecycle.AttemptCompleted, false, "COMPLETED"},
		{"failed", lifecycle.AttemptFailed, false, "FAILED"},
		{"killed by a kill", lifecycle.AttemptKilled, false, "FAILED_CANCELED"},
		{"killed by its time limit", lifecycle.AttemptKilled, true, "FAILED_EXEC_TIMEOUT"},
		{"preempted", lifecycle.AttemptPreempted, false, "FAILED_PREEMPTED"},
		{"lost", lifecycle.AttemptLost, false, "FAILED_NODE_LOST"},
		{"a time limit only qualifies a kill", lifecycle.AttemptCompleted, true, "COMPLETED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := attemptName(c.end, c.timeLimit); got != c.want {
				t.Errorf("attemptName(%q, %v) = %q, want %q", c.end, c.timeLimit, got, c.want)
			}
			end, limit, ok := c.want.End()
			if !ok || end != c.end || limit != (c.timeLimit && c.end == lifecycle.AttemptKilled) {
				t.Errorf("%q.End() = %q, %v, %v; want %q, %v", c.want, end, limit, ok, c.end, c.timeLimit)
			}
		})
	}
	t.Run("every end state has a name", func(t *testing.T) {
		for _, s := range lifecycle.AttemptStates() {
			if n := attemptName(s, false); n == "" {
				t.Errorf("end state %q has no name", s)
			}
		}
	})
	t.Run("open attempts end nothing", func(t *testing.T) {
		for _, s := range []AttemptState{AttemptRunning, AttemptPreempting, "PAUSED"} {
			if end, _, ok := s.End(); ok {
				t.Errorf("%q.End() = %q, want none", s, end)
			}
		}
	})
}
