package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// Property tests over random workloads that use the mechanisms beside the
// base policies: multifactor pools (classic and fair-tree fair share,
// QOS, nice, age, size, pool priority, preemption, backfill) with an
// account tree and decay, licenses shared by every pool, elastic jobs,
// switches and topology, and the thrash guards (minimum run time,
// preemption budgets, checkpoints).

type mechCase struct{ in sim.Input }

func (c *mechCase) input() *sim.Input {
	in := c.in
	return &in
}

func (c *mechCase) String() string {
	var b strings.Builder
	for _, p := range c.in.Pools {
		fmt.Fprintf(&b, "pool %+v cost=%d nodes:", p.Pool, p.CheckpointCost)
		for _, n := range p.Nodes {
			fmt.Fprintf(&b, " %d/%s/%s", n.Slots, n.GPU, n.Switch)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "licenses %+v\nqos %+v\naccounts %+v\ndecay %+v\n", c.in.Licenses, c.in.QOS, c.in.Accounts, c.in.Decay)
	for _, p := range c.in.Projects {
		fmt.Fprintf(&b, "project %+v\n", p.Project)
	}
	return b.String()
}

// mechGen builds a random workload; with unbounded, every task runs until
// the end, so that the run settles once the last submission and what it
// causes are through.
func mechGen(rng *rand.Rand, unbounded bool) (*mechCase, []sim.JobSpec) {
	in := sim.Input{Decay: sched.Decay{Period: int64(100 + rng.IntN(900)), PerPeriod: 0.5 + rng.Float64()/2}}
	if rng.IntN(3) == 0 {
		in.Decay = sched.Decay{Period: int64(100 + rng.IntN(900)), HalfLife: int64(100 + rng.IntN(2000))}
	}
	for i := range 1 + rng.IntN(2) {
		in.Pools = append(in.Pools, mechPool(rng, i))
	}
	for i := range rng.IntN(3) {
		in.Licenses = append(in.Licenses, sched.License{Name: fmt.Sprintf("lic%d", i), Total: rng.IntN(5)})
	}
	in.QOS = []sched.QOS{{Name: "normal"}, {Name: "high", Priority: 10}}
	if rng.IntN(2) == 0 {
		in.QOS = append(in.QOS, sched.QOS{Name: "emergency", Priority: 100, Preempt: true})
	}
	leaves := mechAccounts(rng, &in)
	for i := range 1 + rng.IntN(2) {
		p := sim.Project{Project: sched.Project{Name: fmt.Sprintf("proj%d", i), Parent: -1}}
		if rng.IntN(2) == 0 {
			p.PreemptBudget = 1 + rng.IntN(3)
		}
		in.Projects = append(in.Projects, p)
	}
	var jobs []sim.JobSpec
	for i := range 1 + rng.IntN(14) {
		jobs = append(jobs, mechJob(rng, &in, i, leaves, unbounded))
	}
	in.Jobs = sim.NewSliceSource(jobs)
	return &mechCase{in: in}, jobs
}

func mechPool(rng *rand.Rand, i int) sim.Pool {
	pols := []sched.Policy{sched.PolicyMultifactor, sched.PolicyMultifactor, sched.PolicyPriority, sched.PolicyFIFO,
		sched.PolicyBackfill, sched.PolicyFairShare}
	p := sim.Pool{Pool: sched.Pool{Name: fmt.Sprintf("p%d", i), Policy: pols[rng.IntN(len(pols))], Placement: sched.PlaceBinpack},
		CheckpointCost: int64(rng.IntN(3) * 30)}
	if rng.IntN(4) == 0 {
		p.Placement = sched.PlaceSpread
	}
	switch p.Policy {
	case sched.PolicyMultifactor:
		p.Preemption, p.Backfill = rng.IntN(2) == 0, rng.IntN(2) == 0
		if p.Backfill && rng.IntN(2) == 0 {
			p.Reservations = sched.ReserveConservative
		}
		p.Multifactor = mechWeights(rng)
	case sched.PolicyPriority, sched.PolicyFairShare:
		p.Preemption = rng.IntN(2) == 0
	case sched.PolicyBackfill:
		p.Reservations = sched.ReserveEASY
	}
	if rng.IntN(3) == 0 {
		p.MinRunTime = int64(50 + rng.IntN(200))
	}
	size := []int{1, 2, 4, 8}[rng.IntN(4)]
	for k := range 1 + rng.IntN(5) {
		n := sched.Node{Name: fmt.Sprintf("p%d-n%d", i, k), Pool: i, Slots: size, ZeroSlotLimit: 1 + rng.IntN(3)}
		if rng.IntN(4) == 0 {
			n.Slots = 1 + rng.IntN(8)
		}
		if rng.IntN(3) == 0 {
			n.GPU = propGPUs[rng.IntN(2)]
		}
		if rng.IntN(2) == 0 {
			n.Switch = []string{"s1", "s2"}[rng.IntN(2)]
		}
		p.Nodes = append(p.Nodes, n)
	}
	return p
}

func mechWeights(rng *rand.Rand) sched.Multifactor {
	var mf sched.Multifactor
	for mf.Age+mf.FairShare+mf.JobSize+mf.QOS+mf.Pool == 0 {
		pick := func(w float64) float64 {
			if rng.IntN(2) == 0 {
				return 0
			}
			return w * float64(1+rng.IntN(10))
		}
		mf.Age, mf.FairShare, mf.JobSize, mf.QOS, mf.Pool = pick(100), pick(1000), pick(50), pick(10000), pick(10)
	}
	if mf.Age > 0 {
		mf.MaxAge = int64(100 + rng.IntN(1000))
	}
	if mf.FairShare > 0 {
		mf.FairShareMode = []sched.FairShareMode{sched.FairShareClassic, sched.FairShareTree}[rng.IntN(2)]
	}
	mf.FavorSmall = mf.JobSize > 0 && rng.IntN(2) == 0
	mf.PoolPriority = float64(rng.IntN(3))
	return mf
}

// mechAccounts adds a tree of two departments with up to three users
// each, and returns the leaves, which jobs charge.
func mechAccounts(rng *rand.Rand, in *sim.Input) []string {
	var leaves []string
	for d := range 2 {
		dept := len(in.Accounts)
		in.Accounts = append(in.Accounts, sched.Account{Name: fmt.Sprintf("dept%d", d), Parent: -1, Shares: float64(1 + rng.IntN(4))})
		users := rng.IntN(4)
		for u := range users {
			name := fmt.Sprintf("dept%d/u%d", d, u)
			in.Accounts = append(in.Accounts, sched.Account{Name: name, Parent: dept, Shares: float64(rng.IntN(3)),
				Usage: float64(rng.IntN(3)) / 4})
			leaves = append(leaves, name)
		}
		if users == 0 {
			leaves = append(leaves, in.Accounts[dept].Name)
		}
	}
	return leaves
}

func mechJob(rng *rand.Rand, in *sim.Input, i int, leaves []string, unbounded bool) sim.JobSpec {
	pi := rng.IntN(len(in.Pools))
	p := &in.Pools[pi]
	j := sim.JobSpec{Name: fmt.Sprintf("j%02d", i), Kind: sched.KindExperiment, Submit: int64(rng.IntN(40) * 25), Pool: pi,
		Tasks: 1 + rng.IntN(3), Duration: int64(10 + rng.IntN(400)), Priority: 1 + rng.IntN(5), Weight: 1,
		Preemptible: rng.IntN(10) < 7, Account: leaves[rng.IntN(len(leaves))], QOS: rng.IntN(len(in.QOS)),
		Nice: rng.IntN(3) - 1}
	if unbounded {
		j.Duration = sim.Unbounded
	}
	j.MaxConcurrent = 1 + rng.IntN(j.Tasks)
	maxNode := 0
	for _, n := range p.Nodes {
		maxNode = max(maxNode, n.Slots)
	}
	j.Slots = 1 + rng.IntN(maxNode)
	if rng.IntN(6) == 0 {
		j.Slots = maxNode + 1 + rng.IntN(maxNode*2) // a gang
		if rng.IntN(2) == 0 {
			j.Topology = sched.TopologyRequired
		}
	}
	if rng.IntN(6) == 0 {
		j.GPU = p.Nodes[rng.IntN(len(p.Nodes))].GPU
	}
	if !propFits(p, &j) {
		j.Slots, j.GPU, j.Topology = 1+rng.IntN(maxNode), "", ""
	}
	if rng.IntN(3) == 0 {
		j.MinSlots = 1 + rng.IntN(j.Slots)
	}
	if rng.IntN(4) == 0 && len(in.Licenses) > 0 {
		l := rng.IntN(len(in.Licenses))
		if in.Licenses[l].Total > 0 {
			j.Licenses = []sched.LicenseUse{{License: l, Count: 1 + rng.IntN(in.Licenses[l].Total)}}
		}
	}
	if rng.IntN(2) == 0 {
		j.Project = in.Projects[rng.IntN(len(in.Projects))].Name
	}
	if j.Preemptible && rng.IntN(3) == 0 {
		j.CheckpointEvery = int64(20 + rng.IntN(200))
	}
	if rng.IntN(5) == 0 {
		j.TimeLimit = int64(50 + rng.IntN(400))
	}
	return j
}

// mechChecker checks every pass against the invariants of the mechanisms.
type mechChecker struct {
	bad    []string
	passes int
	last   *sched.Snapshot
	plan   [4]int // starts, preemptions, moves, resizes of the last pass
	// hits are the preemptions and moves applied so far, by project, to
	// check the simulator's count of the budget's hour.
	hits map[int][]int64
	// oneShot: every pool is FIFO or backfill, where a plan that only
	// starts tasks is not confirmed by another pass.
	oneShot bool
}

func (mc *mechChecker) failf(now int64, f string, args ...any) {
	if len(mc.bad) < 20 {
		mc.bad = append(mc.bad, fmt.Sprintf("t=%d: ", now)+fmt.Sprintf(f, args...))
	}
}

func (mc *mechChecker) inspect(now int64, s *sched.Snapshot, p *sched.Plan) {
	if mc.passes++; mc.passes > quotaMaxPasses {
		panic(propLivelock{now})
	}
	mc.last = cloneSnap(s)
	mc.last.Accounts, mc.last.Licenses, mc.last.QOS = slices.Clone(s.Accounts), s.Licenses, s.QOS
	mc.plan = [4]int{len(p.Starts), len(p.Preemptions), len(p.Moves), len(p.Resizes)}
	mc.checkSlots(now, s, p)
	checkLicensesInto(mc, now, s, p)
	mc.checkGuards(now, s, p)
}

// checkSlots: no node holds more than it has once the plan applies, and
// every start has the job's size (an elastic job's: MinSlots to Slots).
func (mc *mechChecker) checkSlots(now int64, s *sched.Snapshot, p *sched.Plan) {
	used := make([]int, len(s.Nodes))
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			used[ns.Node] += int(ns.Slots)
		}
	}
	add := func(nodes []sched.NodeSlots) {
		for _, ns := range nodes {
			used[ns.Node] += int(ns.Slots)
		}
	}
	for _, st := range p.Starts {
		j := &s.Jobs[st.Job]
		got, lo := sched.Slots(st.Nodes), j.Slots
		if j.MinSlots > 0 {
			lo = j.MinSlots
		}
		if got < lo || got > j.Slots {
			mc.failf(now, "start of %s with %d slots, want %d..%d", j.ID, got, lo, j.Slots)
		}
		add(st.Nodes)
	}
	for _, m := range p.Moves {
		add(m.Nodes)
	}
	for _, r := range p.Resizes {
		old := s.Allocs[r.Alloc].Nodes
		j := &s.Jobs[s.Allocs[r.Alloc].Job]
		// A fair-share pool shrinks a grown task (not below its min) for
		// a job below its share; every other resize grows.
		pl := &s.Pools[j.Pool]
		shrinks := pl.Policy == sched.PolicyFairShare && pl.Preemption
		if got := sched.Slots(r.Nodes); (got <= sched.Slots(old) && !shrinks) || got < j.MinSlots || got > j.Slots || j.MinSlots == 0 {
			mc.failf(now, "resize of %s from %d to %d slots (max %d, elastic %v)", j.ID, sched.Slots(old), got, j.Slots, j.MinSlots > 0)
		}
		for _, ns := range r.Nodes {
			if grow := int(ns.Slots) - int(slotsOnNode(old, ns.Node)); grow > 0 {
				used[ns.Node] += grow
			}
		}
	}
	for n, u := range used {
		if u > s.Nodes[n].Slots {
			mc.failf(now, "node %s holds %d of %d slots", s.Nodes[n].Name, u, s.Nodes[n].Slots)
		}
	}
}

