package lifecycle

import (
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestAttemptTransitions checks each transition of an attempt's facts,
// the record both drivers keep, as a sequence from a launch.
func TestAttemptTransitions(t *testing.T) {
	cases := []struct {
		name string
		do   func(a *Attempt)
		want Attempt
	}{
		{"launch, backfilled", func(a *Attempt) { a.Launch(100, true) },
			Attempt{Start: 100, From: 100, Backfilled: true}},
		{"a launch forgets the last attempt's stop", func(a *Attempt) { a.Ask(50, 30); a.Launch(100, false) },
			Attempt{Start: 100, From: 100}},
		{"asked to stop", func(a *Attempt) { a.Launch(100, true); a.Ask(160, 30) },
			Attempt{Start: 100, From: 100, Backfilled: true, Asked: 160, Grace: 30}},
		{"re-placed keeps its start, no longer backfilled", func(a *Attempt) { a.Launch(100, true); a.Replace(200) },
			Attempt{Start: 100, From: 200}},
		{"resumed at the landing", func(a *Attempt) { a.Launch(100, false); a.Replace(200); a.Resume(230) },
			Attempt{Start: 100, From: 230}},
		{"a record of its own continues the first start", func(a *Attempt) { a.Launch(230, false); a.Continue(100) },
			Attempt{Start: 100, From: 230}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a Attempt
			c.do(&a)
			if a != c.want {
				t.Errorf("got %+v, want %+v", a, c.want)
			}
		})
	}
}

// TestReplacedFollowsTheAttempt checks that Hold.Replaced's new
// placement is the attempt's Replace, and its draining part the
// attempt as it was, preempting and moving.
func TestReplacedFollowsTheAttempt(t *testing.T) {
	var a Attempt
	a.Launch(100, true)
	a.Ask(150, 20)
	next, drain := []sched.NodeSlots{{Node: 1, Slots: 2}}, []sched.NodeSlots{{Node: 0, Slots: 2}}
	h := a.Hold(nil, false, false)
	placed, drained := h.Replaced(next, drain, 200)
	want := a
	want.Ask(0, 0)
	want.Replace(200)
	if placed.Attempt != want || placed.Preempting || placed.Moving || len(placed.Nodes) != 1 {
		t.Errorf("placed %+v, want the attempt %+v running on next", placed, want)
	}
	if drained.Attempt != a || !drained.Preempting || !drained.Moving || len(drained.Nodes) != 1 {
		t.Errorf("drained %+v, want the attempt %+v preempting and moving on drain", drained, a)
	}
}
