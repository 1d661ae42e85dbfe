package lifecycle_test

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestStateNames pins the states' values: the master persists them, so
// they are never renamed.
func TestStateNames(t *testing.T) {
	for _, c := range []struct {
		name   string
		got    string
		active bool // TaskState only
		term   bool
	}{
		{"task queued", string(lifecycle.TaskQueued), false, false},
		{"task starting", string(lifecycle.TaskStarting), true, false},
		{"task running", string(lifecycle.TaskRunning), true, false},
		{"task preempting", string(lifecycle.TaskPreempting), true, false},
		{"task killing", string(lifecycle.TaskKilling), true, false},
		{"task preempted", string(lifecycle.TaskPreempted), false, false},
		{"task completed", string(lifecycle.TaskCompleted), false, true},
		{"task failed", string(lifecycle.TaskFailed), false, true},
		{"task killed", string(lifecycle.TaskKilled), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := lifecycle.TaskState(c.got)
			if want := c.name[len("task "):]; c.got != want {
				t.Errorf("value %q, want %q", c.got, want)
			}
			if !st.Valid() || st.Active() != c.active || st.Terminal() != c.term {
				t.Errorf("valid %t active %t terminal %t, want true %t %t", st.Valid(), st.Active(), st.Terminal(), c.active, c.term)
			}
		})
	}
	for _, c := range []struct {
		name string
		st   lifecycle.JobState
		term bool
	}{
		{"queued", lifecycle.JobQueued, false},
		{"running", lifecycle.JobRunning, false},
		{"completed", lifecycle.JobCompleted, true},
		{"failed", lifecycle.JobFailed, true},
		{"killed", lifecycle.JobKilled, true},
	} {
		t.Run("job "+c.name, func(t *testing.T) {
			if string(c.st) != c.name || !c.st.Valid() || c.st.Terminal() != c.term {
				t.Errorf("%q: valid %t terminal %t, want %q true %t", c.st, c.st.Valid(), c.st.Terminal(), c.name, c.term)
			}
		})
	}
	for _, s := range []string{"", "pending", "Queued", "moving"} {
		t.Run("unknown "+s, func(t *testing.T) {
			if lifecycle.TaskState(s).Valid() || lifecycle.JobState(s).Valid() {
				t.Errorf("%q is valid", s)
			}
		})
	}
}

// TestTaskEndStates checks the state each way of letting go of slots
// leaves a task record in, and for a kill the state it reports the
// record held its slots in.
func TestTaskEndStates(t *testing.T) {
	type act func(c *lifecycle.Cluster) (ti int32, from lifecycle.TaskState)
	elsewhere := []sched.NodeSlots{{Node: 1, Slots: 1}}
	// kill kills job 0, ends each kill it left killing as its driver
	// does (EventKillEnded), and reports record ti and the state it held
	// its slots in: freed by the kill or, killing, by its end.
	kill := func(ti int32) act {
		return func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			o := c.Observe(10, lifecycle.Event{Kind: lifecycle.EventKill, Job: 0})
			from := lifecycle.TaskState("none")
			for _, f := range o.Freed {
				if f.Task == ti {
					from = f.From
				}
			}
			for _, k := range slices.Clone(o.Killing) {
				if end := c.Observe(10, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: k.Task, Ver: c.Tasks.At(k.Task).Ver}); !end.Applied {
					return k.Task, "its kill's end did not apply"
				}
				if k.Task == ti {
					from = k.From
				}
			}
			return ti, from
		}
	}
	then := func(first func(c *lifecycle.Cluster), next act) act {
		return func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			first(c)
			return next(c)
		}
	}
	preempt := func(c *lifecycle.Cluster) { c.Preempt(0, 5) }
	move := func(c *lifecycle.Cluster) { c.Replace(0, elsewhere, lifecycle.Move, true, 5) }
	for _, c := range []struct {
		name          string
		failOnPreempt bool
		// act runs on a cluster whose job 0 runs task record 0 since 0.
		act      act
		want     lifecycle.TaskState
		wantFrom lifecycle.TaskState // a kill's Freed.From or KillingTask.From, else ""
	}{
		{"running", false, func(*lifecycle.Cluster) (int32, lifecycle.TaskState) { return 0, "" },
			lifecycle.TaskRunning, ""},
		{"preempting", false, then(preempt, func(*lifecycle.Cluster) (int32, lifecycle.TaskState) { return 0, "" }),
			lifecycle.TaskPreempting, ""},
		{"work done", false, func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			c.Exit(0, false)
			return 0, ""
		}, lifecycle.TaskCompleted, ""},
		{"time limit", false, func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			c.Exit(0, true)
			return 0, ""
		}, lifecycle.TaskKilled, ""},
		{"checkpoint landed", false, then(preempt, func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			c.Checkpointed(0)
			return 0, ""
		}), lifecycle.TaskPreempted, ""},
		{"not rescheduled", true, then(preempt, func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			c.Checkpointed(0)
			return 0, ""
		}), lifecycle.TaskFailed, ""},
		{"draining", false, then(move, func(*lifecycle.Cluster) (int32, lifecycle.TaskState) { return 1, "" }),
			lifecycle.TaskPreempting, ""},
		{"drained", false, then(move, func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			c.Landed(0, 10)
			return 1, ""
		}), lifecycle.TaskPreempted, ""},
		{"moved checkpoints", false, then(move, func(*lifecycle.Cluster) (int32, lifecycle.TaskState) { return 0, "" }),
			lifecycle.TaskRunning, ""},
		{"moved runs on", false, then(move, func(c *lifecycle.Cluster) (int32, lifecycle.TaskState) {
			c.Landed(0, 10)
			return 0, ""
		}), lifecycle.TaskRunning, ""},
		{"killed running", false, kill(0), lifecycle.TaskKilled, lifecycle.TaskRunning},
		{"killed preempting", false, then(preempt, kill(0)), lifecycle.TaskKilled, lifecycle.TaskPreempting},
		{"killed draining", false, then(move, kill(1)), lifecycle.TaskKilled, lifecycle.TaskPreempting},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			ji := submit(&cl, 0, lifecycle.Submission{Tasks: 1, Fresh: 100, FailOnPreempt: c.failOnPreempt, Project: -1, Account: -1},
				sched.Job{ID: "j", Slots: 1, Project: -1, Account: -1})
			if ti := cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 1}}, false, 0); ti != 0 {
				t.Fatalf("launched record %d, want 0", ti)
			}
			ti, from := c.act(&cl)
			if got := cl.Tasks.At(ti).State; got != c.want || from != c.wantFrom {
				t.Errorf("record %d is %q (freed from %q), want %q (from %q)", ti, got, from, c.want, c.wantFrom)
			}
		})
	}
}
