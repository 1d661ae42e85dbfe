package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestRequeue: a requeue asks a job's running task to checkpoint (not
// counted as a pass's preemption), and once its checkpoint lands the
// task waits again with the work it had; with hold the job is held at
// once, so that its entry waits for nothing after the landing until a
// release. A queued job's requeue applies only with hold; a job whose
// exit actions would fail the task, and an ended job, are not requeued.
func TestRequeue(t *testing.T) {
	for _, c := range []struct {
		name          string
		launch        bool
		hold          bool
		failOnPreempt bool
		kill          bool
		wantApplied   bool
		wantRequeued  int
		wantWaiting   int // the entry's waiting count after the landing
	}{
		{"a running job", true, false, false, false, true, 1, 3},
		{"a running job, held", true, true, false, false, true, 1, 0},
		{"a queued job: nothing to requeue", false, false, false, false, false, 0, 3},
		{"a queued job, held", false, true, false, false, true, 0, 0},
		{"exit actions that fail it", true, false, true, false, false, 0, 2},
		{"an ended job", true, false, false, true, false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			cl.Snap.Nodes = []sched.Node{{Slots: 4}}
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: lifecycle.Submission{Tasks: 3,
				Fresh: 100, Project: -1, Account: -1, FailOnPreempt: c.failOnPreempt}, Entry: &sched.Job{Slots: 1}}).Job
			ti := int32(-1)
			if c.launch {
				ti = cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 1}}, false, 0)
			}
			if c.kill {
				cl.Observe(1, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji})
			}
			o := cl.Observe(10, lifecycle.Event{Kind: lifecycle.EventRequeue, Job: ji, Hold: c.hold})
			if o.Applied != c.wantApplied || len(o.Requeued) != c.wantRequeued {
				t.Fatalf("requeue: applied %v, requeued %v; want %v, %d", o.Applied, o.Requeued, c.wantApplied, c.wantRequeued)
			}
			if c.kill {
				return // off the roster
			}
			if cl.Jobs[ji].Preempts != 0 {
				t.Errorf("preempts %d, want none: no pass asked it", cl.Jobs[ji].Preempts)
			}
			for _, r := range o.Requeued {
				task := cl.Tasks.At(r)
				if task.State != lifecycle.TaskPreempting {
					t.Fatalf("requeued task: %s, want preempting", task.State)
				}
				if l := cl.Observe(20, lifecycle.Event{Kind: lifecycle.EventLanded, Task: r, Ver: task.Ver}); !l.Applied ||
					l.Attempt != lifecycle.AttemptPreempted {
					t.Fatalf("landing: %+v, want applied, attempt preempted", l)
				}
			}
			if ti >= 0 && c.wantRequeued > 0 && cl.Jobs[ji].Waiting != 3 {
				t.Errorf("job waits %d tasks after the landing, want 3", cl.Jobs[ji].Waiting)
			}
			if got := cl.Roster.Entry(ji).Waiting; got != c.wantWaiting {
				t.Fatalf("entry waits %d, want %d", got, c.wantWaiting)
			}
			if c.hold {
				cl.Observe(30, lifecycle.Event{Kind: lifecycle.EventRelease, Job: ji})
				if got := cl.Roster.Entry(ji).Waiting; got != 3 {
					t.Fatalf("released: entry waits %d, want 3", got)
				}
			}
		})
	}
}

// TestRequeueRefused: a requeue is refused where the task's next stop
// would fail it by its job's exit actions.
func TestRequeueRefused(t *testing.T) {
	for _, c := range []struct {
		name       string
		fail       bool
		max, tries int32
		want       bool
	}{
		{"reschedule, no cap", false, 0, 5, false},
		{"under the cap", false, 2, 1, false},
		{"at the cap", false, 2, 2, true},
		{"on_preempt fail", true, 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lifecycle.RequeueRefused(c.fail, c.max, c.tries); got != c.want {
				t.Fatalf("RequeueRefused(%v, %d, %d) = %v, want %v", c.fail, c.max, c.tries, got, c.want)
			}
		})
	}
}
