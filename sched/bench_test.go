package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSnapshot builds an empty cluster of nodes×8 GPUs and a queue of
// jobs: gangFrac of them are gangs of 8 to 64 GPUs, the rest one-GPU jobs,
// spread over the given number of projects' worth of priorities. A
// multifactor pool gets the default weights (fair tree), 10 departments of
// 10 users with random decayed usage, the default QOS (1% high, 0.1%
// emergency), and one job in fifty holds a license.
func benchSnapshot(nodes, jobs int, gangFrac float64, policy Policy) *Snapshot {
	rng := rand.New(rand.NewPCG(1, uint64(nodes)))
	s := &Snapshot{Now: 1000}
	s.Pools = []Pool{{Name: "gpu", Policy: policy, Preemption: true, Backfill: true,
		Reservations: ReserveEASY, Placement: PlaceBinpack}}
	for i := range nodes {
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", i), Slots: 8, GPU: "h100", ZeroSlotLimit: 100})
	}
	if policy == PolicyMultifactor {
		benchAccounts(s, rng)
	}
	for i := range jobs {
		slots := 1
		if rng.Float64() < gangFrac {
			slots = 8 * (1 + rng.IntN(8))
		}
		s.Jobs = append(s.Jobs, Job{
			ID: fmt.Sprintf("j%d", i), Kind: KindExperiment, Submit: int64(i), Seq: int64(i),
			Priority: 1 + rng.IntN(99), Weight: 1, Preemptible: true, Slots: slots,
			Waiting: 1, MaxRunning: 1, TimeLimit: int64(600 + rng.IntN(7200)),
		})
		if policy == PolicyMultifactor {
			j := &s.Jobs[i]
			j.Account = 10 + rng.IntN(100)
			switch r := rng.IntN(1000); {
			case r == 0:
				j.QOS = 2
			case r < 10:
				j.QOS = 1
			}
			if rng.IntN(50) == 0 {
				j.Licenses = []LicenseUse{{License: rng.IntN(len(s.Licenses)), Count: 1 + rng.IntN(2)}}
			}
		}
	}
	return s
}

// benchAccounts sets up what a multifactor pool reads.
func benchAccounts(s *Snapshot, rng *rand.Rand) {
	s.Pools[0].Multifactor = DefaultMultifactor()
	s.QOS = DefaultQOS()
	for d := range 10 {
		s.Accounts = append(s.Accounts, Account{Name: fmt.Sprintf("dept%d", d), Parent: -1, Shares: float64(1 + d%3)})
	}
	for u := range 100 {
		s.Accounts = append(s.Accounts, Account{Name: fmt.Sprintf("user%d", u), Parent: u / 10, Shares: 1,
			Usage: rng.Float64() / 50})
	}
	s.Licenses = []License{{Name: "matlab", Total: 20}, {Name: "ansys", Total: 50}}
}

// BenchmarkSchedulePassEmpty times one full pass over an empty cluster with a
// long queue: every job is tried, exact best fit, no sampling of nodes.
func BenchmarkSchedulePassEmpty(b *testing.B) {
	sizes := []struct {
		nodes, jobs int
		gangs       float64
	}{
		{100, 500, 0},
		{1000, 10000, 0},
		{10000, 100000, 0.1},
	}
	policies := []Policy{PolicyPriority, PolicyFIFO, PolicyBackfill, PolicyFairShare, PolicyMultifactor}
	for _, sz := range sizes {
		for _, pol := range policies {
			name := fmt.Sprintf("nodes=%d/jobs=%d/policy=%s", sz.nodes, sz.jobs, pol)
			b.Run(name, func(b *testing.B) {
				s := benchSnapshot(sz.nodes, sz.jobs, sz.gangs, pol)
				var sc Scheduler
				if _, err := sc.Schedule(s); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := sc.Schedule(s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// quotaBenchSnapshot: 10 departments of 10 projects with equal quotas; the
// even projects run far over quota on a full cluster, the odd ones have
// nothing running and a long queue, so the pass must reclaim.
func quotaBenchSnapshot(nodes, jobs int) *Snapshot {
	rng := rand.New(rand.NewPCG(2, uint64(nodes)))
	s := &Snapshot{Now: 1000}
	s.Pools = []Pool{{Name: "gpu", Policy: PolicyQuota, Placement: PlaceBinpack}}
	for i := range nodes {
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", i), Slots: 8, GPU: "h100", ZeroSlotLimit: 100})
	}
	total := nodes * 8
	perProject := total / 100
	for d := range 10 {
		s.Projects = append(s.Projects, Project{Name: fmt.Sprintf("dept%d", d), Parent: -1,
			Quota: perProject * 10, OverQuotaWeight: 1})
	}
	for p := range 100 {
		s.Projects = append(s.Projects, Project{Name: fmt.Sprintf("proj%d", p), Parent: p / 10,
			Quota: perProject, OverQuotaWeight: 1})
	}
	// Over-quota projects fill the cluster with one-GPU tasks.
	node, used := 0, 0
	for p := 0; p < 100; p += 2 {
		j := len(s.Jobs)
		s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("run%d", p), Kind: KindExperiment, Submit: 0, Seq: int64(j),
			Priority: 42, Weight: 1, Preemptible: true, Slots: 1, MaxRunning: 1 << 30, Project: 10 + p})
		for range 2 * perProject {
			s.Allocs = append(s.Allocs, Alloc{Job: j, Nodes: []NodeSlots{{Node: int32(node), Slots: 1}}, Start: int64(rng.IntN(900))})
			if used++; used == 8 {
				node, used = node+1, 0
			}
		}
	}
	for i := range jobs {
		p := 10 + rng.IntN(100)
		s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("j%d", i), Kind: KindExperiment, Submit: int64(i + 1),
			Seq: int64(len(s.Jobs)), Priority: 42, Weight: 1, Preemptible: true, Slots: 1,
			Waiting: 1, MaxRunning: 1, Project: p})
	}
	return s
}

// BenchmarkSchedulePassQuota is the quota-policy case of the pass
// benchmark: reclaim across a two-level project tree.
func BenchmarkSchedulePassQuota(b *testing.B) {
	b.Run("nodes=10000/jobs=100000/policy=quota", func(b *testing.B) {
		s := quotaBenchSnapshot(10000, 100000)
		var sc Scheduler
		plan, err := sc.Schedule(s)
		if err != nil {
			b.Fatal(err)
		}
		if len(plan.Preemptions) == 0 {
			b.Fatal("the benchmark is meant to need reclaim")
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, err := sc.Schedule(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
