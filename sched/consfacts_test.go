package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestClearFactsPlanAsFresh checks that consolidation's facts kept within
// a pass (consfacts.go) and its movers list repaired from the previous
// pass (sortmemo.go) never change a plan: a warm Scheduler and a fresh one
// that works every search out afresh plan the same random clusters,
// through passes in which the plan applies (moves included), tasks end
// and jobs come and go with Revs, byte for byte. The fragmented clusters
// make many searches per pass over nodes whose tasks the earlier searches
// moved, under every policy, with preemption, topology, elastic jobs,
// interactive and young tasks, and now and then a preemption budget.
func TestClearFactsPlanAsFresh(t *testing.T) {
	defer func(n int) { memoMinJobs = n }(memoMinJobs)
	memoMinJobs = 1
	cases := []struct {
		name string
		gen  func(*rand.Rand) *Snapshot
	}{
		{"fragmented clusters", fragSnapshot},
		{"random clusters", func(rng *rand.Rand) *Snapshot {
			return randSnapshot(rng, genOpts{maxPools: 2, maxNodes: 24, maxNodeSlots: 8, maxJobs: 30, maxAllocs: 60})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 7))
			var kept Scheduler
			moves := compareWithFresh(t, rng, 300, tc.gen, &kept, func(s *Scheduler) { s.cons.noFacts = true },
				"kept facts", func(p *Plan) int { return len(p.Moves) })
			if kept.cons.kept == 0 || moves == 0 {
				t.Fatalf("%d facts used, %d moves: the test proves nothing", kept.cons.kept, moves)
			}
			t.Logf("%d facts used, %d moves, %d lists repaired", kept.cons.kept, moves, kept.orders.repaired)
		})
	}
}

// fragSnapshot is a cluster of 4- and 8-slot nodes about half held by
// small tasks, mostly movable, and a queue of tasks that fit a node only
// once it is cleared, and gangs.
func fragSnapshot(rng *rand.Rand) *Snapshot {
	s := &Snapshot{Now: 1000}
	for i := range 1 + rng.IntN(2) {
		pols := []Policy{PolicyFIFO, PolicyBackfill, PolicyFairShare, PolicyPriority, PolicyMultifactor, PolicyQuota}
		pol := pols[rng.IntN(len(pols))]
		s.Pools = append(s.Pools, Pool{Name: fmt.Sprintf("pool%d", i), Policy: pol, Preemption: rng.IntN(2) == 0,
			Backfill: rng.IntN(2) == 0, Reservations: ReserveEASY, Placement: PlaceBinpack})
		if rng.IntN(4) == 0 {
			s.Pools[i].MinRunTime = 300
		}
	}
	for p := range 3 {
		pr := Project{Name: fmt.Sprintf("p%d", p), Parent: -1, Quota: 4 + rng.IntN(40), OverQuotaWeight: 1}
		if rng.IntN(6) == 0 {
			pr.PreemptBudget = 1 + rng.IntN(6)
		}
		s.Projects = append(s.Projects, pr)
	}
	for i := range 6 + rng.IntN(20) {
		n := Node{Name: fmt.Sprintf("n%d", i), Pool: rng.IntN(len(s.Pools)), Slots: []int{4, 8, 8}[rng.IntN(3)], GPU: "h100"}
		if rng.IntN(6) == 0 {
			n.GPU = "a100"
		}
		if rng.IntN(3) == 0 {
			n.Switch = []string{"s1", "s2"}[rng.IntN(2)]
		}
		s.Nodes = append(s.Nodes, n)
	}
	job := func(slots int) *Job {
		s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("j%d", len(s.Jobs)), Pool: rng.IntN(len(s.Pools)), Kind: KindExperiment,
			Submit: int64(rng.IntN(50)), Seq: int64(len(s.Jobs) + 1), Priority: 1 + rng.IntN(9), Weight: 1,
			Preemptible: rng.IntN(8) > 0, Slots: slots, MaxRunning: 100, Project: rng.IntN(3)})
		return &s.Jobs[len(s.Jobs)-1]
	}
	for range 4 + rng.IntN(4) {
		job([]int{1, 1, 2, 4}[rng.IntN(4)]).Interactive = rng.IntN(8) == 0
	}
	for n := range s.Nodes {
		for used := 0; used < s.Nodes[n].Slots*(2+rng.IntN(2))/4; {
			j := rng.IntN(len(s.Jobs))
			k := s.Jobs[j].Slots
			if s.Jobs[j].Pool != s.Nodes[n].Pool || used+k > s.Nodes[n].Slots {
				break
			}
			s.Allocs = append(s.Allocs, Alloc{Job: j, Nodes: []NodeSlots{{Node: int32(n), Slots: int32(k)}},
				Start: int64(rng.IntN(900)), Checkpoint: int64(rng.IntN(2) * rng.IntN(1000))})
			used += k
		}
	}
	for range 5 + rng.IntN(25) {
		j := job([]int{3, 4, 6, 8, 8, 12, 16, 24}[rng.IntN(8)])
		j.Waiting = 1 + rng.IntN(3)
		if rng.IntN(6) == 0 {
			j.Topology = TopologyRequired
		}
		if rng.IntN(6) == 0 {
			j.MinSlots = max(1, j.Slots/4)
		}
		if rng.IntN(8) == 0 {
			j.GPU = "a100"
		}
	}
	randMultifactor(rng, s)
	return s
}
