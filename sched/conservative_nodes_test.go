package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestConservativeMultiGPU is issue 14's conservative case on 8-GPU
// nodes. Two nodes each have 4 of 8 GPUs free: the 8-GPU head cannot
// start now (a count of 8 free slots said it could), and its reservation
// is where a node empties (node 1 at t=2h). A 4-GPU job that ends before
// then, or runs on the other node, starts now in the gap instead of
// waiting behind a count the head never gets.
func TestConservativeMultiGPU(t *testing.T) {
	const h = 3600
	build := func(t *testing.T) (*cluster, int) {
		b := newCluster(t).pool("gpu", PolicyBackfill, withReservations(ReserveConservative)).
			nodes("gpu", 2, 8, "h100")
		r1 := b.job("r1", slots(4), waiting(0), timeLimit(2*h))
		b.running(r1, start(0), on("gpu-1", 4))
		r2 := b.job("r2", slots(4), waiting(0), timeLimit(4*h))
		b.running(r2, start(0), on("gpu-2", 4))
		head := b.job("head", slots(8), timeLimit(h), submit(1))
		return b, head
	}
	tests := []struct {
		name    string
		slots   int
		limit   int64
		startAt string // the job's placement now, or "" when reserved
		at      int64  // its reservation when not starting
	}{
		{"short job on node 1 before the head", 4, h, "gpu-1:4", 0},
		{"long job on node 2 beside the head", 4, 5 * h, "gpu-2:4", 0},
		{"a 6-GPU job waits for node 1 after the head", 6, h, "", 3 * h},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, head := build(t)
			j := b.job("small", slots(tc.slots), timeLimit(tc.limit), submit(2))
			s := b.snapshot()
			p := mustSchedule(t, s)
			pe := mustPending(t, s, &p, head, ReasonReserved)
			if pe.At != 2*h || placement(s, pe.Nodes) != "gpu-1:8" {
				t.Fatalf("head reserved at %d on %s, want 7200 on gpu-1:8\n%s", pe.At, placement(s, pe.Nodes), fmtPlan(s, &p))
			}
			got := startPlacements(s, &p, j)
			if tc.startAt != "" {
				if len(got) != 1 || got[0] != tc.startAt {
					t.Fatalf("small starts %v, want %s\n%s", got, tc.startAt, fmtPlan(s, &p))
				}
				return
			}
			if pe := mustPending(t, s, &p, j, ReasonReserved); pe.At != tc.at {
				t.Fatalf("small reserved at %d, want %d\n%s", pe.At, tc.at, fmtPlan(s, &p))
			}
		})
	}
}

// TestConservativeNeverLater replays random conservative pools on nodes
// of 1 to 8 slots through many passes, carrying reservations as the
// simulator does, with tasks ending at or before their limits, and checks
// that no reservation ever moves later and that every job reserved for
// now starts.
func TestConservativeNeverLater(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	for c := range 300 {
		s := randConservative(rng)
		prev := map[string]int64{}
		for pass := 0; pass < 40 && len(s.Jobs) > 0; pass++ {
			p := mustSchedule(t, s)
			for _, pe := range p.Pending {
				j := &s.Jobs[pe.Job]
				if pe.Reason != ReasonReserved || pe.At == Never {
					continue
				}
				if was, ok := prev[j.ID]; ok && pe.At > was {
					t.Fatalf("case %d pass %d: job %s reserved at %d, promised %d\n%s\n%s",
						c, pass, j.ID, pe.At, was, fmtSnapshot(s), fmtPlan(s, &p))
				}
				prev[j.ID] = pe.At
			}
			s = nextConservative(rng, s, &p)
		}
	}
}

// randConservative builds a conservative pool of 2 to 5 nodes of mixed
// sizes, a few running tasks and a queue of jobs that all fit a node or
// two, every one with a time limit.
func randConservative(rng *rand.Rand) *Snapshot {
	s := &Snapshot{Now: 0, Pools: []Pool{{Name: "p", Policy: PolicyBackfill, Reservations: ReserveConservative,
		Placement: PlaceBinpack}}}
	sizes := []int{1, 2, 4, 8}
	for i := range 2 + rng.IntN(4) {
		s.Nodes = append(s.Nodes, Node{Name: "n" + string(rune('a'+i)), Slots: sizes[rng.IntN(len(sizes))], ZeroSlotLimit: 1})
	}
	total := 0
	for _, n := range s.Nodes {
		total += n.Slots
	}
	for i := range 4 + rng.IntN(10) {
		s.Jobs = append(s.Jobs, Job{ID: "j" + string(rune('a'+i)), Submit: int64(i), Seq: int64(i), Priority: 1,
			Weight: 1, Slots: 1 + rng.IntN(min(total, 12)), Waiting: 1, MaxRunning: 1,
			TimeLimit: int64(10 * (1 + rng.IntN(20)))})
	}
	return s
}

// nextConservative applies a plan, carries reservations, and advances the
// clock to the next moment a task may end, ending some tasks early.
func nextConservative(rng *rand.Rand, s *Snapshot, p *Plan) *Snapshot {
	out := applyPlan(s, p)
	for _, pe := range p.Pending {
		j := &out.Jobs[pe.Job]
		j.Reserved, j.ReservedNodes = 0, nil
		if pe.Reason == ReasonReserved && pe.At != Never {
			j.Reserved = pe.At
			j.ReservedNodes = append([]NodeSlots(nil), pe.Nodes...)
		}
	}
	next := Never
	for _, a := range out.Allocs {
		next = min(next, a.End(out.Jobs))
	}
	if next == Never {
		return out
	}
	if rng.IntN(2) == 0 { // an early end somewhere before the limit
		next = out.Now + 1 + rng.Int64N(max(1, next-out.Now))
	}
	out.Now = next
	kept := out.Allocs[:0]
	for i, a := range out.Allocs {
		ends := a.End(out.Jobs) <= out.Now || (i == 0 && rng.IntN(3) == 0)
		if !ends {
			kept = append(kept, a)
		}
	}
	out.Allocs = kept
	return out
}

// TestConservativeDepth: past the reservation depth jobs wait behind the
// last reserved job, neither reserving nor starting.
func TestConservativeDepth(t *testing.T) {
	for _, tc := range []struct {
		name  string
		slots int
		depth int
	}{{"counted", 1, conservativeDepth}, {"per node", 2, conservativeNodeDepth}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 1, tc.slots, "")
			r := b.job("r", slots(tc.slots), waiting(0), timeLimit(100))
			b.running(r, start(0), on("p-1", tc.slots))
			var ids []int
			for i := range tc.depth + 5 {
				ids = append(ids, b.job(fmt.Sprintf("j%d", i), slots(tc.slots), timeLimit(10), submit(int64(1+i))))
			}
			s := b.snapshot()
			p := mustSchedule(t, s)
			last := mustPending(t, s, &p, ids[tc.depth-1], ReasonReserved)
			if last.At != 100+int64(tc.depth-1)*10 {
				t.Errorf("last reserved job at %d", last.At)
			}
			if pe := mustPending(t, s, &p, ids[tc.depth], ReasonBehind); pe.Blocker != ids[tc.depth-1] {
				t.Errorf("blocker %d, want %d", pe.Blocker, ids[tc.depth-1])
			}
		})
	}
}
