package sched

import (
	"fmt"
	"maps"
	"math/rand/v2"
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

func plansEqual(a, b *Plan) bool {
	if len(a.Starts) != len(b.Starts) || !slices.Equal(a.Preemptions, b.Preemptions) || !slices.Equal(a.Pending, b.Pending) ||
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

// planProblems checks one plan against the snapshot it came from and
// returns every broken invariant.
func planProblems(s *Snapshot, p *Plan) []string {
	var bad []string
	fail := func(f string, args ...any) { bad = append(bad, fmt.Sprintf(f, args...)) }
	nj, nn, na := len(s.Jobs), len(s.Nodes), len(s.Allocs)

	used := make([]int, nn)
	zero := make([]int, nn)
	run := make([]int, nj) // running tasks, not preempting
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			used[ns.Node] += int(ns.Slots)
			if ns.Slots == 0 {
				zero[ns.Node]++
			}
		}
		if !a.Preempting {
			run[a.Job]++
		}
	}

	pending := make([]int, nj)
	for _, pe := range p.Pending {
		if pe.Job < 0 || pe.Job >= nj {
			fail("pending for job index %d out of range", pe.Job)
			continue
		}
		pending[pe.Job]++
	}

	// Preemptions.
	seen := make([]bool, na)
	preemptedOf := make([]int, nj)
	for _, pr := range p.Preemptions {
		if pr.Alloc < 0 || pr.Alloc >= na || pr.For < 0 || pr.For >= nj {
			fail("preemption %+v out of range", pr)
			continue
		}
		a := &s.Allocs[pr.Alloc]
		victim, for_ := &s.Jobs[a.Job], &s.Jobs[pr.For]
		pool := &s.Pools[for_.Pool]
		switch {
		case seen[pr.Alloc]:
			fail("alloc %d preempted twice", pr.Alloc)
		case a.Preempting:
			fail("alloc %d preempted while already preempting", pr.Alloc)
		case !victim.Preemptible:
			fail("alloc %d of non-preemptible job %s preempted", pr.Alloc, victim.ID)
		case victim.Pool != for_.Pool:
			fail("alloc %d of pool %d preempted for job %s of pool %d", pr.Alloc, victim.Pool, for_.ID, for_.Pool)
		case a.Job == pr.For:
			fail("job %s preempts its own task", for_.ID)
		}
		seen[pr.Alloc] = true
		preemptedOf[a.Job]++
		qv, _ := qosOf(s, victim)
		qf, qosPre := qosOf(s, for_)
		switch pool.Policy {
		case PolicyPriority:
			if victim.Priority <= for_.Priority {
				fail("alloc %d (priority %d) preempted for job %s of priority %d", pr.Alloc, victim.Priority, for_.ID, for_.Priority)
			}
			if !pool.Preemption && !a.Backfilled && !(qosPre && qv < qf) {
				fail("alloc %d preempted in a pool without preemption, not backfilled, and not by a preempting QOS", pr.Alloc)
			}
		case PolicyMultifactor:
			if !pool.Preemption && !qosPre {
				fail("alloc %d preempted for %s in a multifactor pool without preemption or a preempting QOS", pr.Alloc, for_.ID)
			}
			if qv >= qf {
				fail("alloc %d of QOS priority %d preempted for %s of QOS priority %d", pr.Alloc, qv, for_.ID, qf)
			}
		case PolicyFairShare:
			if !pool.Preemption {
				fail("alloc %d preempted in a fair-share pool without preemption", pr.Alloc)
			}
		default:
			fail("alloc %d preempted under policy %s", pr.Alloc, pool.Policy)
		}
		if pending[pr.For] == 0 {
			fail("job %s preempted alloc %d but has no pending (held) task", for_.ID, pr.Alloc)
		}
	}

	// Starts.
	starts := make([]int, nj)
	zeroNew := make([]int, nn)
	touched := make([]bool, nn)
	serialJob := make([]int, len(s.Pools))
	for i := range serialJob {
		serialJob[i] = -1
	}
	for _, st := range p.Starts {
		if st.Job < 0 || st.Job >= nj {
			fail("start for job index %d out of range", st.Job)
			continue
		}
		j := &s.Jobs[st.Job]
		pool := &s.Pools[j.Pool]
		starts[st.Job]++
		if len(st.Nodes) == 0 {
			fail("start of %s without nodes", j.ID)
			continue
		}
		if got := Slots(st.Nodes); !onLadder(j, got) {
			fail("start of %s places %d slots, job needs %d (min %d)", j.ID, got, j.Slots, j.MinSlots)
		}
		nodesSeen := map[int32]bool{}
		for _, ns := range st.Nodes {
			if ns.Node < 0 || int(ns.Node) >= nn {
				fail("start of %s on node index %d out of range", j.ID, ns.Node)
				continue
			}
			nd := &s.Nodes[ns.Node]
			if nodesSeen[ns.Node] {
				fail("start of %s names node %s twice", j.ID, nd.Name)
			}
			nodesSeen[ns.Node] = true
			if nd.Pool != j.Pool {
				fail("start of %s on node %s of another pool", j.ID, nd.Name)
			}
			if j.GPU != "" && nd.GPU != j.GPU {
				fail("start of %s (gpu %s) on node %s of type %q", j.ID, j.GPU, nd.Name, nd.GPU)
			}
			if j.Slots > 0 && ns.Slots <= 0 {
				fail("start of %s has a part of %d slots", j.ID, ns.Slots)
			}
			used[ns.Node] += int(ns.Slots)
			touched[ns.Node] = true
			if j.Slots == 0 {
				zeroNew[ns.Node]++
			}
		}
		if j.Slots == 0 && len(st.Nodes) != 1 {
			fail("zero-slot start of %s on %d nodes", j.ID, len(st.Nodes))
		}
		if st.Backfill {
			switch {
			case pool.Policy == PolicyBackfill:
			case pool.Policy == PolicyMultifactor && pool.Backfill:
			case pool.Policy == PolicyPriority && pool.Backfill:
				if !j.Preemptible {
					fail("non-preemptible job %s backfilled", j.ID)
				}
			default:
				fail("backfill start of %s in a %s pool (backfill=%v)", j.ID, pool.Policy, pool.Backfill)
			}
		}
		if pool.Policy == PolicyFIFO && pool.Serial && j.Slots > 0 {
			if serialJob[j.Pool] >= 0 && serialJob[j.Pool] != st.Job {
				fail("serial pool %s starts two jobs", pool.Name)
			}
			serialJob[j.Pool] = st.Job
		}
	}
	bad = append(bad, moveProblems(s, p, seen, pending, used, touched)...)
	for n := range nn {
		if touched[n] && used[n] > s.Nodes[n].Slots {
			fail("node %s over-committed: %d of %d slots", s.Nodes[n].Name, used[n], s.Nodes[n].Slots)
		}
		if zeroNew[n] > 0 && zero[n]+zeroNew[n] > s.Nodes[n].ZeroSlotLimit {
			fail("node %s runs %d zero-slot tasks, limit %d", s.Nodes[n].Name, zero[n]+zeroNew[n], s.Nodes[n].ZeroSlotLimit)
		}
	}
	// Serial: only the earliest job holding slots may start tasks.
	for pi := range s.Pools {
		if !(s.Pools[pi].Policy == PolicyFIFO && s.Pools[pi].Serial) || serialJob[pi] < 0 {
			continue
		}
		first := -1
		for _, a := range s.Allocs {
			j := &s.Jobs[a.Job]
			if j.Pool == pi && j.Slots > 0 && (first < 0 || lessFIFO(j, &s.Jobs[first]) < 0) {
				first = a.Job
			}
		}
		if first >= 0 && first != serialJob[pi] {
			fail("serial pool %s starts %s while %s holds slots", s.Pools[pi].Name, s.Jobs[serialJob[pi]].ID, s.Jobs[first].ID)
		}
	}

	// Per job: counts and pending entries.
	for ji := range nj {
		j := &s.Jobs[ji]
		if starts[ji] > j.Waiting {
			fail("job %s: %d starts for %d waiting tasks", j.ID, starts[ji], j.Waiting)
		}
		if starts[ji] > 0 && run[ji]-preemptedOf[ji]+starts[ji] > j.MaxRunning {
			fail("job %s: %d running after the plan, max %d", j.ID, run[ji]-preemptedOf[ji]+starts[ji], j.MaxRunning)
		}
		want := 0
		if starts[ji] < j.Waiting {
			want = 1
		}
		if pending[ji] != want {
			fail("job %s: %d pending entries, want %d (waiting %d, started %d)", j.ID, pending[ji], want, j.Waiting, starts[ji])
		}
	}
	for _, pe := range p.Pending {
		if pe.Job < 0 || pe.Job >= nj {
			continue
		}
		j := &s.Jobs[pe.Job]
		if pe.Reason == 0 || strings.HasPrefix(pe.Reason.String(), "reason(") {
			fail("job %s: unknown reason %d", j.ID, pe.Reason)
		}
		if pe.Message(s) == "" {
			fail("job %s: empty message for %v", j.ID, pe.Reason)
		}
		if !onLadder(j, pe.Need) {
			fail("job %s: pending need %d, job needs %d (min %d)", j.ID, pe.Need, j.Slots, j.MinSlots)
		}
		switch pe.Reason {
		case ReasonBehind, ReasonSerial, ReasonWouldDelay:
			if pe.Blocker < 0 || pe.Blocker >= nj || pe.Blocker == pe.Job || s.Jobs[pe.Blocker].Pool != j.Pool {
				fail("job %s: %v with blocker %d", j.ID, pe.Reason, pe.Blocker)
			}
		default:
			if pe.Blocker != -1 {
				fail("job %s: %v with blocker %d", j.ID, pe.Reason, pe.Blocker)
			}
		}
		if pe.Reason == ReasonReserved && pe.At != Never && pe.At < s.Now {
			fail("job %s: reserved at %d, before now (%d)", j.ID, pe.At, s.Now)
		}
	}
	bad = append(bad, reasonProblems(s, p)...)
	bad = append(bad, licenseProblems(s, p)...)
	bad = append(bad, multifactorProblems(s, p)...)
	bad = append(bad, orderProblems(s, p, starts)...)
	bad = append(bad, fitProblems(s, p, used)...)
	return bad
}

