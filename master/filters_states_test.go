package master

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestParseJobStates: GET /jobs's state filter; all is every state, as
// the CLI's -t all and a dashboard link #/jobs?state=all mean.
func TestParseJobStates(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []store.JobState
		err      string
	}{
		{"none", "", nil, ""},
		{"all", "all", nil, ""},
		{"one", "queued", []store.JobState{store.JobQueued}, ""},
		{"several, repeated", "queued,running,queued", []store.JobState{store.JobQueued, store.JobRunning}, ""},
		{"killing", "killing", []store.JobState{stateKilling}, ""},
		{"all among others is not a state", "queued,all", nil, `state "all": expected one of`},
		{"unknown", "bogus", nil, `state "bogus": expected one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseJobStates(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
