package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSnapshot builds an empty cluster of nodes×8 GPUs and a queue of
// jobs: gangFrac of them are gangs of 8 to 64 GPUs, the rest one-GPU jobs,
// spread over the given number of projects' worth of priorities.
func benchSnapshot(nodes, jobs int, gangFrac float64, policy Policy) *Snapshot {
	rng := rand.New(rand.NewPCG(1, uint64(nodes)))
	s := &Snapshot{Now: 1000}
	s.Pools = []Pool{{Name: "gpu", Policy: policy, Preemption: true, Backfill: true,
		Reservations: ReserveEASY, Placement: PlaceBinpack}}
	for i := range nodes {
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", i), Slots: 8, GPU: "h100", ZeroSlotLimit: 100})
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
	}
	return s
}

// BenchmarkSchedulePass times one full pass over an empty cluster with a
// long queue: every job is tried, exact best fit, no sampling of nodes.
func BenchmarkSchedulePass(b *testing.B) {
	sizes := []struct {
		nodes, jobs int
		gangs       float64
	}{
		{100, 500, 0},
		{1000, 10000, 0},
		{10000, 100000, 0.1},
	}
	policies := []Policy{PolicyPriority, PolicyFIFO, PolicyBackfill, PolicyFairShare}
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
