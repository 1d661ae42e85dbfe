package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestPoolNotesSchedulerFailing: allot pools says, under its table, that
// the master's passes fail, with the error, and says nothing of it when
// they do not.
func TestPoolNotesSchedulerFailing(t *testing.T) {
	cases := []struct {
		name, err, want string
	}{
		{"failing", `schedule: job "7": account -1`, "scheduling passes fail, so no pool schedules"},
		{"succeeding", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			pools := []api.Pool{{Name: "a", Nodes: 1, SchedulerError: tc.err}, {Name: "b", Nodes: 1, SchedulerError: tc.err}}
			if err := printPoolNotes(&b, pools); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || strings.Count(got, "scheduling passes fail") > 1 {
				t.Errorf("notes %q, want one with %q", got, tc.want)
			}
			if tc.err != "" && !strings.Contains(got, tc.err) {
				t.Errorf("notes %q lack the error %q", got, tc.err)
			}
		})
	}
}