func slotsOnNode(nodes []sched.NodeSlots, n int32) int32 {
	k := int32(0)
	for _, x := range nodes {
		if x.Node == n {
			k += x.Slots
		}
	}
	return k
}

// checkLicensesInto: each task holds its licenses once, so running tasks
// (their draining old placements aside) and the plan's starts hold at most
// each license's total.
func checkLicensesInto(mc *mechChecker, now int64, s *sched.Snapshot, p *sched.Plan) {
	held := make([]int, len(s.Licenses))
	add := func(job int) {
		for _, u := range s.Jobs[job].Licenses {
			held[u.License] += u.Count
		}
	}
	for _, a := range s.Allocs {
		if !a.Moving {
			add(a.Job)
		}
	}
	for _, st := range p.Starts {
		add(st.Job)
	}
	for i, l := range s.Licenses {
		if held[i] > l.Total {
			mc.failf(now, "license %s: %d held after the plan, %d exist", l.Name, held[i], l.Total)
		}
	}
}

// checkGuards: no victim, moved or resized task younger than its pool's
// minimum run time, nor a victim, moved or shrunk one non-preemptible or
// already draining (a shrink for another job counts as a preemption); the
// simulator's count of each project's last hour is right, and no pass
// spends more than a budget allows.
func (mc *mechChecker) checkGuards(now int64, s *sched.Snapshot, p *sched.Plan) {
	young := func(a int) bool {
		al := &s.Allocs[a]
		min := s.Pools[s.Jobs[al.Job].Pool].MinRunTime
		return min > 0 && now-al.Start < min
	}
	planned := make([]int, len(s.Projects))
	hit := func(a int, what string) {
		al := &s.Allocs[a]
		j := &s.Jobs[al.Job]
		if young(a) || !j.Preemptible || al.Preempting {
			mc.failf(now, "%s %s: started %d, min run time %d, preemptible %v, preempting %v",
				what, j.ID, al.Start, s.Pools[j.Pool].MinRunTime, j.Preemptible, al.Preempting)
		}
		if j.Project >= 0 && j.Project < len(s.Projects) {
			planned[j.Project]++
			mc.hits[j.Project] = append(mc.hits[j.Project], now)
		}
	}
	for i, pr := range s.Projects {
		if pr.PreemptBudget == 0 {
			continue // only budgets are counted
		}
		want := 0
		for _, at := range mc.hits[i] {
			if at > now-3600 {
				want++
			}
		}
		if pr.Preempted != want {
			mc.failf(now, "project %s: the snapshot counts %d preemptions in the last hour, want %d", pr.Name, pr.Preempted, want)
		}
	}
	for _, pre := range p.Preemptions {
		hit(pre.Alloc, "preempted")
	}
	for _, m := range p.Moves {
		hit(m.Alloc, "moved")
	}
	for _, r := range p.Resizes {
		if r.For >= 0 { // a shrink for another job: a preemption's guards and charge
			hit(r.Alloc, "shrunk")
			continue
		}
		if young(r.Alloc) {
			mc.failf(now, "resized %s, younger than its pool's minimum run time", s.Jobs[s.Allocs[r.Alloc].Job].ID)
		}
	}
	for i, pr := range s.Projects {
		if pr.PreemptBudget > 0 && planned[i] > 0 && pr.Preempted+planned[i] > pr.PreemptBudget {
			mc.failf(now, "project %s: %d preempted in the last hour and %d more planned, budget %d",
				pr.Name, pr.Preempted, planned[i], pr.PreemptBudget)
		}
	}
}

