package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestTaskRowReasons: job show's last attempt row says why its task
// failed or was killed where the attempt does not (trial 2026-11-29d
// D4), and a one-node attempt reads "running", not the gang's "every
// part runs" an older master recorded (D3); a gang keeps it.
func TestTaskRowReasons(t *testing.T) {
	one := []api.Placement{{Node: "dev-1", GPUs: []int{0}}}
	two := []api.Placement{{Node: "n1", GPUs: []int{0}}, {Node: "n2", GPUs: []int{0}}}
	for _, c := range []struct {
		name string
		task api.Task
		want string
	}{
		{"failed by max_retries", api.Task{State: "failed", Reason: "preempted 2 times, max_retries 1", Restarts: 1,
			Attempts: []api.Attempt{{Number: 1, Placement: one, EndState: "preempted", Reason: "preempted: ended by SIGTERM"},
				{Number: 2, Placement: one, EndState: "preempted", Reason: "preempted: ended by SIGTERM"}}},
			"preempted: ended by SIGTERM; task failed: preempted 2 times, max_retries 1"},
		{"failed by its exit", api.Task{State: "failed", Reason: "exit code 3",
			Attempts: []api.Attempt{{Number: 1, Placement: one, EndState: "failed", Reason: "exit code 3"}}}, "  exit code 3\n"},
		{"one node running", api.Task{State: "running", Reason: "every part runs",
			Attempts: []api.Attempt{{Number: 1, Placement: one}}}, "  running\n"},
		{"a gang running", api.Task{State: "running", Reason: "every part runs",
			Attempts: []api.Attempt{{Number: 1, Placement: two}}}, "every part runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := printTasks(&b, []api.Task{c.task}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("table\n%s\nwant %q", b.String(), c.want)
			}
		})
	}
}
