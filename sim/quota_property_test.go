package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// Property tests of the quota policy through the simulator, over random
// quota pools: Run:ai-style projects (some nested, some with limits) or
// OSMO-style pools as projects, with unattended, non-preemptible,
// interactive and LOW-class (borrowing) work.

type quotaCase struct {
	pool     sim.Pool
	projects []sim.Project
	jobs     []sim.JobSpec
}

func (c *quotaCase) input() *sim.Input {
	return &sim.Input{Pools: []sim.Pool{c.pool}, Jobs: sim.NewSliceSource(c.jobs), Projects: c.projects}
}

func (c *quotaCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pool %+v cost=%d nodes:", c.pool.Pool, c.pool.CheckpointCost)
	for _, n := range c.pool.Nodes {
		fmt.Fprintf(&b, " %d/%s", n.Slots, n.GPU)
	}
	b.WriteString("\n")
	for _, p := range c.projects {
		fmt.Fprintf(&b, "project %+v\n", p)
	}
	for _, j := range c.jobs {
		fmt.Fprintf(&b, "job %+v\n", j)
	}
	return b.String()
}

// quotaGen builds a random quota workload; with unbounded, every task runs
// until the end, so that the run settles once the last submission and its
// preemptions are through.
func quotaGen(rng *rand.Rand, unbounded bool) *quotaCase {
	c := &quotaCase{pool: sim.Pool{Pool: sched.Pool{Name: "q", Policy: sched.PolicyQuota, Placement: sched.PlaceBinpack},
		CheckpointCost: int64(rng.IntN(3) * 30)}}
	if rng.IntN(4) == 0 {
		c.pool.Placement = sched.PlaceSpread
	}
	size := []int{1, 2, 4, 8}[rng.IntN(4)]
	capacity, maxNode := 0, 0
	for k := range 1 + rng.IntN(4) {
		n := sched.Node{Name: fmt.Sprintf("n%d", k), Slots: size, ZeroSlotLimit: 10}
		if rng.IntN(4) == 0 {
			n.Slots = 1 + rng.IntN(8)
		}
		if rng.IntN(3) == 0 {
			n.GPU = propGPUs[rng.IntN(2)]
		}
		capacity += n.Slots
		maxNode = max(maxNode, n.Slots)
		c.pool.Nodes = append(c.pool.Nodes, n)
	}
	osmo := rng.IntN(3) == 0
	leaves := c.genProjects(rng, osmo, capacity)
	for i := range 1 + rng.IntN(16) {
		c.jobs = append(c.jobs, c.genJob(rng, i, osmo, leaves, maxNode, unbounded))
	}
	return c
}

// genProjects adds the projects and returns the indices of the leaves,
// which are the ones jobs go to.
func (c *quotaCase) genProjects(rng *rand.Rand, osmo bool, capacity int) []int {
	var leaves []int
	add := func(name string, parent, quota int, pool bool) {
		p := sim.Project{Project: sched.Project{Name: name, Parent: parent, Quota: quota, OverQuotaWeight: float64(quota)}, Pool: pool}
		if !pool && rng.IntN(3) == 0 {
			p.OverQuotaWeight = float64(rng.IntN(4))
		}
		if !pool && rng.IntN(4) == 0 {
			p.Limit = max(quota, 1) + rng.IntN(capacity)
		}
		c.projects = append(c.projects, p)
	}
	if osmo {
		left := capacity
		for i := range 1 + rng.IntN(3) {
			q := rng.IntN(left + 1)
			left -= q
			add(fmt.Sprintf("pool%d", i+1), -1, q, true)
			leaves = append(leaves, i)
		}
		return leaves
	}
	nested := rng.IntN(3) == 0
	if nested {
		add("dept", -1, rng.IntN(capacity+1), false)
	}
	for i := range 2 + rng.IntN(3) {
		parent := -1
		if nested && i < 2 {
			parent = 0
		}
		add(fmt.Sprintf("p%d", i), parent, rng.IntN(capacity/2+2), false)
		leaves = append(leaves, len(c.projects)-1)
	}
	return leaves
}

