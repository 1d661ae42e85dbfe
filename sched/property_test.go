package sched

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The property tests run Schedule over many random snapshots and check the
// invariants the package documents, for every plan.

var gpuTypes = []string{"h100", "a100"}

var policies = []Policy{PolicyFIFO, PolicyBackfill, PolicyFairShare, PolicyPriority, PolicyMultifactor}

// genOpts tunes randSnapshot.
type genOpts struct {
	maxPools, maxNodes, maxNodeSlots, maxJobs, maxAllocs int
	// distinctStarts gives every allocation its own start time, so that
	// allocation order is never needed to break a tie.
	distinctStarts bool
}

var defaultGen = genOpts{maxPools: 3, maxNodes: 20, maxNodeSlots: 8, maxJobs: 25, maxAllocs: 30}

// randSnapshot builds a valid random snapshot: pools of all four policies
// with random options, nodes of 1..maxNodeSlots slots, jobs of every shape
// (gangs, zero-slot, non-preemptible, GPU-constrained) and allocations
// that do not over-commit any node.
func randSnapshot(rng *rand.Rand, g genOpts) *Snapshot {
	const now = 1000
	s := &Snapshot{Now: now}
	np := 1 + rng.IntN(g.maxPools)
	for i := range np {
		p := Pool{
			Name:         fmt.Sprintf("pool%d", i),
			Policy:       policies[rng.IntN(len(policies))],
			Preemption:   rng.IntN(2) == 0,
			Backfill:     rng.IntN(2) == 0,
			Reservations: ReserveEASY,
			Placement:    PlaceBinpack,
		}
		if p.Policy == PolicyFIFO && rng.IntN(3) == 0 {
			p.Serial = true
		}
		if rng.IntN(2) == 0 {
			p.Reservations = ReserveConservative
		}
		if rng.IntN(3) == 0 {
			p.Placement = PlaceSpread
		}
		if rng.IntN(4) == 0 {
			p.MinRunTime = int64(100 + rng.IntN(400))
		}
		s.Pools = append(s.Pools, p)
	}
	nn := max(np, 1+rng.IntN(g.maxNodes))
	maxSize := make([]int, np)
	for i := range nn {
		pool := i % np
		if i >= np {
			pool = rng.IntN(np)
		}
		n := Node{Name: fmt.Sprintf("n%d", i), Pool: pool, Slots: 1 + rng.IntN(g.maxNodeSlots), ZeroSlotLimit: rng.IntN(4)}
		if rng.IntN(3) > 0 {
			n.GPU = gpuTypes[rng.IntN(len(gpuTypes))]
		}
		if rng.IntN(2) == 0 {
			n.Switch = []string{"s1", "s2", "s3"}[rng.IntN(3)]
		}
		maxSize[pool] = max(maxSize[pool], n.Slots)
		s.Nodes = append(s.Nodes, n)
	}
	nj := rng.IntN(g.maxJobs + 1)
	seqs := rng.Perm(nj)
	for i := range nj {
		pool := rng.IntN(np)
		j := Job{
			ID:          fmt.Sprintf("j%02d", i),
			Pool:        pool,
			Kind:        KindExperiment,
			Submit:      int64(rng.IntN(20) * 10),
			Seq:         int64(seqs[i] + 1),
			Priority:    1 + rng.IntN(6),
			Weight:      []float64{0.5, 1, 2, 3}[rng.IntN(4)],
			Preemptible: rng.IntN(10) < 7,
			Waiting:     rng.IntN(5),
			MaxRunning:  1 + rng.IntN(6),
		}
		switch r := rng.IntN(10); {
		case r == 0:
			j.Slots = 0
		case r == 1:
			j.Slots = maxSize[pool] + 1 + rng.IntN(2*maxSize[pool])
		default:
			j.Slots = 1 + rng.IntN(min(4, maxSize[pool]))
		}
		if rng.IntN(15) == 0 {
			j.MaxRunning = 0
		}
		if rng.IntN(2) == 0 {
			j.TimeLimit = int64(50 + rng.IntN(500))
		}
		if rng.IntN(5) == 0 {
			j.GPU = gpuTypes[rng.IntN(len(gpuTypes))]
		}
		if rng.IntN(6) == 0 {
			j.Topology = TopologyRequired
		}
		if j.Slots >= 2 && rng.IntN(3) == 0 {
			j.MinSlots = 1 + rng.IntN(j.Slots)
		}
		j.Interactive = rng.IntN(8) == 0
		s.Jobs = append(s.Jobs, j)
	}
	randMultifactor(rng, s)
	if nj == 0 {
		return s
	}
	free := make([]int, nn)
	for i := range s.Nodes {
		free[i] = s.Nodes[i].Slots
	}
	na := rng.IntN(g.maxAllocs + 1)
	for range na {
		ji := rng.IntN(nj)
		j := &s.Jobs[ji]
		var cand []int
		for n := range s.Nodes {
			if s.Nodes[n].Pool == j.Pool && (j.GPU == "" || s.Nodes[n].GPU == j.GPU) && (j.Slots == 0 || free[n] > 0) {
				cand = append(cand, n)
			}
		}
		if len(cand) == 0 {
			continue
		}
		rng.Shuffle(len(cand), func(a, b int) { cand[a], cand[b] = cand[b], cand[a] })
		a := Alloc{Job: ji}
		if j.Slots == 0 {
			a.Nodes = []NodeSlots{{Node: int32(cand[0])}}
		} else {
			need := j.Slots
			// An elastic task may run shrunk.
			for j.MinSlots > 0 && need > j.MinSlots && rng.IntN(2) == 0 {
				need = max(need/2, j.MinSlots)
			}
			// Prefer one node that fits, else spread over several.
			if k := slices.IndexFunc(cand, func(n int) bool { return free[n] >= need }); k >= 0 {
				a.Nodes = []NodeSlots{{Node: int32(cand[k]), Slots: int32(need)}}
				need = 0
			} else {
				for _, n := range cand {
					if need == 0 {
						break
					}
					take := min(free[n], need)
					a.Nodes = append(a.Nodes, NodeSlots{Node: int32(n), Slots: int32(take)})
					need -= take
				}
			}
			if need > 0 {
				continue
			}
			for _, ns := range a.Nodes {
				free[ns.Node] -= int(ns.Slots)
			}
		}
		if j.TimeLimit > 0 {
			// Mostly within the limit; now and then past it, as when a
			// kill has not landed yet.
			a.Start = now - int64(rng.IntN(int(j.TimeLimit)+int(j.TimeLimit)/8))
		} else {
			a.Start = now - int64(rng.IntN(1000))
		}
		if j.Preemptible {
			a.Preempting = rng.IntN(7) == 0
			a.Backfilled = rng.IntN(7) == 0
		}
		s.Allocs = append(s.Allocs, a)
	}
	trimLicenses(rng, s)
	if g.distinctStarts {
		// Distinct and recent, so no task is past its time limit.
		for i, off := range rng.Perm(len(s.Allocs)) {
			s.Allocs[i].Start = now - int64(off)
		}
	}
	return s
}

