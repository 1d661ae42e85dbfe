package lifecycle

import (
	"reflect"
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

func TestCapDrained(t *testing.T) {
	ns := func(pairs ...int32) []sched.NodeSlots {
		var out []sched.NodeSlots
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, sched.NodeSlots{Node: pairs[i], Slots: pairs[i+1]})
		}
		return out
	}
	type cap struct{ slots, zero int }
	for _, c := range []struct {
		name    string
		drained []bool
		allocs  [][]sched.NodeSlots
		want    []cap
		changed bool
	}{
		{"none drained", []bool{false, false}, [][]sched.NodeSlots{ns(0, 2)},
			[]cap{{4, 8}, {4, 8}}, false},
		{"drained, slots held", []bool{false, true}, [][]sched.NodeSlots{ns(0, 2, 1, 3), ns(1, 1)},
			[]cap{{4, 8}, {4, 0}}, true},
		{"drained, zero-slot tasks", []bool{true, false}, [][]sched.NodeSlots{ns(0, 0), ns(0, 0), ns(0, 1)},
			[]cap{{1, 2}, {4, 8}}, true},
		{"drained, empty", []bool{true, true}, nil,
			[]cap{{0, 0}, {0, 0}}, true},
		{"drained, holding all", []bool{true, false}, [][]sched.NodeSlots{ns(0, 4), ns(0, 0), ns(0, 0), ns(0, 0),
			ns(0, 0), ns(0, 0), ns(0, 0), ns(0, 0), ns(0, 0)},
			[]cap{{4, 8}, {4, 8}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := &sched.Snapshot{Nodes: []sched.Node{{Slots: 4, ZeroSlotLimit: 8}, {Slots: 4, ZeroSlotLimit: 8}}}
			for _, a := range c.allocs {
				snap.Allocs = append(snap.Allocs, sched.Alloc{Nodes: a})
			}
			_, changed := CapDrained(snap, func(n int32) bool { return c.drained[n] }, func(int32) int { return 6 }, nil)
			if changed != c.changed {
				t.Errorf("changed = %v, want %v", changed, c.changed)
			}
			for i, w := range c.want {
				if got := (cap{snap.Nodes[i].Slots, snap.Nodes[i].ZeroSlotLimit}); got != w {
					t.Errorf("node %d: slots, zero-slot limit = %v, want %v", i, got, w)
				}
			}
			// The core must not count on what a drained node's tasks free.
			for i, d := range c.drained {
				if snap.Nodes[i].Drained != d {
					t.Errorf("node %d: Drained = %v, want %v", i, snap.Nodes[i].Drained, d)
				}
				// Nor tell a job that fits the node resumed it never runs.
				if own := snap.Nodes[i].OwnSlots; d && own != 6 || !d && own != 0 {
					t.Errorf("node %d: OwnSlots = %d", i, own)
				}
			}
		})
	}
}

// TestHoldReplaced: the records Tasks.Replace leaves give the snapshot the
// allocations Hold.Replaced gives the master's, for a move (all of the
// old placement drains) and a resize (the kept part does not).
func TestHoldReplaced(t *testing.T) {
	ns := func(pairs ...int32) []sched.NodeSlots {
		var out []sched.NodeSlots
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, sched.NodeSlots{Node: pairs[i], Slots: pairs[i+1]})
		}
		return out
	}
	// Without an interval the last checkpoint is the last re-placement.
	// What drains is free by the request plus the grace: the master's
	// pool grace, the time the Cluster's driver promises (Stopping).
	const start, at, now, every, grace = 100, 400, 530, 0, 30
	for _, c := range []struct {
		name      string
		r         Replace
		old, next []sched.NodeSlots
		backfill  bool
		wantDrain []sched.NodeSlots
	}{
		{"move", Move, ns(0, 2), ns(1, 2), false, ns(0, 2)},
		{"move of a backfilled task", Move, ns(0, 2), ns(1, 2), true, ns(0, 2)},
		{"resize, growing", Resize, ns(0, 2), ns(0, 2, 1, 2), false, nil},
		{"resize, shrinking", Resize, ns(0, 3, 1, 1), ns(0, 2), false, ns(0, 1, 1, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			drain := Draining(nil, c.r, c.old, c.next)
			if !slices.Equal(drain, c.wantDrain) {
				t.Fatalf("Draining = %v, want %v", drain, c.wantDrain)
			}
			h := Hold{Attempt: Attempt{Start: start, From: start, Backfilled: c.backfill, Asked: at, Grace: grace}, Nodes: c.old}
			placed, drained := h.Replaced(c.next, drain, at)
			wantPlaced := sched.Alloc{Job: 3, Nodes: c.next, Start: start, Checkpoint: at}
			if got := placed.Alloc(3, now, every); !reflect.DeepEqual(got, wantPlaced) {
				t.Errorf("placed = %+v, want %+v", got, wantPlaced)
			}
			wantDrained := sched.Alloc{Job: 3, Nodes: drain, Start: start, Preempting: true, Moving: true,
				Backfilled: c.backfill, Checkpoint: 0, FreeBy: at + grace}
			if got := drained.Alloc(3, now, every); !reflect.DeepEqual(got, wantDrained) {
				t.Errorf("drained = %+v, want %+v", got, wantDrained)
			}

			var ts Tasks
			ti := ts.Launch(0, 0, 0, 1000, c.old, c.backfill, start)
			r := ts.Replace(ti, c.r, c.next, at, Shape{Every: every})
			if got := ts.At(ti).Alloc(3, now, every); !reflect.DeepEqual(got, wantPlaced) {
				t.Errorf("Task.Alloc of the re-placed task = %+v, want %+v", got, wantPlaced)
			}
			if (r.Drain >= 0) != (len(drain) > 0) {
				t.Fatalf("Replace's drain record = %d, with %v to drain", r.Drain, drain)
			}
			if r.Drain >= 0 {
				ts.Stopping(r.Drain, at, grace)
				if got := ts.At(r.Drain).Alloc(3, now, every); !reflect.DeepEqual(got, wantDrained) {
					t.Errorf("Task.Alloc of the drain record = %+v, want %+v", got, wantDrained)
				}
			}
		})
	}
}

