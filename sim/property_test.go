package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// Property tests of whole runs over random workloads built directly as
// sim.Input, under all four policies.

var propPolicies = []sched.Policy{sched.PolicyFIFO, sched.PolicyBackfill, sched.PolicyFairShare, sched.PolicyPriority}

var propGPUs = []string{"h100", "a100"}

// propCase is one random workload and what the checks need to know about
// it.
type propCase struct {
	pools  []sim.Pool
	jobs   []sim.JobSpec
	events []sim.Event
	killed map[string]bool // jobs with a kill event
	never  map[string]bool // jobs that can never fit their pool
}

func (c *propCase) input() *sim.Input {
	return &sim.Input{Pools: c.pools, Jobs: sim.NewSliceSource(c.jobs), Events: c.events}
}

func (c *propCase) String() string {
	var b strings.Builder
	for _, p := range c.pools {
		fmt.Fprintf(&b, "pool %+v cost=%d nodes:", p.Pool, p.CheckpointCost)
		for _, n := range p.Nodes {
			fmt.Fprintf(&b, " %d/%s", n.Slots, n.GPU)
		}
		b.WriteString("\n")
	}
	for _, j := range c.jobs {
		fmt.Fprintf(&b, "job %+v\n", j)
	}
	for _, e := range c.events {
		fmt.Fprintf(&b, "event %+v\n", e)
	}
	return b.String()
}

// propFits reports whether one task of the job fits its empty pool: a
// gang may mix node sizes (whole nodes plus one remainder), so a task fits
// when the nodes of its GPU type hold it together.
func propFits(p *sim.Pool, j *sim.JobSpec) bool {
	total := 0
	for _, n := range p.Nodes {
		if j.GPU == "" || n.GPU == j.GPU {
			total += n.Slots
		}
	}
	return total >= j.Slots
}

// propGen builds a random workload. policy, when set, is used by every
// pool; otherwise each pool draws one.
func propGen(rng *rand.Rand, policy sched.Policy) *propCase {
	c := &propCase{killed: map[string]bool{}, never: map[string]bool{}}
	np := 1 + rng.IntN(2)
	for i := range np {
		pol := policy
		if pol == "" {
			pol = propPolicies[rng.IntN(len(propPolicies))]
		}
		p := sim.Pool{
			Pool: sched.Pool{Name: fmt.Sprintf("p%d", i), Policy: pol,
				Preemption: rng.IntN(2) == 0, Backfill: rng.IntN(2) == 0,
				Serial:       pol == sched.PolicyFIFO && rng.IntN(4) == 0,
				Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack},
			CheckpointCost: int64(rng.IntN(3) * 30),
		}
		if rng.IntN(2) == 0 {
			p.Reservations = sched.ReserveConservative
		}
		if rng.IntN(4) == 0 {
			p.Placement = sched.PlaceSpread
		}
		nn := 1 + rng.IntN(5)
		size := []int{1, 2, 4, 8}[rng.IntN(4)]
		for k := range nn {
			n := sched.Node{Name: fmt.Sprintf("p%d-n%d", i, k), Pool: i, Slots: size, ZeroSlotLimit: 1 + rng.IntN(3)}
			if rng.IntN(3) == 0 {
				n.Slots = 1 + rng.IntN(8)
			}
			if rng.IntN(2) == 0 {
				n.GPU = propGPUs[rng.IntN(2)]
			}
			p.Nodes = append(p.Nodes, n)
		}
		c.pools = append(c.pools, p)
	}
	nj := 1 + rng.IntN(20)
	for i := range nj {
		pi := rng.IntN(np)
		p := &c.pools[pi]
		j := sim.JobSpec{
			Name: fmt.Sprintf("j%02d", i), Kind: sched.KindExperiment, Submit: int64(rng.IntN(40) * 25), Pool: pi,
			Tasks: 1 + rng.IntN(4), Duration: int64(10 + rng.IntN(400)),
			Priority: 1 + rng.IntN(5), Weight: float64(1 + rng.IntN(3)), Preemptible: rng.IntN(10) < 6,
		}
		j.MaxConcurrent = 1 + rng.IntN(j.Tasks)
		maxNode := 0
		for _, n := range p.Nodes {
			maxNode = max(maxNode, n.Slots)
		}
		switch r := rng.IntN(10); {
		case r == 0:
			j.Slots = 0
		case r == 1:
			j.Slots = maxNode + 1 + rng.IntN(maxNode*2) // a gang, if the pool can take it
		default:
			j.Slots = 1 + rng.IntN(maxNode)
		}
		if rng.IntN(6) == 0 {
			n := p.Nodes[rng.IntN(len(p.Nodes))]
			j.GPU = n.GPU // a type the pool has (or none)
		}
		if rng.IntN(4) == 0 {
			j.TimeLimit = int64(20 + rng.IntN(400))
		}
		if rng.IntN(10) == 0 {
			j.Duration = sim.Unbounded
			if j.TimeLimit == 0 && rng.IntN(2) == 0 {
				j.TimeLimit = int64(50 + rng.IntN(300))
			}
		}
		fits := j.Slots == 0 || propFits(p, &j)
		if !fits && p.Policy != sched.PolicyFairShare {
			// A job that can never fit blocks FIFO, backfill and priority
			// queues for good: keep those to fair-share pools.
			j.Slots = 1 + rng.IntN(maxNode)
			j.GPU = ""
		} else if !fits {
			c.never[j.Name] = true
		}
		if j.Duration == sim.Unbounded && j.TimeLimit == 0 || rng.IntN(12) == 0 {
			c.killed[j.Name] = true
			c.events = append(c.events, sim.Event{At: int64(rng.IntN(3000)), Kind: sim.EventKill, Job: j.Name})
		}
		c.jobs = append(c.jobs, j)
	}
	for range rng.IntN(4) {
		j := c.jobs[rng.IntN(nj)]
		e := sim.Event{At: int64(rng.IntN(2000)), Job: j.Name}
		if rng.IntN(2) == 0 {
			e.Kind, e.Priority = sim.EventSetPriority, 1+rng.IntN(5)
		} else {
			e.Kind, e.Weight = sim.EventSetWeight, float64(1+rng.IntN(4))
		}
		c.events = append(c.events, e)
	}
	return c
}