func (c *quotaCase) genJob(rng *rand.Rand, i int, osmo bool, leaves []int, maxNode int, unbounded bool) sim.JobSpec {
	pr := leaves[rng.IntN(len(leaves))]
	j := sim.JobSpec{Name: fmt.Sprintf("j%02d", i), Kind: sched.KindCommand, Submit: int64(rng.IntN(40) * 25),
		Tasks: 1 + rng.IntN(4), Slots: 1 + rng.IntN(maxNode), Duration: int64(10 + rng.IntN(400)),
		Priority: 42, Weight: 1, Project: c.projects[pr].Name}
	j.MaxConcurrent = 1 + rng.IntN(j.Tasks)
	if unbounded {
		j.Duration = sim.Unbounded
	}
	switch r := rng.IntN(10); {
	case r < 3: // LOW: borrows, always preemptible
		j.Priority, j.Borrow, j.Preemptible, j.Kind = 80, true, true, sched.KindExperiment
	case r < 5 && !osmo:
		j.Kind, j.Interactive = sched.KindNotebook, true
	case r < 8 && !osmo:
		j.Kind, j.Preemptible = sched.KindExperiment, true
	case r == 9:
		j.Priority = 10 // HIGH
	}

	if rng.IntN(6) == 0 {
		j.GPU = c.pool.Nodes[rng.IntN(len(c.pool.Nodes))].GPU
	}
	if j.Preemptible && rng.IntN(3) == 0 {
		j.CheckpointEvery = int64(20 + rng.IntN(200))
	}
	if j.Preemptible && rng.IntN(5) == 0 {
		if rng.IntN(2) == 0 {
			j.OnPreempt = sim.PreemptFail
		} else {
			j.MaxRetries = 1 + rng.IntN(2)
		}
	}
	return j
}

// quotaChecker checks every pass of a run against the quota rules.
type quotaChecker struct {
	bad    []string
	last   *sched.Snapshot // a copy of the latest snapshot
	passes int
}

// quotaMaxPasses bounds the passes of one run: a preemption cycle at one
// instant (checkpoints that cost nothing) never moves the clock, so the
// horizon alone would not end it.
const quotaMaxPasses = 20_000

func (qc *quotaChecker) failf(now int64, f string, args ...any) {
	if len(qc.bad) < 20 {
		qc.bad = append(qc.bad, fmt.Sprintf("t=%d: ", now)+fmt.Sprintf(f, args...))
	}
}

// after returns, per project (parents include their children), the slots
// counted toward quota once the plan applies, and the part of them held by
// work that may only run within quota. Tasks that are checkpointing, or
// that the plan preempts, no longer count; borrowing work never counts.
// Starts count; placements on draining slots (holds) are not in the plan
// (see mayHold).
func after(s *sched.Snapshot, p *sched.Plan) (counted, fixed []int) {
	counted, fixed = make([]int, len(s.Projects)), make([]int, len(s.Projects))
	gone := make([]bool, len(s.Allocs))
	for _, pr := range p.Preemptions {
		gone[pr.Alloc] = true
	}
	add := func(job, slots int) {
		j := &s.Jobs[job]
		if j.Borrow || j.Project < 0 {
			return
		}
		for at := j.Project; at >= 0; at = s.Projects[at].Parent {
			counted[at] += slots
			if j.Interactive || !j.Preemptible {
				fixed[at] += slots
			}
		}
	}
	for i, a := range s.Allocs {
		if !gone[i] && !a.Preempting {
			add(a.Job, sched.Slots(a.Nodes))
		}
	}
	for _, st := range p.Starts {
		add(st.Job, sched.Slots(st.Nodes))
	}
	return counted, fixed
}

