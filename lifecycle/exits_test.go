package lifecycle_test

import (
	"math"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestExitBeforeEnd: an attempt whose exit its agent reported late
// (Task.ExitBefore) holds its slots until it ends, and its account is
// charged for them meanwhile, as the master counts an open attempt up to
// now; once it ends, its account is charged until the exit only, as if
// it had let go of them then, however it ends (its work done, failed,
// stopped, its checkpoint landed, its agent's preemption, a kill), across a
// period's end too. An exit before its start is taken at its start;
// another account is not touched.
func TestExitBeforeEnd(t *testing.T) {
	decay := sched.Decay{Period: 300, PerPeriod: 0.5}
	nodes := []sched.NodeSlots{{Node: 0, Slots: 2}}
	for _, c := range []struct {
		name        string
		before, end int64
		// finish ends task ti at the cluster's time now.
		finish func(cl *lifecycle.Cluster, ti int32, now int64)
		exit   int64 // when the charge should end
	}{
		{"completed", 30, 100, observe(lifecycle.EventEnded), 70},
		{"heard at once", 0, 100, observe(lifecycle.EventEnded), 100},
		{"failed", 30, 100, func(cl *lifecycle.Cluster, ti int32, now int64) { cl.Fail(now, ti) }, 70},
		{"stopped", 30, 100, observe(lifecycle.EventStopped), 70},
		{"checkpoint landed", 30, 100, func(cl *lifecycle.Cluster, ti int32, now int64) {
			cl.Preempt(ti, now-10)
			observe(lifecycle.EventLanded)(cl, ti, now)
		}, 70},
		{"agent preempted", 30, 100, observe(lifecycle.EventAgentPreempted), 70},
		// A user's kill, its end reported at once (the simulator's for no
		// KillAfter): charged until the exit as a slow kill's end is.
		{"killed", 30, 100, func(cl *lifecycle.Cluster, ti int32, now int64) {
			if o := cl.Observe(now, lifecycle.Event{Kind: lifecycle.EventKill, Job: cl.Tasks.At(ti).Job}); len(o.Killing) != 1 {
				panic("the kill left no task killing")
			}
			observe(lifecycle.EventKillEnded)(cl, ti, now)
		}, 70},
		{"across a period", 200, 400, observe(lifecycle.EventEnded), 200},
		{"before its start", 500, 100, observe(lifecycle.EventEnded), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			cl.Snap.Accounts = []sched.Account{{Name: "a", Parent: -1, Shares: 1}, {Name: "b", Parent: -1, Shares: 1}}
			cl.Ledgers.ChargeAccounts(decay, 4, cl.Snap.Accounts, 0)
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit,
				Submission: lifecycle.Submission{Tasks: 1, Fresh: 1000, Project: -1, Account: 0}, Entry: &sched.Job{Slots: 2, Preemptible: true}}).Job
			other := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit,
				Submission: lifecycle.Submission{Tasks: 1, Fresh: 1000, Project: -1, Account: 1}, Entry: &sched.Job{Slots: 1}}).Job
			ti := cl.Launch(ji, nodes, false, 0)
			cl.Tasks.At(ti).ExitBefore = c.before
			cl.Launch(other, []sched.NodeSlots{{Node: 0, Slots: 1}}, false, 0)

			cl.Ledgers.Advance(cl.Snap.Accounts, c.end)
			if held := charged(decay, 2, 0, c.end, c.end); !near(cl.Snap.Accounts[0].Usage, held) || cl.InUse() != 3 {
				t.Fatalf("before the end: usage %g, %d in use; want %g (charged while held), 3", cl.Snap.Accounts[0].Usage, cl.InUse(), held)
			}
			c.finish(&cl, ti, c.end)
			if cl.InUse() != 1 {
				t.Errorf("after the end %d in use, want 1", cl.InUse())
			}
			if want := charged(decay, 2, 0, c.exit, c.end); !near(cl.Snap.Accounts[0].Usage, want) {
				t.Errorf("after the end usage %g, want %g (charged until %d)", cl.Snap.Accounts[0].Usage, want, c.exit)
			}
			if want := charged(decay, 1, 0, c.end, c.end); !near(cl.Snap.Accounts[1].Usage, want) {
				t.Errorf("the other account's usage %g, want %g", cl.Snap.Accounts[1].Usage, want)
			}
			cl.Ledgers.Advance(cl.Snap.Accounts, c.end+600)
			if want := charged(decay, 2, 0, c.exit, c.end+600); !near(cl.Snap.Accounts[0].Usage, want) {
				t.Errorf("later usage %g, want %g: nothing charged after the end", cl.Snap.Accounts[0].Usage, want)
			}
		})
	}
}

// observe ends task ti with an outcome event of kind k, at its version.
func observe(k lifecycle.EventKind) func(cl *lifecycle.Cluster, ti int32, now int64) {
	return func(cl *lifecycle.Cluster, ti int32, now int64) {
		if o := cl.Observe(now, lifecycle.Event{Kind: k, Task: ti, Ver: cl.Tasks.At(ti).Ver}); !o.Applied {
			panic("the end did not apply")
		}
	}
}

// charged is an account's usage at now, over capacity 4, after holding
// slots over [from, to) and nothing else.
func charged(d sched.Decay, slots int, from, to, now int64) float64 {
	u := lifecycle.NewUsage(d, 4, 0, func(a, b int) int { return a - b })
	u.Advance(from)
	u.Hold(0, slots)
	u.Advance(to)
	u.Hold(0, -slots)
	u.Advance(now)
	return u.Get(0)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(math.Abs(b), 1e-9) }