// snapshotsEqual compares snapshots, NaN weights included.
func snapshotsEqual(a, b *Snapshot) bool {
	if fmtSnapshot(a) != fmtSnapshot(b) || len(a.Nodes) != len(b.Nodes) {
		return false
	}
	for i := range a.Nodes {
		if !maps.Equal(a.Nodes[i].Labels, b.Nodes[i].Labels) {
			return false
		}
	}
	return true
}

// pendingEqual compares two pending entries field by field.
func pendingEqual(a, b Pending) bool {
	na, nb := a.Nodes, b.Nodes
	a.Nodes, b.Nodes = nil, nil
	return reflect.DeepEqual(a, b) && slices.Equal(na, nb)
}

func plansEqual(a, b *Plan) bool {
	if len(a.Starts) != len(b.Starts) || !slices.Equal(a.Preemptions, b.Preemptions) || !slices.EqualFunc(a.Pending, b.Pending, pendingEqual) ||
		len(a.Moves) != len(b.Moves) || len(a.Resizes) != len(b.Resizes) {
		return false
	}
	for i := range a.Moves {
		x, y := a.Moves[i], b.Moves[i]
		if x.Alloc != y.Alloc || x.For != y.For || !slices.Equal(x.Nodes, y.Nodes) {
			return false
		}
	}
	for i := range a.Resizes {
		x, y := a.Resizes[i], b.Resizes[i]
		if x.Alloc != y.Alloc || !slices.Equal(x.Nodes, y.Nodes) {
			return false
		}
	}
	for i := range a.Starts {
		x, y := a.Starts[i], b.Starts[i]
		if x.Job != y.Job || x.Backfill != y.Backfill || !slices.Equal(x.Nodes, y.Nodes) {
			return false
		}
	}
	return true
}