// fitProblems checks pending reasons against an independent placement
// oracle. Free slots only shrink during a pass, so a job that failed to
// place a task must still find no place on the slots left free after the
// plan; a job reported as never fitting must not fit an empty pool, and one
// reported as short of capacity must. Holds on draining slots also claim
// free slots and do not show in the plan, so pools with draining slots are
// left out of the first check.
func fitProblems(s *Snapshot, p *Plan, used []int) []string {
	var bad []string
	draining := make([]bool, len(s.Pools))
	drain := func(a *Alloc) {
		for _, ns := range a.Nodes {
			if ns.Slots > 0 {
				draining[s.Nodes[ns.Node].Pool] = true
			}
		}
	}
	for i := range s.Allocs {
		if s.Allocs[i].Preempting {
			drain(&s.Allocs[i])
		}
	}
	for _, pr := range p.Preemptions {
		drain(&s.Allocs[pr.Alloc])
	}
	for _, mv := range p.Moves {
		drain(&s.Allocs[mv.Alloc])
	}
	for _, rs := range p.Resizes {
		drain(&s.Allocs[rs.Alloc])
	}
	free := make([]int, len(s.Nodes))
	empty := make([]int, len(s.Nodes))
	zero := make([]int, len(s.Nodes))
	for n := range s.Nodes {
		free[n] = s.Nodes[n].Slots - used[n]
		empty[n] = s.Nodes[n].Slots
	}
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			if ns.Slots == 0 {
				zero[ns.Node]++
			}
		}
	}
	for _, st := range p.Starts {
		if s.Jobs[st.Job].Slots == 0 {
			zero[st.Nodes[0].Node]++
		}
	}
	for _, pe := range p.Pending {
		j := smallest(&s.Jobs[pe.Job])
		pl := &s.Pools[j.Pool]
		conservative := (pl.Policy == PolicyBackfill || (pl.Policy == PolicyMultifactor && pl.Backfill)) &&
			pl.Reservations == ReserveConservative
		tried := false // the pass tried to place a task and failed
		switch pe.Reason {
		case ReasonNoCapacity, ReasonFragmented, ReasonNoNodes, ReasonAboveShare, ReasonZeroSlotFull:
			// Conservative pools keep free slots for earlier jobs'
			// reservations: there a job may wait beside free slots.
			tried = !conservative || pe.Reason == ReasonNoNodes || pe.Reason == ReasonZeroSlotFull
		case ReasonReserved:
			tried = !conservative // the EASY head; conservative ones are not tried
		}
		if tried && !draining[j.Pool] && oracleFits(s, free, zero, j) {
			bad = append(bad, fmt.Sprintf("job %s: pending %v, but a task fits the slots left free after the plan", j.ID, pe.Reason))
		}
		if j.Slots == 0 {
			continue
		}
		fitsEmpty := oracleFits(s, empty, zero, j)
		if !fitsEmpty && pe.Reason != ReasonNoNodes && pe.Reason != ReasonGPUType {
			bad = append(bad, fmt.Sprintf("job %s can never fit its pool but is pending %v, want no_nodes or gpu_type", j.ID, pe.Reason))
		}
		switch pe.Reason {
		case ReasonNoNodes, ReasonGPUType:
			if fitsEmpty {
				bad = append(bad, fmt.Sprintf("job %s: %v, but a task fits the empty pool", j.ID, pe.Reason))
			}
		case ReasonNoCapacity, ReasonFragmented:
			if !fitsEmpty {
				bad = append(bad, fmt.Sprintf("job %s: %v, but a task can never fit (want no_nodes)", j.ID, pe.Reason))
			}
			if (pe.Reason == ReasonNoCapacity) != (pe.Free < pe.Need) {
				bad = append(bad, fmt.Sprintf("job %s: %v with need %d and free %d", j.ID, pe.Reason, pe.Need, pe.Free))
			}
		}
	}
	return bad
}