// TestResumeClearsDrained: a resumed node is no longer Drained, so the
// core counts on what its tasks free again; draining marks it at the
// next cap.
func TestResumeClearsDrained(t *testing.T) {
	for _, c := range []struct {
		name string
		down bool
	}{{"up", false}, {"down", true}} {
		t.Run(c.name, func(t *testing.T) {
			snap := &sched.Snapshot{Nodes: []sched.Node{{Slots: 4, ZeroSlotLimit: 8}}}
			var b nodeBook
			b.save(snap, 0)
			if !b.setDrained(snap, 0, true) {
				t.Fatal("drain changed nothing")
			}
			b.capDrained(snap)
			if !snap.Nodes[0].Drained {
				t.Fatal("capped node not Drained")
			}
			if c.down {
				b.setDown(snap, 0, 10)
			}
			if !b.setDrained(snap, 0, false) {
				t.Fatal("resume changed nothing")
			}
			if snap.Nodes[0].Drained {
				t.Error("resumed node still Drained")
			}
		})
	}
}

// TestHoldFreeBy: a preempting or killing allocation is free by its stop
// request plus its grace, the master's Hold and the Cluster's task
// record alike (the record's by what its driver promised, Stopping); a
// running one has no deadline, and a relaunched record none left over.
func TestHoldFreeBy(t *testing.T) {
	nodes := []sched.NodeSlots{{Node: 0, Slots: 2}}
	const start, asked, grace = 100, 400, 30
	for _, c := range []struct {
		name string
		hold Hold
		task func(ts *Tasks, ti int32) // leaves a launched record as hold is
		want int64
	}{
		{"running", Hold{Attempt: Attempt{Start: start, Asked: asked, Grace: grace}, Nodes: nodes},
			func(ts *Tasks, ti int32) {}, 0},
		{"preempting", Hold{Attempt: Attempt{Start: start, Asked: asked, Grace: grace}, Nodes: nodes, Preempting: true},
			func(ts *Tasks, ti int32) { ts.Preempt(ti, asked, Shape{}); ts.Stopping(ti, asked, grace) }, asked + grace},
		{"preempting, no grace promised", Hold{Attempt: Attempt{Start: start, Asked: asked}, Nodes: nodes, Preempting: true},
			func(ts *Tasks, ti int32) { ts.Preempt(ti, asked, Shape{}) }, asked},
		{"killing", Hold{Attempt: Attempt{Start: start, Asked: asked, Grace: grace}, Nodes: nodes, Preempting: true},
			func(ts *Tasks, ti int32) { ts.Kill(ti, false); ts.Stopping(ti, asked, grace) }, asked + grace},
		{"preempted, then relaunched", Hold{Attempt: Attempt{Start: start}, Nodes: nodes},
			func(ts *Tasks, ti int32) {
				ts.Preempt(ti, asked, Shape{})
				ts.Stopping(ti, asked, grace)
				ts.Retire(ti, TaskPreempted)
				ts.Sweep()
				if again := ts.Launch(0, 0, 0, 1000, nodes, false, start); again != ti {
					t.Fatalf("relaunch took record %d, not %d", again, ti)
				}
			}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.hold.Alloc(0, 500, 0).FreeBy; got != c.want {
				t.Errorf("Hold's FreeBy = %d, want %d", got, c.want)
			}
			var ts Tasks
			ti := ts.Launch(0, 0, 0, 1000, nodes, false, start)
			c.task(&ts, ti)
			if got := ts.At(ti).Alloc(0, 500, 0).FreeBy; got != c.want {
				t.Errorf("the task record's FreeBy = %d, want %d", got, c.want)
			}
		})
	}
}
