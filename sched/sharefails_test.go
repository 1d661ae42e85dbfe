package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestShareFailsPlanAsFresh runs a Scheduler that answers repeated failed
// fair-share preemption searches from its memo and a fresh one that
// searches every time over random fair-share clusters, mostly full, with
// queues of jobs below their share asking for the same sizes (some
// needing a license that runs out), through six
// passes each with the plan applied, and compares every plan byte for
// byte.
func TestShareFailsPlanAsFresh(t *testing.T) {
	defer func(n int) { memoMinJobs = n }(memoMinJobs)
	memoMinJobs = 1
	cases := []struct {
		name string
		gen  func(*rand.Rand) *Snapshot
	}{
		{"full fair-share clusters", func(rng *rand.Rand) *Snapshot { return shareSnapshot(rng, false) }},
		{"partly held fair-share clusters", func(rng *rand.Rand) *Snapshot { return shareSnapshot(rng, true) }},
		{"fragmented clusters, fair share", func(rng *rand.Rand) *Snapshot {
			s := fragSnapshot(rng)
			for i := range s.Pools {
				s.Pools[i].Policy, s.Pools[i].Preemption = PolicyFairShare, rng.IntN(4) > 0
			}
			return s
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(43, 11))
			var kept Scheduler
			preempts := compareWithFresh(t, rng, 500, tc.gen, &kept, func(s *Scheduler) { s.stg.above.fails.off = true },
				"the failed searches kept", func(p *Plan) int { return len(p.Preemptions) })
			if kept.stg.above.fails.hits == 0 || preempts == 0 {
				t.Fatalf("%d searches answered, %d preemptions: the test proves nothing", kept.stg.above.fails.hits, preempts)
			}
			t.Logf("%d searches answered from the memo, %d preemptions", kept.stg.above.fails.hits, preempts)
		})
	}
}

// shareSnapshot is a fair-share pool (now and then two) of 4- and 8-slot
// nodes, full or nearly (partly: half to fully held, so that starts come
// between the searches) with small tasks of a few jobs, some preemptible,
// and a queue of jobs of a few sizes (gangs among them), of several
// weights, so that many jobs below their share ask for the same thing.
func shareSnapshot(rng *rand.Rand, partly bool) *Snapshot {
	s := &Snapshot{Now: 1000}
	for i := range 1 + rng.IntN(2) {
		s.Pools = append(s.Pools, Pool{Name: fmt.Sprintf("pool%d", i), Policy: PolicyFairShare,
			Preemption: rng.IntN(6) > 0, Placement: []Placement{PlaceBinpack, PlaceSpread}[rng.IntN(2)]})
	}
	for p := range 3 {
		pr := Project{Name: fmt.Sprintf("p%d", p), Parent: -1, Quota: 8, OverQuotaWeight: 1}
		if rng.IntN(8) == 0 {
			pr.PreemptBudget = 1 + rng.IntN(4)
		}
		s.Projects = append(s.Projects, pr)
	}
	for i := range 4 + rng.IntN(20) {
		n := Node{Name: fmt.Sprintf("n%d", i), Pool: rng.IntN(len(s.Pools)), Slots: []int{4, 8, 8}[rng.IntN(3)], GPU: "h100"}
		if rng.IntN(8) == 0 {
			n.GPU = "a100"
		}
		if rng.IntN(4) == 0 {
			n.Switch = []string{"s1", "s2"}[rng.IntN(2)]
		}
		s.Nodes = append(s.Nodes, n)
	}
	job := func(slots int) *Job {
		s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("j%d", len(s.Jobs)), Pool: rng.IntN(len(s.Pools)), Kind: KindExperiment,
			Submit: int64(rng.IntN(50)), Seq: int64(len(s.Jobs) + 1), Priority: 1 + rng.IntN(9),
			Weight: []float64{1, 1, 2, 0.5}[rng.IntN(4)], Preemptible: rng.IntN(6) > 0, Slots: slots,
			MaxRunning: 100, Project: rng.IntN(3)})
		return &s.Jobs[len(s.Jobs)-1]
	}
	for range 2 + rng.IntN(4) {
		job([]int{1, 1, 2}[rng.IntN(3)])
	}
	for n := range s.Nodes {
		full := s.Nodes[n].Slots * (2 + rng.IntN(3)) / 4
		if !partly {
			full = s.Nodes[n].Slots - rng.IntN(2)*rng.IntN(3)
		}
		for used, tries := 0, 0; used < full && tries < 20; tries++ {
			j := rng.IntN(len(s.Jobs))
			k := s.Jobs[j].Slots
			if s.Jobs[j].Pool != s.Nodes[n].Pool || used+k > s.Nodes[n].Slots {
				continue
			}
			s.Allocs = append(s.Allocs, Alloc{Job: j, Nodes: []NodeSlots{{Node: int32(n), Slots: int32(k)}},
				Start: int64(rng.IntN(900)), Checkpoint: int64(rng.IntN(2) * rng.IntN(1000))})
			used += k
		}
	}
	if rng.IntN(2) == 0 {
		s.Licenses = []License{{Name: "solver", Total: 1 + rng.IntN(3)}}
	}
	for range 4 + rng.IntN(30) {
		j := job([]int{1, 1, 2, 2, 4, 8, 16}[rng.IntN(7)])
		j.Waiting = 1 + rng.IntN(3)
		if len(s.Licenses) > 0 && rng.IntN(3) == 0 {
			j.Licenses = []LicenseUse{{License: 0, Count: 1 + rng.IntN(2)}}
		}
		if rng.IntN(8) == 0 {
			j.Topology = TopologyRequired
		}
		if rng.IntN(8) == 0 {
			j.GPU = "a100"
		}
		if rng.IntN(10) == 0 {
			j.MinSlots = max(1, j.Slots/2)
		}
	}
	return s
}