// oracleFits reports whether one task of j fits the given free slots: on
// one node of the job's pool and GPU type, or as a gang over whole free
// nodes of one group (same GPU type and size) plus a remainder on another
// node of that group.
func oracleFits(s *Snapshot, free, zero []int, j *Job) bool {
	ok := func(n int) bool {
		nd := &s.Nodes[n]
		return nd.Pool == j.Pool && (j.GPU == "" || nd.GPU == j.GPU)
	}
	if j.Slots == 0 {
		for n := range s.Nodes {
			if ok(n) && zero[n] < s.Nodes[n].ZeroSlotLimit {
				return true
			}
		}
		return false
	}
	type key struct {
		gpu    string
		size   int
		domain string // the switch, for gangs that must keep to one
	}
	// A group of alike nodes is split by switch when any of its nodes
	// names one.
	labelled := map[key]bool{}
	for n := range s.Nodes {
		if ok(n) && s.Nodes[n].Switch != "" {
			labelled[key{s.Nodes[n].GPU, s.Nodes[n].Slots, ""}] = true
		}
	}
	whole := map[key]int{}
	partial := map[key]int{} // the largest free count below the size
	for n := range s.Nodes {
		if !ok(n) {
			continue
		}
		if free[n] >= j.Slots {
			return true
		}
		k := key{s.Nodes[n].GPU, s.Nodes[n].Slots, ""}
		if j.Topology == TopologyRequired && labelled[k] {
			k.domain = "switch " + s.Nodes[n].Switch
		}
		if free[n] == k.size {
			whole[k]++
		} else {
			partial[k] = max(partial[k], free[n])
		}
	}
	for k, w := range whole {
		if k.size == 0 || k.size >= j.Slots {
			continue
		}
		need, rem := j.Slots/k.size, j.Slots%k.size
		if w >= need && (rem == 0 || w > need || partial[k] >= rem) {
			return true
		}
	}
	return false
}