func (qc *quotaChecker) inspect(now int64, s *sched.Snapshot, p *sched.Plan) {
	if qc.passes++; qc.passes > quotaMaxPasses {
		panic(propLivelock{now})
	}
	qc.last = cloneSnap(s)
	counted, fixed := after(s, p)
	maybe := mayHold(s, p)
	for i, pr := range s.Projects {
		if pr.Limit > 0 && counted[i] > pr.Limit {
			qc.failf(now, "project %s holds %d counted slots, past its limit %d", pr.Name, counted[i], pr.Limit)
		}
	}
	for _, st := range p.Starts {
		j := &s.Jobs[st.Job]
		if (j.Interactive || !j.Preemptible) && !j.Borrow && fixed[j.Project] > s.Projects[j.Project].Quota {
			qc.failf(now, "%s starts beyond quota: project %s would hold %d slots of guaranteed work, quota %d",
				j.ID, s.Projects[j.Project].Name, fixed[j.Project], s.Projects[j.Project].Quota)
		}
	}
	for _, pre := range p.Preemptions {
		victim, for_ := &s.Jobs[s.Allocs[pre.Alloc].Job], &s.Jobs[pre.For]
		if victim.Interactive {
			qc.failf(now, "interactive %s preempted for %s", victim.ID, for_.ID)
		}
		if victim.Borrow || victim.Project == for_.Project {
			continue
		}
		for at := victim.Project; at >= 0 && !isAncestor(s, at, for_.Project); at = s.Projects[at].Parent {
			if counted[at]+maybe[at] < s.Projects[at].Quota {
				qc.failf(now, "reclaim for %s (project %s) leaves project %s with %d slots, below its quota %d",
					for_.ID, s.Projects[for_.Project].Name, s.Projects[at].Name, counted[at], s.Projects[at].Quota)
			}
		}
	}
}

// mayHold bounds, per project, the slots its jobs may have claimed in the
// pass on slots that are still draining (holds), which the plan does not
// list: no more than the draining slots, nor than its waiting tasks need.
func mayHold(s *sched.Snapshot, p *sched.Plan) []int {
	draining := 0
	for _, a := range s.Allocs {
		if a.Preempting {
			draining += sched.Slots(a.Nodes)
		}
	}
	for _, pr := range p.Preemptions {
		draining += sched.Slots(s.Allocs[pr.Alloc].Nodes)
	}
	out := make([]int, len(s.Projects))
	for _, j := range s.Jobs {
		if j.Borrow || j.Project < 0 {
			continue
		}
		for at := j.Project; at >= 0; at = s.Projects[at].Parent {
			out[at] += j.Waiting * j.Slots
		}
	}
	for i := range out {
		out[i] = min(out[i], draining)
	}
	return out
}

func isAncestor(s *sched.Snapshot, a, pr int) bool {
	for ; pr >= 0; pr = s.Projects[pr].Parent {
		if pr == a {
			return true
		}
	}
	return false
}

func cloneSnap(s *sched.Snapshot) *sched.Snapshot {
	out := &sched.Snapshot{Now: s.Now, Pools: slices.Clone(s.Pools), Nodes: slices.Clone(s.Nodes),
		Jobs: slices.Clone(s.Jobs), Projects: slices.Clone(s.Projects)}
	for _, a := range s.Allocs {
		a.Nodes = slices.Clone(a.Nodes)
		out.Allocs = append(out.Allocs, a)
	}
	return out
}

// checkQuotaResult checks a run's result: attempts agree with the
// preemption counts and states, and each project's GPU-seconds are the
// integral of its held steps.
func checkQuotaResult(res *sim.Result, c *quotaCase) []string {
	var bad []string
	for _, jr := range res.Jobs {
		preempted := 0
		for _, a := range jr.Attempts {
			if a.End != nil && *a.End < a.Start {
				bad = append(bad, fmt.Sprintf("%s: attempt %+v ends before it starts", jr.Name, a))
			}
			if a.State == sim.AttemptPreempted || a.State == sim.AttemptPreempting {
				preempted++
			}
		}
		if preempted != jr.Preemptions {
			bad = append(bad, fmt.Sprintf("%s: %d preemptions but %d preempted attempts", jr.Name, jr.Preemptions, preempted))
		}
		if jr.State == sim.StateFailed && preempted == 0 {
			bad = append(bad, fmt.Sprintf("%s failed without a preemption", jr.Name))
		}
	}
	for _, p := range res.Projects {
		var secs int64
		prev := sim.HeldStep{}
		for _, st := range p.Held {
			secs += int64(prev.Slots) * (st.Time - prev.Time)
			prev = st
		}
		secs += int64(prev.Slots) * (res.End - prev.Time)
		if secs != p.GPUSeconds {
			bad = append(bad, fmt.Sprintf("project %s: gpu_seconds %d, but its steps integrate to %d", p.Name, p.GPUSeconds, secs))
		}
	}
	return bad
}

