package lifecycle

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

func TestDraining(t *testing.T) {
	ns := func(pairs ...int32) []sched.NodeSlots {
		var out []sched.NodeSlots
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, sched.NodeSlots{Node: pairs[i], Slots: pairs[i+1]})
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		r         Replace
		old, next []sched.NodeSlots
		kept      []sched.NodeSlots
		drain     []sched.NodeSlots
	}{
		{"a move leaves all of it", Move, ns(0, 2), ns(1, 2), nil, ns(0, 2)},
		{"a move onto a node it holds keeps nothing there either", Move, ns(0, 2), ns(0, 2), nil, ns(0, 2)},
		{"a resize in place keeps what it held", Resize, ns(0, 2), ns(0, 4), ns(0, 2), nil},
		{"a resize that spreads keeps the old node", Resize, ns(0, 2), ns(0, 2, 1, 2), ns(0, 2), nil},
		{"a resize that moves drains the old node", Resize, ns(0, 2), ns(1, 4), nil, ns(0, 2)},
		{"a resize that shrinks a node drains the rest", Resize, ns(0, 4, 1, 4), ns(0, 2, 2, 6), ns(0, 2), ns(0, 2, 1, 4)},
		{"nothing held, nothing drains", Move, ns(0, 0), ns(1, 1), nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kept := Kept(nil, tt.r, tt.old, tt.next)
			if !slices.Equal(kept, tt.kept) {
				t.Errorf("kept %v, want %v", kept, tt.kept)
			}
			if got := Drain(nil, tt.old, kept); !slices.Equal(got, tt.drain) {
				t.Errorf("drain %v, want %v", got, tt.drain)
			}
			if got := Draining(nil, tt.r, tt.old, tt.next); !slices.Equal(got, tt.drain) {
				t.Errorf("draining %v, want %v", got, tt.drain)
			}
		})
	}
}

// TestKeptOn: what a re-placement keeps on one node, the rule Kept and
// Draining apply per node and the master's placeReserved applies to a
// resize's own GPUs.
func TestKeptOn(t *testing.T) {
	for _, tt := range []struct {
		name            string
		r               Replace
		held, next, out int32
	}{
		{"a move keeps nothing", Move, 2, 2, 0},
		{"a resize that grows keeps all it held", Resize, 2, 4, 2},
		{"a resize that shrinks keeps its new slots", Resize, 4, 2, 2},
		{"a resize that leaves the node keeps nothing", Resize, 4, 0, 0},
		{"a resize onto a node it did not hold keeps nothing", Resize, 0, 4, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := KeptOn(tt.r, tt.held, tt.next); got != tt.out {
				t.Errorf("KeptOn(%v, %d, %d) = %d, want %d", tt.r, tt.held, tt.next, got, tt.out)
			}
		})
	}
}

func TestChargesBudget(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    Effect
		want bool
	}{
		{"preemption", Effect{Op: OpPreempt, For: 3}, true},
		{"move", Effect{Op: OpMove, For: 3}, true},
		{"growth", Effect{Op: OpResize, For: -1}, false},
		{"shrink for another job", Effect{Op: OpResize, For: 3}, true},
		{"shrink for the first job", Effect{Op: OpResize, For: 0}, true},
		{"start", Effect{Op: OpStart, For: -1}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.ChargesBudget(); got != tt.want {
				t.Errorf("ChargesBudget() = %t, want %t", got, tt.want)
			}
		})
	}
}
