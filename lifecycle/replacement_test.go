package lifecycle

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestReplacementLifecycle walks the record of a move or resize in
// flight through the transitions both drivers make of it: reserved, it
// is in flight with what the views say; landed or abandoned, it is
// gone, and ending it again reports that nothing was in flight.
func TestReplacementLifecycle(t *testing.T) {
	for _, tt := range []struct {
		name     string
		reserve  bool
		at, job  int64
		why      string
		wantWas  bool
		wantSays Replacement // what it says while in flight (Since, For, Why)
	}{
		{"nothing reserved", false, 0, 0, "", false, Replacement{}},
		{"a move for a job", true, 600, 16, "", true, Replacement{Since: 600, For: 16}},
		{"a shrink with its rule", true, 90, 7, "quota reclaim", true, Replacement{Since: 90, For: 7, Why: "quota reclaim"}},
		{"growth, for no job", true, 30, 0, "", true, Replacement{Since: 30}},
		{"at time 0 it is still in flight", true, 0, 0, "", true, Replacement{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Replacement
			if tt.reserve {
				r.Reserve(Resize, tt.at, tt.job, tt.why)
			}
			if r.Replacing() != tt.reserve {
				t.Fatalf("Replacing() = %v, want %v", r.Replacing(), tt.reserve)
			}
			if tt.reserve && r.Kind != Resize {
				t.Errorf("Kind %v, want the resize reserved", r.Kind)
			}
			if r.Since != tt.wantSays.Since || r.For != tt.wantSays.For || r.Why != tt.wantSays.Why {
				t.Errorf("in flight it says since %d for %d why %q, want %d %d %q", r.Since, r.For, r.Why,
					tt.wantSays.Since, tt.wantSays.For, tt.wantSays.Why)
			}
			if was := r.Unreserve(); was != tt.wantWas {
				t.Errorf("Unreserve() = %v, want %v", was, tt.wantWas)
			}
			if r.Replacing() || r != (Replacement{}) {
				t.Errorf("after Unreserve: %+v, want nothing in flight", r)
			}
			if r.Unreserve() {
				t.Error("a second Unreserve found a move or resize in flight")
			}
		})
	}
}

// TestReplacementSplit: the snapshot's two holds of a re-placed attempt
// are Hold.Replaced's at the record's Since, what drains by its Kind
// (Draining), whichever driver asks.
func TestReplacementSplit(t *testing.T) {
	ns := func(pairs ...int32) []sched.NodeSlots {
		var out []sched.NodeSlots
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, sched.NodeSlots{Node: pairs[i], Slots: pairs[i+1]})
		}
		return out
	}
	for _, tt := range []struct {
		name         string
		kind         Replace
		h            Hold
		since        int64
		next         []sched.NodeSlots
		wantDrain    []sched.NodeSlots
		drainedFrom  int64
		drainedBackf bool
	}{
		{"a backfilled task moved drains all", Move, Hold{Attempt: Attempt{Start: 10, From: 10, Backfilled: true}, Nodes: ns(0, 2)},
			100, ns(1, 2), ns(0, 2), 10, true},
		{"a move onto its own node drains all there too", Move, Hold{Attempt: Attempt{Start: 10, From: 10}, Nodes: ns(0, 2)},
			100, ns(0, 2), ns(0, 2), 10, false},
		{"a task resumed before, shrunk in place", Resize, Hold{Attempt: Attempt{Start: 10, From: 50}, Nodes: ns(0, 4)},
			70, ns(0, 2), ns(0, 2), 50, false},
		{"growth drains nothing", Resize, Hold{Attempt: Attempt{Start: 0, From: 0}, Nodes: ns(0, 2)},
			5, ns(0, 2, 1, 2), nil, 0, false},
		{"a resize that leaves a node drains it", Resize, Hold{Attempt: Attempt{Start: 0, From: 0}, Nodes: ns(0, 3, 1, 1)},
			5, ns(0, 2), ns(0, 1, 1, 1), 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Replacement
			r.Reserve(tt.kind, tt.since, 0, "")
			scratch := make([]sched.NodeSlots, 0, 4)
			placed, drained := r.Split(&tt.h, tt.next, scratch)
			if !slices.Equal(drained.Nodes, tt.wantDrain) {
				t.Fatalf("drains %v, want %v", drained.Nodes, tt.wantDrain)
			}
			wantP, wantD := tt.h.Replaced(tt.next, tt.wantDrain, tt.since)
			if !slices.Equal(placed.Nodes, wantP.Nodes) || placed.Attempt != wantP.Attempt || placed.Preempting || placed.Moving {
				t.Errorf("placed %+v, want %+v", placed, wantP)
			}
			if len(tt.wantDrain) > 0 && (drained.Attempt != wantD.Attempt || !drained.Preempting || !drained.Moving) {
				t.Errorf("drained %+v, want %+v", drained, wantD)
			}
			if placed.Start != tt.h.Start || placed.From != tt.since || placed.Backfilled {
				t.Errorf("placed runs from %d (start %d, backfilled %v), want from %d, start %d, not backfilled",
					placed.From, placed.Start, placed.Backfilled, tt.since, tt.h.Start)
			}
			if drained.Start != tt.h.Start || drained.From != tt.drainedFrom || drained.Backfilled != tt.drainedBackf {
				t.Errorf("drained from %d (start %d, backfilled %v), want from %d, start %d, backfilled %v",
					drained.From, drained.Start, drained.Backfilled, tt.drainedFrom, tt.h.Start, tt.drainedBackf)
			}
		})
	}
}

