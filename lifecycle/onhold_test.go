package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestHold: a held job's entry shows nothing waiting, so that no pass
// starts it, and its waiting tasks again once released; a job submitted
// held is held from its submission; a hold of a job with a task holding
// slots is not applied (CanHold, the master's refusal too), nor a second
// hold, a release of a job not held, or either of an ended job. A
// running job's tasks that wait again while it is held stay hidden.
func TestHold(t *testing.T) {
	type step struct {
		kind        lifecycle.EventKind
		wantApplied bool
		wantWaiting int
	}
	hold := lifecycle.EventHold
	release := lifecycle.EventRelease
	for _, c := range []struct {
		name   string
		held   bool // submitted held
		launch bool // a task holds slots before the steps
		kill   bool // the job is killed before the steps
		steps  []step
	}{
		{"hold and release", false, false, false, []step{{hold, true, 0}, {hold, false, 0}, {release, true, 3}, {release, false, 3}}},
		{"submitted held", true, false, false, []step{{hold, false, 0}, {release, true, 3}}},
		{"a running job is not held", false, true, false, []step{{hold, false, 2}, {release, false, 2}}},
		{"an ended job is neither held nor released", false, false, true, []step{{hold, false, 0}, {release, false, 0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			cl.Snap.Nodes = []sched.Node{{Slots: 4}}
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: lifecycle.Submission{Tasks: 3,
				Fresh: 100, Project: -1, Account: -1, Held: c.held}, Entry: &sched.Job{Slots: 1}}).Job
			if got, want := cl.Roster.Entry(ji).Waiting, lifecycle.ShownWaiting(3, c.held); got != want {
				t.Fatalf("at submission: entry waits %d, want %d", got, want)
			}
			if c.launch {
				cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 1}}, false, 0)
			}
			if c.kill {
				cl.Observe(1, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji})
			}
			for i, s := range c.steps {
				o := cl.Observe(int64(10+i), lifecycle.Event{Kind: s.kind, Job: ji})
				if o.Applied != s.wantApplied {
					t.Fatalf("step %d: applied %v, want %v", i, o.Applied, s.wantApplied)
				}
				if c.kill {
					continue // off the roster
				}
				if got := cl.Roster.Entry(ji).Waiting; got != s.wantWaiting {
					t.Fatalf("step %d: entry waits %d, want %d", i, got, s.wantWaiting)
				}
			}
		})
	}
}

// TestCanHold: only a job with no task holding slots may be held.
func TestCanHold(t *testing.T) {
	for _, c := range []struct {
		name   string
		active int
		want   bool
	}{
		{"none active", 0, true},
		{"one running", 1, false},
		{"two", 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lifecycle.CanHold(c.active); got != c.want {
				t.Fatalf("CanHold(%d) = %v, want %v", c.active, got, c.want)
			}
		})
	}
}