func mechRun(t *testing.T, i int, c *mechCase) (*sim.Result, *mechChecker, bool) {
	t.Helper()
	mc := &mechChecker{hits: map[int][]int64{}, oneShot: true}
	for _, p := range c.in.Pools {
		mc.oneShot = mc.oneShot && (p.Policy == sched.PolicyFIFO || p.Policy == sched.PolicyBackfill)
	}
	res := runCutOff(t, i, c.input(), mc.inspect, c)
	return res, mc, res == nil || mc.last != nil && mc.last.Now >= quotaHorizon/2
}

// TestMechanismProperties replays random workloads, with finite and with
// unbounded tasks, checking every pass (see mechChecker), that a replay is
// deterministic, and, for unbounded work, that the run settles: its last
// pass changes nothing, and neither does a further pass by a fresh
// scheduler on the same snapshot.
func TestMechanismProperties(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	rng := rand.New(rand.NewPCG(11, 13))
	stats := map[string]int{}
	for i := range n {
		unbounded := i%2 == 1
		c, jobs := mechGen(rng, unbounded)
		res, mc, stuck := mechRun(t, i, c)
		if len(mc.bad) > 0 || stuck {
			t.Fatalf("case %d (stuck %v):\n%s\n%s%s", i, stuck, strings.Join(mc.bad, "\n"), c, fmtJobs(jobs))
		}
		c2, _ := mechGenAgain(c, jobs)
		res2, err := sim.Run(c2.input(), sim.Options{Until: quotaHorizon, Timeline: true, Attempts: true})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(res)
		b, _ := json.Marshal(res2)
		if !bytes.Equal(a, b) {
			t.Fatalf("case %d: two replays differ\n%s", i, c)
		}
		if unbounded {
			mc.checkSettled(t, i, c, jobs)
		}
		stats["preemptions"] += res.Metrics.Preemptions
		stats["moves"] += res.Metrics.Moves
		stats["resizes"] += res.Metrics.Resizes
		if res.Metrics.LostWorkSlotHours > 0 {
			stats["runs that lost work"]++
		}
		for _, jr := range res.Jobs {
			if jr.Priority != nil {
				stats["multifactor jobs"]++
			}
			if strings.Contains(jr.Reason, "license") {
				stats["waiting for a license"]++
			}
		}
	}
	t.Logf("%d workloads: %v", n, stats)
	for _, k := range []string{"preemptions", "moves", "resizes", "multifactor jobs", "runs that lost work"} {
		if stats[k] == 0 {
			t.Errorf("the generator never exercised %s: %v", k, stats)
		}
	}
}

