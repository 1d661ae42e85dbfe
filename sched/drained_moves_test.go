package sched

import (
	"slices"
	"testing"
)

// TestDrainedNoNewPlacement: no plan places anything new on a drained
// node. Consolidation never makes room there for a waiting job (its
// slots would drain into nothing), nor re-places a mover there; an
// elastic task grows only off one: a task there that can double
// elsewhere moves off (what it held drains and is gone), one that
// cannot stays as it is, where it used to restart on its drained slots
// plus new ones elsewhere.
func TestDrainedNoNewPlacement(t *testing.T) {
	for _, c := range []struct {
		name    string
		build   func(b *cluster) int
		resizes []string // alloc's job:new placement
	}{
		{"a waiting job that only a drained node's type fits", func(b *cluster) int {
			// p-1 is an a100 with room; p-2, the only h100, is drained
			// and runs work that could move to p-1.
			b.nodes("p", 1, 8, "a100")
			b.nodes("p", 1, 8, "h100", drainedAt(8))
			work := b.job("work", slots(4), waiting(0), preemptible())
			b.running(work, start(0), on("p-2", 4))
			b.s.Nodes[1].Slots = 4 // what its tasks hold (lifecycle.CapDrained)
			return b.job("big", slots(4), gpuType("h100"), submit(5))
		}, nil},
		{"an elastic task shrunk on a drained node", func(b *cluster) int {
			b.nodes("p", 1, 8, "h100", drainedAt(8))
			b.nodes("p", 1, 8, "h100")
			el := b.job("el", slots(8), minSlots(2), waiting(0), preemptible())
			b.running(el, start(0), on("p-1", 2))
			b.s.Nodes[0].Slots = 2
			return -1
		}, []string{"el:p-2:4"}},
		{"an elastic task on a drained node, room on another", func(b *cluster) int {
			b.nodes("p", 1, 8, "h100", drainedAt(8))
			b.nodes("p", 1, 4, "h100")
			el := b.job("el", slots(8), minSlots(2), waiting(0), preemptible())
			b.running(el, start(0), on("p-1", 4))
			b.s.Nodes[0].Slots = 4
			return -1
		}, nil},
	} {
		for _, pol := range []Policy{PolicyFIFO, PolicyPriority, PolicyBackfill, PolicyFairShare} {
			t.Run(c.name+"/"+string(pol), func(t *testing.T) {
				b := newCluster(t).now(1000).pool("p", pol)
				waits := c.build(b)
				s := b.snapshot()
				plan := mustSchedule(t, s)
				drained := func(ns []NodeSlots) bool {
					for _, n := range ns {
						if s.Nodes[n.Node].Drained {
							return true
						}
					}
					return false
				}
				for _, st := range plan.Starts {
					if drained(st.Nodes) {
						t.Errorf("a start on a drained node\n%s", fmtPlan(s, &plan))
					}
				}
				for _, mv := range plan.Moves {
					if drained(mv.Nodes) {
						t.Errorf("a move onto a drained node\n%s", fmtPlan(s, &plan))
					}
				}
				for _, rs := range plan.Resizes {
					held := map[int32]int32{}
					for _, n := range s.Allocs[rs.Alloc].Nodes {
						held[n.Node] += n.Slots
					}
					for _, n := range rs.Nodes {
						if s.Nodes[n.Node].Drained && n.Slots > held[n.Node] {
							t.Errorf("a resize that grows on a drained node\n%s", fmtPlan(s, &plan))
						}
					}
				}
				var resized []string
				for _, rs := range plan.Resizes {
					resized = append(resized, s.Jobs[s.Allocs[rs.Alloc].Job].ID+":"+placement(s, rs.Nodes))
				}
				if !slices.Equal(resized, c.resizes) {
					t.Errorf("resizes %v, want %v\n%s", resized, c.resizes, fmtPlan(s, &plan))
				}
				if waits >= 0 && (len(plan.Moves) > 0 || len(startsOf(&plan, waits)) > 0) {
					t.Errorf("moves or starts for a job only a drained node could hold\n%s", fmtPlan(s, &plan))
				}
			})
		}
	}
}
