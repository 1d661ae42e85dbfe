package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// TestDrainedAtStartDeleted: a node drained before the window is drained
// at 0, unless it was deleted since: a node of its name that registered
// again is a new one, not drained, until drained again.
func TestDrainedAtStartDeleted(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ev := func(s int, from, to store.NodeState) store.NodeEvent {
		return store.NodeEvent{Node: "n1", From: from, To: to, At: t0.Add(time.Duration(s) * time.Second)}
	}
	drain := ev(1, store.NodeSchedulable, store.NodeDrained)
	deleted := ev(2, store.NodeUp, store.NodeDeleted)
	back := ev(3, "", store.NodeUp)
	again := ev(4, store.NodeSchedulable, store.NodeDrained)
	for _, c := range []struct {
		name string
		evs  []store.NodeEvent
		want int // drain events at 0
	}{
		{"drained", []store.NodeEvent{drain}, 1},
		{"drained, deleted", []store.NodeEvent{drain, deleted}, 0},
		{"drained, deleted, back", []store.NodeEvent{drain, deleted, back}, 0},
		{"drained, deleted, back, drained", []store.NodeEvent{drain, deleted, back, again}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := drainedAtStart(c.evs, t0.Add(time.Minute), map[string]bool{"n1": true})
			if len(got) != c.want {
				t.Errorf("drain events at 0 %+v, want %d", got, c.want)
			}
		})
	}
}