// propInspector checks every pass of a run: no node over-committed by the
// running tasks plus the plan's starts, every start of exactly the job's
// slots, and no preemption of a non-preemptible or already preempting task.
type propInspector struct {
	passes int
	bad    []string
}

// propLivelock is panicked by the inspector when a run makes far more
// passes than any of these small workloads needs: a preemption cycle that
// never ends.
type propLivelock struct{ now int64 }

const propMaxPasses = 100000

func (pi *propInspector) inspect(now int64, s *sched.Snapshot, p *sched.Plan) {
	pi.passes++
	if pi.passes > propMaxPasses {
		panic(propLivelock{now})
	}
	used := make([]int, len(s.Nodes))
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			used[ns.Node] += int(ns.Slots)
		}
	}
	for _, st := range p.Starts {
		if got := sched.Slots(st.Nodes); got != s.Jobs[st.Job].Slots {
			pi.bad = append(pi.bad, fmt.Sprintf("t=%d: start of %s with %d slots, job needs %d", now, s.Jobs[st.Job].ID, got, s.Jobs[st.Job].Slots))
		}
		for _, ns := range st.Nodes {
			used[ns.Node] += int(ns.Slots)
		}
	}
	for n, u := range used {
		if u > s.Nodes[n].Slots {
			pi.bad = append(pi.bad, fmt.Sprintf("t=%d: node %s holds %d of %d slots", now, s.Nodes[n].Name, u, s.Nodes[n].Slots))
		}
	}
	for _, pr := range p.Preemptions {
		a := &s.Allocs[pr.Alloc]
		if !s.Jobs[a.Job].Preemptible || a.Preempting {
			pi.bad = append(pi.bad, fmt.Sprintf("t=%d: preempted alloc of %s (preemptible %v, preempting %v)",
				now, s.Jobs[a.Job].ID, s.Jobs[a.Job].Preemptible, a.Preempting))
		}
	}
}

// propRun runs a case, turning the inspector's livelock panic into a
// result so that the failure shows the workload.
func propRun(c *propCase, opt sim.Options) (res *sim.Result, stuck *propLivelock, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, ok := r.(propLivelock)
			if !ok {
				panic(r)
			}
			stuck = &l
		}
	}()
	res, err = sim.Run(c.input(), opt)
	return res, nil, err
}