// TestReplacementLanding: what a landing tells Ending.Decide, and so
// what follows the checkpoint of a preempted attempt: a restart where
// the move or resize reserved, a requeue where it ran when a node of the
// new placement is down, and for a task with nothing in flight a plain
// requeue, the nodes not asked about.
func TestReplacementLanding(t *testing.T) {
	for _, tt := range []struct {
		name         string
		inFlight     bool
		down         bool
		wantAsked    bool
		wantThen     TaskState
		wantUnplaced bool
	}{
		{"a move lands where it reserved", true, false, true, TaskStarting, false},
		{"a node of its new placement went down", true, true, true, TaskQueued, true},
		{"a plain preemption asks no nodes", false, true, false, TaskQueued, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Replacement
			if tt.inFlight {
				r.Reserve(Move, 40, 3, "")
			}
			asked := false
			e := Ending{Kind: EndPreempted, MaxRetries: -1}
			r.Landing(&e, func() bool { asked = true; return tt.down })
			if asked != tt.wantAsked {
				t.Errorf("nodes asked: %v, want %v", asked, tt.wantAsked)
			}
			v := e.Decide()
			if v.Then != tt.wantThen || v.Unplaced != tt.wantUnplaced || v.Restarts() != (tt.wantThen == TaskStarting) {
				t.Errorf("verdict %+v, want then %s, unplaced %v", v, tt.wantThen, tt.wantUnplaced)
			}
		})
	}
}

// TestTaskReplacement: the Cluster's task records keep the record by
// the same transitions: Tasks.Replace reserves it at the re-placement,
// its draining record has none, Resume (the landing) ends it, and a
// launch into a reused record starts with none.
func TestTaskReplacement(t *testing.T) {
	var ts Tasks
	ns := []sched.NodeSlots{{Node: 0, Slots: 2}}
	ti := ts.Launch(0, 0, 0, 100, ns, false, 10)
	r := ts.Replace(ti, Move, []sched.NodeSlots{{Node: 1, Slots: 2}}, 30, Shape{})
	steps := []struct {
		name string
		ti   int32
		want bool
		at   int64
	}{
		{"the re-placed task is in flight since the re-placement", ti, true, 30},
		{"its draining record is not", r.Drain, false, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			x := ts.At(s.ti)
			if x.Replacing() != s.want || x.Since != s.at {
				t.Errorf("Replacing() = %v since %d, want %v since %d", x.Replacing(), x.Since, s.want, s.at)
			}
		})
	}
	t.Run("the landing ends it", func(t *testing.T) {
		if oi := ts.Resume(ti, 45); oi != r.Drain {
			t.Errorf("Resume freed record %d, want the draining one, %d", oi, r.Drain)
		}
		if ts.At(ti).Replacing() {
			t.Error("still in flight after its landing")
		}
	})
	t.Run("a reused record starts with none", func(t *testing.T) {
		ts.Retire(r.Drain, TaskPreempted)
		ts.Replace(ti, Resize, ns, 50, Shape{})
		ts.Retire(ti, TaskKilled) // a retired record keeps it, as the history it is
		if !ts.At(ti).Replacing() {
			t.Fatal("the retired record lost what it was doing")
		}
		ts.Sweep()
		reused := false
		for id := range int32(2) { // both freed records, the re-placed one among them
			ni := ts.Launch(0, id+1, 0, 100, ns, false, 60)
			reused = reused || ni == ti
			if ts.At(ni).Replacing() || ts.At(ni).Drain != -1 {
				t.Errorf("a launch into record %d found a move or resize in flight (drain %d)", ni, ts.At(ni).Drain)
			}
		}
		if !reused {
			t.Errorf("no launch reused record %d", ti)
		}
	})
}

// TestTasksAbandoned: the draining record an attempt's end abandons, the
// one rule of Exit, Fail, outcome and a lost node: the record of a move
// in flight, none for a resize that drains nothing, nor once the move
// landed, nor for a task never re-placed.
func TestTasksAbandoned(t *testing.T) {
	ns := []sched.NodeSlots{{Node: 0, Slots: 2}}
	for _, tt := range []struct {
		name      string
		replace   func(ts *Tasks, ti int32) int32 // the drain record it made, or -1
		land      bool
		wantDrain bool
	}{
		{"never re-placed", func(*Tasks, int32) int32 { return -1 }, false, false},
		{"a move in flight", func(ts *Tasks, ti int32) int32 {
			return ts.Replace(ti, Move, []sched.NodeSlots{{Node: 1, Slots: 2}}, 30, Shape{}).Drain
		}, false, true},
		{"a resize that keeps its placement", func(ts *Tasks, ti int32) int32 {
			return ts.Replace(ti, Resize, []sched.NodeSlots{{Node: 0, Slots: 2}, {Node: 1, Slots: 2}}, 30, Shape{}).Drain
		}, false, false},
		{"a move that landed", func(ts *Tasks, ti int32) int32 {
			return ts.Replace(ti, Move, []sched.NodeSlots{{Node: 1, Slots: 2}}, 30, Shape{}).Drain
		}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ts Tasks
			ti := ts.Launch(0, 0, 0, 100, ns, false, 10)
			drain := tt.replace(&ts, ti)
			if tt.land {
				ts.Resume(ti, 45)
			}
			want := int32(-1)
			if tt.wantDrain {
				want = drain
			}
			if got := ts.Abandoned(ti); got != want || (tt.wantDrain && got < 0) {
				t.Errorf("Abandoned = %d, want %d", got, want)
			}
			if tt.wantDrain && (!ts.At(ti).Replacing() || ts.At(ti).Drain != drain) {
				t.Error("Abandoned changed the record, which a lost node's rule reads after")
			}
		})
	}
}
