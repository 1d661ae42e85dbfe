package master

import (
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestStateSentence: an explanation of a job that waits for nothing says
// its state as English does.
func TestStateSentence(t *testing.T) {
	for _, c := range []struct{ state, want string }{
		{"failed", "It failed"},
		{"killed", "It was killed"},
		{"completed", "It completed"},
		{"queued", "It is queued"},
	} {
		t.Run(c.state, func(t *testing.T) {
			if got := stateSentence(c.state); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestJobList: a sentence names a few jobs and counts the rest, as a
// play-out of a full pool can name hundreds (the structured fields list
// them all).
func TestJobList(t *testing.T) {
	refs := func(n int) []api.JobRef {
		var r []api.JobRef
		for i := 1; i <= n; i++ {
			r = append(r, api.JobRef{ID: int64(i)})
		}
		return r
	}
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"one", 1, "job 1"},
		{"two", 2, "jobs 1 and 2"},
		{"as many as are named", maxNamed, "jobs 1, 2, 3, 4, 5, 6, 7 and 8"},
		{"more than are named", 400, "jobs 1, 2, 3, 4, 5, 6, 7, 8 and 392 more"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := jobList(refs(c.n)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
