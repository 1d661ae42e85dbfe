package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestReshapeMovesPool: a reshape that gives a node another pool sets
// its snapshot entry's pool and zero-slot limit, and keeps the node down
// or drained as it was: a down node offers nothing until it is back,
// then its new slots and limit.
func TestReshapeMovesPool(t *testing.T) {
	type want struct{ pool, slots, zero int }
	tests := []struct {
		name   string
		before []lifecycle.EventKind // node events on n0 before the move
		moved  want                  // n0 just after the move
		after  []lifecycle.EventKind // node events after it
		end    want
	}{
		{"up", nil, want{1, 3, 7}, nil, want{1, 3, 7}},
		{"down, then up", []lifecycle.EventKind{lifecycle.EventNodeDown}, want{1, 0, 0},
			[]lifecycle.EventKind{lifecycle.EventNodeUp}, want{1, 3, 7}},
		{"drained, then resumed", []lifecycle.EventKind{lifecycle.EventNodeDrain}, want{1, 2, 7},
			[]lifecycle.EventKind{lifecycle.EventNodeResume}, want{1, 3, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c lifecycle.Cluster
			c.Snap.Pools = []sched.Pool{{Name: "a", Policy: sched.PolicyFIFO}, {Name: "b", Policy: sched.PolicyFIFO}}
			c.Snap.Nodes = []sched.Node{{Name: "n0", Pool: 0, Slots: 2, ZeroSlotLimit: 5}, {Name: "n1", Pool: 1, Slots: 1, ZeroSlotLimit: 5}}
			c.Configure(lifecycle.StepOptions{})
			for _, k := range tt.before {
				c.Observe(1, lifecycle.Event{Kind: k, Node: 0})
			}
			o := c.Observe(2, lifecycle.Event{Kind: lifecycle.EventNodeReshape, Node: 0,
				Shape: &sched.Node{Slots: 3, Pool: 1, ZeroSlotLimit: 7}})
			if !o.Applied {
				t.Fatal("the move was not applied")
			}
			check := func(when string, w want) {
				t.Helper()
				n := c.Snap.Nodes[0]
				if got := (want{n.Pool, n.Slots, n.ZeroSlotLimit}); got != w {
					t.Errorf("%s: pool, slots, zero-slot limit %v, want %v", when, got, w)
				}
			}
			check("moved", tt.moved)
			for _, k := range tt.after {
				c.Observe(3, lifecycle.Event{Kind: k, Node: 0})
			}
			check("at the end", tt.end)
		})
	}
}
