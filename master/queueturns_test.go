package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestNoteTurns: a pass's order of each pool's pending jobs is kept by
// pool in turn order; a pass that leaves it as it was keeps the
// published value (nothing to publish), and a changed one is a new
// value, the published one left as it was.
func TestNoteTurns(t *testing.T) {
	snap := &sched.Snapshot{Pools: []sched.Pool{{Name: "a"}, {Name: "b"}},
		Jobs: []sched.Job{{Pool: 0}, {Pool: 1}, {Pool: 0}, {Pool: 0}}}
	note := func(p *readPublisher, turns ...int32) {
		p.beginTurns()
		for ji, t := range turns {
			if t > 0 {
				p.addTurn(sched.Pending{Job: ji, Turn: t}, int64(100+ji), snap.Jobs[ji].Pool)
			}
		}
		p.noteTurns(snap.Pools)
	}
	var p readPublisher
	note(&p, 2, 1, 3, 1)
	first := p.turns
	if want := (queueTurns{"a": {103, 100, 102}, "b": {101}}); len(first) != 2 ||
		!slices.Equal(first["a"], want["a"]) || !slices.Equal(first["b"], want["b"]) || !p.readStale {
		t.Fatalf("turns %v (stale %v), want %v and a view to publish", first, p.readStale, want)
	}
	p.readStale = false
	note(&p, 2, 1, 3, 1)
	if !sameMap(p.turns, first) || p.readStale {
		t.Fatalf("the same order gave a new value %v (stale %v); want the published one kept", p.turns, p.readStale)
	}
	note(&p, 1, 1, 2, 0) // job 3 started: its place is gone
	if sameMap(p.turns, first) || !p.readStale || !slices.Equal(p.turns["a"], []int64{100, 102}) {
		t.Fatalf("turns %v (stale %v), want a new value [100 102] for pool a", p.turns, p.readStale)
	}
	if !slices.Equal(first["a"], []int64{103, 100, 102}) {
		t.Errorf("the published order changed to %v", first["a"])
	}
	p.readStale = false
	note(&p, 1, 0, 2, 0) // pool b has none waiting now
	if _, ok := p.turns["b"]; ok || !p.readStale {
		t.Errorf("turns %v (stale %v), want pool b gone", p.turns, p.readStale)
	}
}
