package sched

import (
	"fmt"
	"slices"
	"strings"
)

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

	for _, msg := range turnProblems(s, p) {
		fail("%s", msg)
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
// node of that group, or, unless it must keep to one switch, over whole
// free nodes of several sizes plus a remainder on any node.
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
	holds := false           // some node of the pool holds a task alone
	for n := range s.Nodes {
		if !ok(n) {
			continue
		}
		if free[n] >= j.Slots {
			return true
		}
		holds = holds || s.Nodes[n].Slots >= j.Slots
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
	if holds {
		return false // such a task waits for a node: it spans none
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
	if j.Topology == TopologyRequired {
		return false // one switch: no mixing of groups
	}
	// A gang may mix node sizes: whole free nodes of any size plus one
	// remainder on a partly free node, or on one of the whole nodes.
	sum, part := 0, 0
	for k, w := range whole {
		sum += w * k.size
	}
	for _, p := range partial {
		part = max(part, p)
	}
	return sum+part >= j.Slots
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
		// A job no node can ever hold (no_nodes) blocks nobody; a gang
		// with no switch free for it now (topology) blocks like any other.
		return ok && (blocks(s, pe) || pe.Reason == ReasonTopology)
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

// turnProblems checks that the Turns of each pool's pending entries are
// 1..n over its n entries, each once (Pending.Turn).
func turnProblems(s *Snapshot, p *Plan) []string {
	var bad []string
	byPool := make([][]int, len(s.Pools))
	for _, pe := range p.Pending {
		if pe.Job >= 0 && pe.Job < len(s.Jobs) {
			pool := s.Jobs[pe.Job].Pool
			byPool[pool] = append(byPool[pool], int(pe.Turn))
		}
	}
	for pool, turns := range byPool {
		slices.Sort(turns)
		for i, t := range turns {
			if t != i+1 {
				bad = append(bad, fmt.Sprintf("pool %d: pending turns %v, want 1..%d", pool, turns, len(turns)))
				break
			}
		}
	}
	return bad
}