// canonPlan renders a plan independently of job, allocation and pool
// order: jobs by ID, allocations by the key given.
func canonPlan(s *Snapshot, p *Plan, allocKey func(int) int) string {
	var starts, pre, pend []string
	for _, st := range p.Starts {
		starts = append(starts, fmt.Sprintf("%s@%v/%v", s.Jobs[st.Job].ID, st.Nodes, st.Backfill))
	}
	for _, pr := range p.Preemptions {
		pre = append(pre, fmt.Sprintf("%d->%s", allocKey(pr.Alloc), s.Jobs[pr.For].ID))
	}
	for _, pe := range p.Pending {
		b := "-"
		if pe.Blocker >= 0 {
			b = s.Jobs[pe.Blocker].ID
		}
		pend = append(pend, fmt.Sprintf("%s:%v:%s:%d:%d:%d", s.Jobs[pe.Job].ID, pe.Reason, b, pe.Need, pe.Free, pe.At))
	}
	var moves []string
	for _, mv := range p.Moves {
		moves = append(moves, fmt.Sprintf("move %d@%v->%s", allocKey(mv.Alloc), mv.Nodes, s.Jobs[mv.For].ID))
	}
	for _, rs := range p.Resizes {
		moves = append(moves, fmt.Sprintf("resize %d@%v", allocKey(rs.Alloc), rs.Nodes))
	}
	slices.Sort(starts)
	slices.Sort(pre)
	slices.Sort(pend)
	slices.Sort(moves)
	return fmt.Sprintf("starts %v\npreempt %v\npending %v\nmoves %v", starts, pre, pend, moves)
}

// permute returns a copy of s with jobs, pools and (when withAllocs)
// allocations shuffled, and for each new allocation index its old one.
// Node order is kept: ties between nodes go by node index on purpose.
func permute(rng *rand.Rand, s *Snapshot, withAllocs, keepPools bool) (*Snapshot, []int) {
	out := cloneSnapshot(s)
	jp := rng.Perm(len(s.Jobs)) // new position -> old index
	pp := rng.Perm(len(s.Pools))
	if keepPools {
		// Pools are scheduled in order, and a license shared between
		// pools goes to the earlier one first.
		for i := range pp {
			pp[i] = i
		}
	}
	newJob := make([]int, len(s.Jobs))
	for n, o := range jp {
		out.Jobs[n] = s.Jobs[o]
		newJob[o] = n
	}
	newPool := make([]int, len(s.Pools))
	for n, o := range pp {
		out.Pools[n] = s.Pools[o]
		newPool[o] = n
	}
	for i := range out.Nodes {
		out.Nodes[i].Pool = newPool[out.Nodes[i].Pool]
	}
	for i := range out.Jobs {
		out.Jobs[i].Pool = newPool[out.Jobs[i].Pool]
	}
	ap := make([]int, len(s.Allocs))
	for i := range ap {
		ap[i] = i
	}
	if withAllocs {
		ap = rng.Perm(len(s.Allocs))
	}
	allocs := make([]Alloc, len(s.Allocs))
	for n, o := range ap {
		allocs[n] = out.Allocs[o]
		allocs[n].Job = newJob[s.Allocs[o].Job]
	}
	out.Allocs = allocs
	return out, ap
}