// checkSettled: the last pass of a settled run starts, preempts, moves
// and resizes nothing (a FIFO or backfill pool's may start tasks: such
// plans are maximal and not confirmed), and a fresh scheduler agrees.
func (mc *mechChecker) checkSettled(t *testing.T, i int, c *mechCase, jobs []sim.JobSpec) {
	t.Helper()
	if mc.last == nil {
		return
	}
	changes := mc.plan[1] + mc.plan[2] + mc.plan[3]
	if !mc.oneShot {
		changes += mc.plan[0]
	}
	if changes > 0 {
		t.Fatalf("case %d: the last pass at t=%d still changes %v (starts, preemptions, moves, resizes)\n%s%s",
			i, mc.last.Now, mc.plan, c, fmtJobs(jobs))
	}
	plan, err := sched.Schedule(mc.last)
	if err != nil {
		t.Fatalf("case %d: further pass: %v", i, err)
	}
	if n := len(plan.Preemptions) + len(plan.Moves) + len(plan.Resizes); n > 0 || (!mc.oneShot && len(plan.Starts) > 0) {
		t.Fatalf("case %d: a further pass on the settled snapshot at t=%d changes %d %d %d %d\n%s%s", i, mc.last.Now,
			len(plan.Starts), len(plan.Preemptions), len(plan.Moves), len(plan.Resizes), c, fmtJobs(jobs))
	}
}

// mechGenAgain rebuilds a case's input with a fresh job source.
func mechGenAgain(c *mechCase, jobs []sim.JobSpec) (*mechCase, []sim.JobSpec) {
	in := c.in
	in.Jobs = sim.NewSliceSource(jobs)
	return &mechCase{in: in}, jobs
}

func fmtJobs(jobs []sim.JobSpec) string {
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "job %+v\n", j)
	}
	return b.String()
}
