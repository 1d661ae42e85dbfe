package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// realSnapshot builds a realistic large pass: nodes of 8 GPUs (three in
// four) and 4 GPUs, filled to the given fraction by running work of ten
// projects (half far over their quota, half under), and a queue of jobs:
// mostly one-GPU tasks, some of 2 to 8 GPUs and a few gangs of 16 to 64,
// with priorities, time limits, projects and accounts, so that every
// policy has work to do: preemption (priority, fair share, QOS), reclaim
// (quota), reservations (EASY, conservative).
func realSnapshot(nodes, jobs int, fill float64, pl Pool) *Snapshot {
	rng := rand.New(rand.NewPCG(7, uint64(nodes+jobs)))
	s := &Snapshot{Now: 100_000, Pools: []Pool{pl}}
	s.Pools[0].Name, s.Pools[0].Placement = "gpu", PlaceBinpack
	capacity := 0
	for i := range nodes {
		size := 8
		if i%4 == 3 {
			size = 4
		}
		capacity += size
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", i), Slots: size, GPU: "h100", ZeroSlotLimit: 10})
	}
	for p := range 10 {
		s.Projects = append(s.Projects, Project{Name: fmt.Sprintf("proj%d", p), Parent: -1,
			Quota: capacity / 10, OverQuotaWeight: 1})
	}
	if pl.Policy == PolicyMultifactor {
		benchAccounts(s, rng)
	}
	realRunning(s, rng, fill)
	for i := range jobs {
		slots := 1
		switch r := rng.IntN(100); {
		case r < 10:
			slots = []int{2, 4, 8}[rng.IntN(3)]
		case r < 12:
			slots = 16 * (1 + rng.IntN(4))
		}
		j := Job{ID: fmt.Sprintf("q%d", i), Kind: KindExperiment, Submit: int64(50_000 + i), Seq: int64(len(s.Jobs)),
			Priority: 1 + rng.IntN(99), Weight: 1, Preemptible: true, Slots: slots, Waiting: 1, MaxRunning: 1,
			TimeLimit: int64(600 + rng.IntN(7200)), Project: 5 + rng.IntN(5)}
		if pl.Policy == PolicyMultifactor {
			j.Account = 10 + rng.IntN(100)
			if rng.IntN(100) == 0 {
				j.QOS = 1
			}
		}
		s.Jobs = append(s.Jobs, j)
	}
	return s
}

// realRunning fills the nodes to fill: one running job per over-quota
// project (0-4) holding many tasks of 1, 2 or 8 GPUs, spread so that
// victims sit on many nodes.
func realRunning(s *Snapshot, rng *rand.Rand, fill float64) {
	var runJobs []int
	for p := range 5 {
		for _, size := range []int{1, 2, 8} {
			runJobs = append(runJobs, len(s.Jobs))
			s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("run%d-%d", p, size), Kind: KindExperiment,
				Submit: int64(p), Seq: int64(len(s.Jobs)), Priority: 60 + p, Weight: 1, Preemptible: true,
				Slots: size, MaxRunning: 1 << 30, TimeLimit: 200_000, Project: p, Account: 10 + p})
		}
	}
	for n := range s.Nodes {
		left := s.Nodes[n].Slots
		target := int(float64(left)*fill + rng.Float64())
		used := 0
		for used < target {
			j := runJobs[rng.IntN(len(runJobs))]
			k := s.Jobs[j].Slots
			if used+k > s.Nodes[n].Slots {
				j, k = runJobs[3*rng.IntN(5)], 1 // a one-GPU task fills the rest
			}
			s.Allocs = append(s.Allocs, Alloc{Job: j, Nodes: []NodeSlots{{Node: int32(n), Slots: int32(k)}},
				Start: int64(rng.IntN(90_000))})
			used += k
		}
	}
}

// realPolicies are the pool set-ups of BenchmarkSchedulePass.
var realPolicies = []struct {
	name string
	pool Pool
}{
	{"fifo", Pool{Policy: PolicyFIFO}},
	{"easy", Pool{Policy: PolicyBackfill, Reservations: ReserveEASY}},
	{"conservative", Pool{Policy: PolicyBackfill, Reservations: ReserveConservative}},
	{"priority", Pool{Policy: PolicyPriority, Preemption: true, Backfill: true}},
	{"fair_share", Pool{Policy: PolicyFairShare, Preemption: true}},
	{"quota", Pool{Policy: PolicyQuota}},
	{"multifactor", Pool{Policy: PolicyMultifactor, Preemption: true, Backfill: true, Reservations: ReserveEASY}},
}

// BenchmarkSchedulePass times one pass at 10,000 mixed 4/8-GPU nodes and
// 100,000 queued jobs, on a full and a half-full cluster, for every
// policy. "warm" reuses the Scheduler on an unchanged snapshot, as a
// master does between events; "cold" uses a fresh Scheduler each time,
// so building the node index is timed too. Besides wall time it reports
// the process's CPU time per pass (cpu-ms/op), steadier on a busy machine.
func BenchmarkSchedulePass(b *testing.B) {
	for _, fill := range []float64{1, 0.5} {
		for _, pol := range realPolicies {
			s := realSnapshot(10_000, 100_000, fill, pol.pool)
			for _, mode := range []string{"warm", "cold"} {
				b.Run(fmt.Sprintf("fill=%v/policy=%s/%s", fill, pol.name, mode), func(b *testing.B) {
					var sc Scheduler
					if _, err := sc.Schedule(s); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					cpu0, cpuOK := processCPU()
					for b.Loop() {
						if mode == "cold" {
							sc = Scheduler{}
						}
						if _, err := sc.Schedule(s); err != nil {
							b.Fatal(err)
						}
					}
					// With -cpu 1 the process's CPU time is the pass's
					// (and its garbage collection's), whatever else runs
					// on the machine.
					if cpu1, ok := processCPU(); ok && cpuOK {
						b.ReportMetric(float64(cpu1-cpu0)/1e6/float64(b.N), "cpu-ms/op")
					}
				})
			}
		}
	}
}