func propCheck(t *testing.T, n int, c *propCase) {
	t.Helper()
	fail := func(f string, args ...any) {
		t.Helper()
		t.Fatalf("case %d: %s\n%s", n, fmt.Sprintf(f, args...), c)
	}
	insp := &propInspector{}
	res, stuck, err := propRun(c, sim.Options{Until: -1, Timeline: true, Inspect: insp.inspect})
	if stuck != nil {
		fail("no end after %d passes, at t=%d", propMaxPasses, stuck.now)
	}
	if err != nil {
		fail("run: %v", err)
	}
	if len(insp.bad) > 0 {
		fail("%s", strings.Join(insp.bad, "\n"))
	}
	// Determinism: the same input again gives the same bytes.
	a, err := json.Marshal(res)
	if err != nil {
		fail("marshal: %v", err)
	}
	res2, err := sim.Run(c.input(), sim.Options{Until: -1, Timeline: true})
	if err != nil {
		fail("second run: %v", err)
	}
	b, _ := json.Marshal(res2)
	if !bytes.Equal(a, b) {
		fail("two runs of the same input differ:\n%s\n%s", a, b)
	}

	pool := map[string]int{}
	spec := map[string]*sim.JobSpec{}
	for i := range c.jobs {
		pool[c.jobs[i].Name] = c.jobs[i].Pool
		spec[c.jobs[i].Name] = &c.jobs[i]
	}
	capacity := make([]int, len(c.pools))
	total := 0
	for i, p := range c.pools {
		for _, n := range p.Nodes {
			capacity[i] += n.Slots
		}
		total += capacity[i]
	}
	if res.TotalSlots != total {
		fail("total slots %d, want %d", res.TotalSlots, total)
	}
	// Timeline: never more slots held than a pool has; zero-slot jobs and
	// jobs holding nothing are not listed; times increase.
	prev := int64(-1)
	for _, e := range res.Timeline {
		if e.Time <= prev {
			fail("timeline time %d after %d", e.Time, prev)
		}
		prev = e.Time
		held := make([]int, len(c.pools))
		for name, k := range e.Slots {
			js, ok := spec[name]
			if !ok || k <= 0 || js.Slots == 0 {
				fail("timeline at %d lists %s with %d slots", e.Time, name, k)
			}
			held[pool[name]] += k
		}
		for i, h := range held {
			if h > capacity[i] {
				fail("at %d pool %d holds %d of %d slots", e.Time, i, h, capacity[i])
			}
		}
	}
	// Jobs.
	if len(res.Jobs) != len(c.jobs) || res.Metrics.Jobs != len(c.jobs) {
		fail("%d results (metrics %d) for %d jobs", len(res.Jobs), res.Metrics.Jobs, len(c.jobs))
	}
	preempts := 0
	for _, jr := range res.Jobs {
		js := spec[jr.Name]
		preempts += jr.Preemptions
		if !js.Preemptible && jr.Preemptions != 0 {
			fail("non-preemptible job %s preempted %d times", jr.Name, jr.Preemptions)
		}
		if jr.Start != nil && (*jr.Start < jr.Submit || jr.Wait == nil || *jr.Wait != *jr.Start-jr.Submit) {
			fail("job %s: submit %d start %d wait %v", jr.Name, jr.Submit, *jr.Start, jr.Wait)
		}
		if jr.End != nil && jr.Start != nil && *jr.End < *jr.Start {
			fail("job %s ends at %d before its start %d", jr.Name, *jr.End, *jr.Start)
		}
		switch {
		case c.never[jr.Name]:
			if jr.State != sim.StatePending && !c.killed[jr.Name] || jr.Start != nil {
				fail("job %s can never fit, yet it is %s (start %v)", jr.Name, jr.State, jr.Start)
			}
			if jr.State == sim.StatePending && jr.Reason == "" {
				fail("job %s waits with no reason", jr.Name)
			}
		case c.killed[jr.Name]:
			if jr.End == nil || (jr.State != sim.StateKilled && jr.State != sim.StateCompleted) {
				fail("job %s with a kill event: %s, end %v", jr.Name, jr.State, jr.End)
			}
		default:
			// A job with a duration or a time limit that fits its pool
			// ends: completed, or killed at its time limit.
			if jr.End == nil {
				fail("job %s never ended: %s, reason %q", jr.Name, jr.State, jr.Reason)
			}
			if jr.State == sim.StateKilled && (js.TimeLimit <= 0 || js.Duration != sim.Unbounded && js.TimeLimit >= js.Duration) {
				fail("job %s killed without a kill event or a time limit below its duration", jr.Name)
			}
			if jr.State == sim.StateCompleted {
				if js.Duration == sim.Unbounded {
					fail("unbounded job %s completed", jr.Name)
				}
				if js.Tasks > 0 && *jr.End-*jr.Start < js.Duration {
					fail("job %s ran %d, less than its duration %d", jr.Name, *jr.End-*jr.Start, js.Duration)
				}
			}
		}
	}
	if res.Metrics.Preemptions != preempts {
		fail("metrics count %d preemptions, jobs %d", res.Metrics.Preemptions, preempts)
	}
	if u := res.Metrics.Utilization; u < 0 || u > 1 {
		fail("utilization %v", u)
	}
}

// TestPropertyRuns replays random workloads under each policy, then mixed
// ones, and checks every run's result.
func TestPropertyRuns(t *testing.T) {
	perPolicy := 200
	if testing.Short() {
		perPolicy = 60
	}
	rng := rand.New(rand.NewPCG(42, 2024))
	stats := map[string]int{}
	n := 0
	for _, pol := range append(propPolicies, "") {
		name := string(pol)
		if name == "" {
			name = "mixed"
		}
		t.Run(name, func(t *testing.T) {
			for range perPolicy {
				c := propGen(rng, pol)
				propCheck(t, n, c)
				n++
				stats["jobs"] += len(c.jobs)
				stats["never fit"] += len(c.never)
				stats["kill events"] += len(c.killed)
			}
		})
	}
	t.Logf("%d workloads: %v", n, stats)
}

// TestPropertyPreemptionHappens guards the generator: some random workloads
// must preempt, or the preemption properties above prove nothing.
func TestPropertyPreemptionHappens(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	preempts, gangs := 0, 0
	for range 60 {
		c := propGen(rng, "")
		res, err := sim.Run(c.input(), sim.Options{Until: -1, Inspect: func(_ int64, s *sched.Snapshot, p *sched.Plan) {
			for _, st := range p.Starts {
				if len(st.Nodes) > 1 {
					gangs++
				}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		preempts += res.Metrics.Preemptions
	}
	if preempts == 0 || gangs == 0 {
		t.Fatalf("%d preemptions and %d gang starts in 60 random workloads", preempts, gangs)
	}
}