// quotaRun replays a case with the quota checker. A run whose
// preemptions never settle is cut off, at the horizon or after too many
// passes, and reported as stuck with a nil result.
func quotaRun(t *testing.T, i int, c *quotaCase) (*sim.Result, *quotaChecker, bool) {
	t.Helper()
	qc := &quotaChecker{}
	res := runCutOff(t, i, c.input(), qc.inspect, c)
	return res, qc, res == nil || qc.last != nil && qc.last.Now >= quotaHorizon/2
}

// runCutOff replays in up to quotaHorizon with the inspector, which ends a
// run that keeps preempting by panicking with propLivelock; such a run
// gives a nil result.
func runCutOff(t *testing.T, i int, in *sim.Input, inspect func(int64, *sched.Snapshot, *sched.Plan), c fmt.Stringer) (res *sim.Result) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(propLivelock); !ok {
				panic(r)
			}
			res = nil
		}
	}()
	res, err := sim.Run(in, sim.Options{Until: quotaHorizon, Timeline: true, Attempts: true, Inspect: inspect})
	if err != nil {
		t.Fatalf("case %d: %v\n%s", i, err, c)
	}
	return res
}

// Submissions end by t=1000 and finite tasks by about t=3000, so a run
// still scheduling at half the horizon is thrashing.
const quotaHorizon = 100_000

// TestQuotaProperties checks the quota rules at every pass of random
// runs: no project past its limit, reclaim never pushing a victim below its
// quota, interactive work never preempted, work that may only run within
// quota never started beyond it; and the results' attempts and project
// series agree with the rest of the result.
func TestQuotaProperties(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(2, 3))
	stats := map[string]int{}
	for i := range n {
		c := quotaGen(rng, i%2 == 1)
		res, qc, stuck := quotaRun(t, i, c)
		bad := qc.bad
		if !stuck {
			bad = append(bad, checkQuotaResult(res, c)...)
		}
		if len(bad) > 0 {
			t.Fatalf("case %d:\n%s\n%s", i, strings.Join(bad, "\n"), c)
		}
		if stuck {
			stats["stuck (see TestQuotaSettles)"]++
			continue
		}
		stats["jobs"] += len(c.jobs)
		stats["preemptions"] += res.Metrics.Preemptions
		stats["failed"] += res.Metrics.Failed
		for _, jr := range res.Jobs {
			for _, a := range jr.Attempts {
				if a.LostWork > 0 {
					stats["attempts that lost work"]++
				}
			}
		}
	}
	t.Logf("%d workloads: %v", n, stats)
	if stats["preemptions"] == 0 || stats["failed"] == 0 || stats["attempts that lost work"] == 0 {
		t.Errorf("the generator never exercised preemption, exit actions or checkpoints: %v", stats)
	}
}

// TestQuotaSettles: in runs where nothing ends, once the submissions and
// the preemptions they cause are through, the run settles: it stops well
// before the horizon, and a further pass by a fresh scheduler changes
// nothing. (It found the start/preempt cycles of
// TestQuotaNoOwnProjectThrash and TestQuotaNoOverQuotaStartThenReclaim.)
func TestQuotaSettles(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	rng := rand.New(rand.NewPCG(5, 8))
	thrash := 0
	var first string
	for i := range n {
		c := quotaGen(rng, true)
		_, qc, stuck := quotaRun(t, i, c)
		if qc.last == nil {
			continue
		}
		plan, err := sched.Schedule(qc.last)
		if err != nil {
			t.Fatalf("case %d: final pass: %v", i, err)
		}
		if stuck || len(plan.Starts)+len(plan.Preemptions) > 0 {
			thrash++
			if first == "" {
				first = fmt.Sprintf("case %d: still scheduling at t=%d; a further pass starts %d and preempts %d\n%s",
					i, qc.last.Now, len(plan.Starts), len(plan.Preemptions), c)
			}
		}
	}
	if thrash > 0 {
		t.Fatalf("%d of %d runs never settle; the first:\n%s", thrash, n, first)
	}
}
