package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestJobQueuedAgain: a job whose only running task ends while another
// waits is queued again, however the task ended, as the master's
// settleJob says (lifecycle.LiveJob); it is not left running until its
// next start.
func TestJobQueuedAgain(t *testing.T) {
	nodes := []sched.NodeSlots{{Node: 0, Slots: 2}}
	for _, c := range []struct {
		name string
		end  func(c *lifecycle.Cluster, ti int32)
	}{
		{"completed", func(c *lifecycle.Cluster, ti int32) { c.Exit(ti, false) }},
		{"killed at its time limit", func(c *lifecycle.Cluster, ti int32) { c.Exit(ti, true) }},
		{"failed", func(c *lifecycle.Cluster, ti int32) { c.Fail(10, ti) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit,
				Submission: lifecycle.Submission{Tasks: 2, Fresh: 100, Project: -1, Account: -1}, Entry: &sched.Job{Slots: 2}}).Job
			ti := cl.Launch(ji, nodes, false, 0)
			if st := cl.Jobs[ji].State; st != lifecycle.JobRunning {
				t.Fatalf("after the start: %s, want running", st)
			}
			c.end(&cl, ti)
			if st := cl.Jobs[ji].State; st != lifecycle.JobQueued {
				t.Errorf("with its other task waiting: %s, want queued", st)
			}
		})
	}
}
