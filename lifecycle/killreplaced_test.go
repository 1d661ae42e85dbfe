package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestSlowKillReplacing: a kill of a task whose move or resize is in
// flight (its KillAfter 0 here: the Cluster reads none, its driver sends
// the end) leaves it killing on its old
// placement, as the master's killing attempt holds its GPUs until its
// agent reports the end: the move's reservation is let go of at the kill
// (but what a resize kept of the old placement), the draining record
// is retired, the landing promised for the move is stale, and the
// kill's end frees the old placement.
func TestSlowKillReplacing(t *testing.T) {
	n := func(node, slots int32) sched.NodeSlots { return sched.NodeSlots{Node: node, Slots: slots} }
	for _, c := range []struct {
		name      string
		kind      lifecycle.Replace
		old, next []sched.NodeSlots
		freed     int // at the kill
	}{
		{"a move", lifecycle.Move, []sched.NodeSlots{n(1, 2)}, []sched.NodeSlots{n(0, 2)}, 2},
		{"a resize in place", lifecycle.Resize, []sched.NodeSlots{n(0, 1)}, []sched.NodeSlots{n(0, 4)}, 3},
		{"a resize elsewhere", lifecycle.Resize, []sched.NodeSlots{n(1, 2)}, []sched.NodeSlots{n(0, 4)}, 4},
		{"a resize that shrinks", lifecycle.Resize, []sched.NodeSlots{n(0, 4)}, []sched.NodeSlots{n(0, 2)}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			cl.Snap.Nodes = []sched.Node{{Slots: 4}, {Slots: 2}}
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: lifecycle.Submission{Tasks: 1,
				Fresh: 1000, Project: -1, Account: -1}, Entry: &sched.Job{Slots: 2}}).Job
			ti := cl.Launch(ji, c.old, false, 0)
			cl.Replace(ti, c.next, c.kind, false, 60)
			landing := cl.Tasks.At(ti).Ver
			held := cl.InUse()
			o := cl.Observe(70, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji})
			tk := cl.Tasks.At(ti)
			if !o.Applied || len(o.Killing) != 1 || o.Killing[0].Task != ti || tk.State != lifecycle.TaskKilling || tk.Replacing() {
				t.Fatalf("the kill: %+v, task %s, replacing %t; want the task killing, its move over", o, tk.State, tk.Replacing())
			}
			freed := 0
			for _, f := range o.Freed {
				freed += f.Slots
			}
			if freed != c.freed || cl.InUse() != held-c.freed || sched.Slots(tk.Nodes) != sched.Slots(c.old) {
				t.Errorf("at the kill %d freed, %d in use, the task on %v; want %d freed, %d in use, on %v",
					freed, cl.InUse(), tk.Nodes, c.freed, held-c.freed, c.old)
			}
			if late := cl.Observe(90, lifecycle.Event{Kind: lifecycle.EventLanded, Task: ti, Ver: landing}); late.Applied {
				t.Error("the move's landing applied after the kill")
			}
			var snap sched.Snapshot
			cl.Snapshot(&snap, 72)
			if len(snap.Allocs) != 1 || !snap.Allocs[0].Preempting || snap.Allocs[0].Moving ||
				sched.Slots(snap.Allocs[0].Nodes) != sched.Slots(c.old) {
				t.Errorf("while killing the snapshot has %+v; want the old placement %v, preempting", snap.Allocs, c.old)
			}
			end := cl.Observe(75, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: ti, Ver: cl.Tasks.At(ti).Ver})
			if !end.Applied || end.Slots != sched.Slots(c.old) || end.Attempt != lifecycle.AttemptKilled || !end.Over || cl.InUse() != 0 {
				t.Errorf("the kill's end: %+v, %d in use; want %d freed, killed, the job over, 0 in use", end, cl.InUse(), sched.Slots(c.old))
			}
		})
	}
}