// orderProblems checks queue order: under FIFO and priority no job after a
// blocked job starts, except as a backfill where the policy allows it.
func orderProblems(s *Snapshot, p *Plan, starts []int) []string {
	var bad []string
	backfill := make([]bool, len(s.Jobs)) // every start of the job is a backfill
	for i := range backfill {
		backfill[i] = true
	}
	for _, st := range p.Starts {
		if !st.Backfill {
			backfill[st.Job] = false
		}
	}
	blocked := func(j int) bool {
		pe, ok := pendingOf(p, j)
		// A job no node can ever hold (no_nodes) blocks nobody.
		return ok && blocks(s, pe)
	}
	for pi := range s.Pools {
		pl := &s.Pools[pi]
		// Multifactor order is checked by multifactorProblems.
		if pl.Serial || pl.Policy == PolicyFairShare || pl.Policy == PolicyMultifactor ||
			(pl.Policy == PolicyBackfill && pl.Reservations == ReserveConservative) {
			continue
		}
		var jobs []int
		for ji := range s.Jobs {
			if s.Jobs[ji].Pool == pi && s.Jobs[ji].Slots > 0 {
				jobs = append(jobs, ji)
			}
		}
		slices.SortFunc(jobs, func(a, b int) int {
			ja, jb := &s.Jobs[a], &s.Jobs[b]
			if pl.Policy == PolicyPriority && ja.Priority != jb.Priority {
				return ja.Priority - jb.Priority
			}
			return lessFIFO(ja, jb)
		})
		blocker := -1
		for _, j := range jobs {
			if blocker >= 0 && starts[j] > 0 {
				job, bj := &s.Jobs[j], &s.Jobs[blocker]
				switch {
				case pl.Policy == PolicyBackfill && backfill[j]:
				case pl.Policy == PolicyPriority && pl.Backfill && backfill[j] && job.Preemptible && job.Priority > bj.Priority:
				default:
					bad = append(bad, fmt.Sprintf("%s pool %s: job %s starts after blocked job %s", pl.Policy, pl.Name, job.ID, bj.ID))
				}
			}
			if blocker < 0 && blocked(j) {
				blocker = j
			}
		}
	}
	return bad
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
