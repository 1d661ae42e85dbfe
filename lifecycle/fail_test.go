package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestFail: a failed task is done, holds nothing, and its job ends
// failed once every task has ended; a draining record or a retired task
// cannot fail.
func TestFail(t *testing.T) {
	nodes := []sched.NodeSlots{{Node: 0, Slots: 2}}
	for _, c := range []struct {
		name  string
		tasks int
		// run does what comes before the failure and returns the task
		// that fails.
		run       func(c *lifecycle.Cluster, ji int32) int32
		applied   bool
		over      bool
		state     lifecycle.JobState
		failed    int
		inUseLeft int
	}{
		{"the only task", 1, func(c *lifecycle.Cluster, ji int32) int32 { return c.Launch(ji, nodes, false, 0) },
			true, true, lifecycle.JobFailed, 1, 0},
		{"one of two, the other running", 2, func(c *lifecycle.Cluster, ji int32) int32 {
			c.Launch(ji, nodes, false, 0)
			return c.Launch(ji, nodes, false, 0)
		}, true, false, lifecycle.JobRunning, 1, 2},
		{"one of two, the other completed", 2, func(c *lifecycle.Cluster, ji int32) int32 {
			other := c.Launch(ji, nodes, false, 0)
			ti := c.Launch(ji, nodes, false, 0)
			c.Exit(other, false)
			return ti
		}, true, true, lifecycle.JobFailed, 1, 0},
		{"retired already", 1, func(c *lifecycle.Cluster, ji int32) int32 {
			ti := c.Launch(ji, nodes, false, 0)
			c.Exit(ti, false)
			return ti
		}, false, false, lifecycle.JobCompleted, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit,
				Submission: lifecycle.Submission{Tasks: c.tasks, Fresh: 100, Project: -1, Account: -1}, Entry: &sched.Job{Slots: 2}}).Job
			ti := c.run(&cl, ji)
			if st, over := cl.Jobs[ji].Over(); over {
				cl.Finish(ji, st, 5)
			}
			o := cl.Fail(10, ti)
			if o.Applied != c.applied || o.Over != c.over {
				t.Fatalf("Fail = %+v, want applied %v, over %v", o, c.applied, c.over)
			}
			j := &cl.Jobs[ji]
			if j.State != c.state || j.Failed != c.failed || cl.InUse() != c.inUseLeft {
				t.Errorf("job %s, %d failed, %d in use; want %s, %d, %d", j.State, j.Failed, cl.InUse(), c.state, c.failed, c.inUseLeft)
			}
			if c.applied && cl.Tasks.At(ti).State != lifecycle.TaskFailed {
				t.Errorf("task %s, want failed", cl.Tasks.At(ti).State)
			}
		})
	}
}