// TestPropertyPlans checks every invariant of single plans over random
// snapshots, plus determinism: the same snapshot twice, a fresh Scheduler
// against a reused one, the snapshot left untouched, and jobs, pools and
// (when start times are distinct) allocations in another order.
func TestPropertyPlans(t *testing.T) {
	cases := 4000
	if testing.Short() {
		cases = 500
	}
	rng := rand.New(rand.NewPCG(20240601, 7))
	var reused Scheduler
	stats := map[string]int{}
	for c := range cases {
		g := defaultGen
		g.distinctStarts = c%2 == 0
		s := randSnapshot(rng, g)
		before := cloneSnapshot(s)
		p1, err := reused.Schedule(s)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", c, err, fmtSnapshot(s))
		}
		plan := clonePlan(p1)
		if !snapshotsEqual(before, s) {
			t.Fatalf("case %d: Schedule modified the snapshot", c)
		}
		if bad := planProblems(s, &plan); len(bad) > 0 {
			t.Fatalf("case %d: %s\nsnapshot:\n%splan:\n%s", c, strings.Join(bad, "\n"), fmtSnapshot(s), fmtPlan(s, &plan))
		}
		again, err := reused.Schedule(s)
		if err != nil || !plansEqual(&plan, again) {
			t.Fatalf("case %d: second pass differs (err %v)\nfirst:\n%ssecond:\n%s", c, err, fmtPlan(s, &plan), fmtPlan(s, again))
		}
		fresh := mustSchedule(t, s)
		if !plansEqual(&plan, &fresh) {
			t.Fatalf("case %d: fresh Scheduler differs from reused one\nreused:\n%sfresh:\n%ssnapshot:\n%s",
				c, fmtPlan(s, &plan), fmtPlan(s, &fresh), fmtSnapshot(s))
		}
		ps, ap := permute(rng, s, g.distinctStarts, licensesSpanPools(s))
		pp := mustSchedule(t, ps)
		want := canonPlan(s, &plan, func(a int) int { return a })
		if got := canonPlan(ps, &pp, func(a int) int { return ap[a] }); got != want {
			t.Fatalf("case %d: permuted snapshot gives another plan\nwant:\n%s\ngot:\n%s\nsnapshot:\n%s", c, want, got, fmtSnapshot(s))
		}
		stats["starts"] += len(plan.Starts)
		stats["preemptions"] += len(plan.Preemptions)
		stats["pending"] += len(plan.Pending)
		stats["moves"] += len(plan.Moves)
		stats["resizes"] += len(plan.Resizes)
		for _, st := range plan.Starts {
			if Slots(st.Nodes) < s.Jobs[st.Job].Slots {
				stats["shrunk starts"]++
			}
		}
		for _, st := range plan.Starts {
			if len(st.Nodes) > 1 {
				stats["gang starts"]++
			}
			if st.Backfill {
				stats["backfill starts"]++
			}
		}
		for _, pe := range plan.Pending {
			stats[pe.Reason.String()]++
		}
	}
	t.Logf("%d cases: %v", cases, stats)
	// The generator must reach the interesting paths, or the properties
	// prove little.
	for _, k := range []string{"starts", "preemptions", "gang starts", "moves", "resizes", "shrunk starts", "backfill starts", "checkpointing",
		"reserved", "would_delay", "behind", "serial", "above_share", "zero_slot_full", "no_nodes", "max_concurrent", "fragmented",
		"license", "gpu_type"} {
		if stats[k] == 0 {
			t.Errorf("no case produced %q", k)
		}
	}
}

// TestPropertySettle applies plans and finishes checkpoints at a fixed time
// until a pass changes nothing: it must settle within 50 passes, every
// intermediate plan must keep the invariants, and one more pass with a fresh
// Scheduler must start and preempt nothing.
func TestPropertySettle(t *testing.T) {
	cases := 4000
	if testing.Short() {
		cases = 400
	}
	rng := rand.New(rand.NewPCG(99, 1))
	var sc Scheduler
	maxRounds, total := 0, 0
	for c := range cases {
		s := randSnapshot(rng, defaultGen)
		orig := s
		settled := false
		for round := 1; round <= 50; round++ {
			p, err := sc.Schedule(s)
			if err != nil {
				t.Fatalf("case %d round %d: %v\n%s", c, round, err, fmtSnapshot(s))
			}
			if bad := planProblems(s, p); len(bad) > 0 {
				t.Fatalf("case %d round %d: %s\nsnapshot:\n%splan:\n%s", c, round, strings.Join(bad, "\n"), fmtSnapshot(s), fmtPlan(s, p))
			}
			if quiet(p) {
				settled = true
				maxRounds = max(maxRounds, round)
				total += round
				break
			}
			s = finishCheckpoints(applyPlan(s, p))
		}
		if !settled {
			t.Fatalf("case %d: no settling after 50 passes\nstart snapshot:\n%send snapshot:\n%s", c, fmtSnapshot(orig), fmtSnapshot(s))
		}
		last := mustSchedule(t, s)
		if !quiet(&last) {
			t.Fatalf("case %d: settled snapshot still changes:\n%s", c, fmtPlan(s, &last))
		}
	}
	t.Logf("%d cases settled, %d passes in all, at most %d", cases, total, maxRounds)
}
