package lifecycle_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestStepInvariants drives a Cluster as a driver does, through Step and
// Observe only: random submissions (some elastic, which grow by
// resizes), kills (each kill's end reported at once, before the
// instant's Step, or later), nodes going down and
// coming back, nodes drained and resumed, and the outcomes each effect promises (a task's end by
// Due, a checkpoint landing after a random cost, one start in ten
// failing at once) reported back by version, some of them stale by then. After each Step the books must
// balance (checkBooks), no node may hold more than its slots (the core
// plans net of what drains, and Step must apply effects in an order that
// keeps it so; a down node has none), a stale outcome must change
// nothing, a node going down must free what its records held, and a
// drained node must take no start, lose no task to a preemption and
// never hold more than when it was last checked.
func TestStepInvariants(t *testing.T) {
	policies := []sched.Pool{
		{Name: "fifo", Policy: sched.PolicyFIFO},
		{Name: "easy", Policy: sched.PolicyBackfill},
		{Name: "priority", Policy: sched.PolicyPriority, Preemption: true},
		{Name: "conservative", Policy: sched.PolicyBackfill, Reservations: sched.ReserveConservative},
	}
	resizes := 0
	graph := &graphWatch{seen: map[string]int{}}
	for _, pool := range policies {
		var seen [lifecycle.OpStart + 1]int
		stale, lost, startFailed, drains := 0, 0, 0, 0
		for seed := range uint64(10) {
			d := newStepDriver(rand.New(rand.NewPCG(seed, 13)), pool)
			d.graph.seen = graph.seen // the edges all runs took
			for round := range 400 {
				if err := d.round(); err != nil {
					t.Fatalf("%s, seed %d, round %d, t=%d: %v", pool.Name, seed, round, d.now, err)
				}
			}
			for i, n := range d.seen {
				seen[i] += n
			}
			stale += d.stale
			lost += d.lost
			startFailed += d.startFailed
			drains += d.drains
		}
		// The runs must have done what they are meant to check.
		if seen[lifecycle.OpStart] == 0 || stale == 0 || lost == 0 || startFailed == 0 || drains == 0 ||
			pool.Preemption && seen[lifecycle.OpPreempt] == 0 {
			t.Errorf("%s: effects %v, stale outcomes %d, records lost %d, starts failed %d, drains %d: the runs check too little",
				pool.Name, seen, stale, lost, startFailed, drains)
		}
		resizes += seen[lifecycle.OpResize]
	}
	if resizes == 0 {
		t.Errorf("no resizes: the runs check no re-placement")
	}
	// Every task record's change was on the graph (round), and the runs
	// took the edges of every effect and outcome a driver reports.
	if err := graph.check("queued → running", "running → preempting", "preempting → preempted", "preempted → running",
		"preempting → failed", "preempting → killed", "running → completed", "running → failed", "running → queued",
		"running → killing", "preempting → killing", "killing → killed"); err != nil {
		t.Error(err)
	}
}

// promise is an outcome an effect promised, reported at at.
type promise struct {
	at int64
	ev lifecycle.Event
}

// stepDriver is a driver of a Cluster of four 4-slot nodes: the
// promises its Applier heard of, and the job records it submitted.
type stepDriver struct {
	c        lifecycle.Cluster
	rng      *rand.Rand
	now, seq int64
	promised []promise
	seen     [lifecycle.OpStart + 1]int // effects by op
	stale    int                        // stale outcomes reported
	lost     int                        // records freed by nodes going down
	// startFailed counts the failed starts applied.
	startFailed int
	// drained are the nodes drained now; drains counts the drains, and
	// err is the first effect found on a drained node.
	drained [4]bool
	drains  int
	err     error
	// held is what each drained node held at the last check: it may
	// only shrink while the node is drained.
	held [4]int
	// graph checks every change of a task record's State (graph_test.go).
	graph *graphWatch
	// The driver stores each pass (Persist, persist_test.go), and may
	// refuse one or bound a Step's passes.
	persisting
}

func newStepDriver(rng *rand.Rand, pool sched.Pool) *stepDriver {
	d := &stepDriver{rng: rng}
	d.graph = watchGraph(&d.c)
	d.c.Snap.Pools = []sched.Pool{pool}
	for i := range 4 {
		d.c.Snap.Nodes = append(d.c.Snap.Nodes, sched.Node{Name: fmt.Sprintf("n%d", i), Slots: 4})
	}
	d.c.Configure(lifecycle.StepOptions{})
	return d
}

// Applied notes the outcomes the effect promises.
func (d *stepDriver) Applied(now int64, e *lifecycle.Effect) {
	d.seen[e.Op]++
	if err := d.checkDrained(e); err != nil && d.err == nil {
		d.err = err
	}
	if err := d.checkStored(e); err != nil && d.err == nil {
		d.err = err
	}
	cost := int64(d.rng.IntN(6))
	switch e.Op {
	case lifecycle.OpPreempt:
		d.promise(now+cost, lifecycle.EventLanded, e.Task)
		return
	case lifecycle.OpMove, lifecycle.OpResize:
		// It resumes, and its end is promised, when this lands.
		d.promise(now+cost, lifecycle.EventLanded, e.Task)
		return
	case lifecycle.OpStart:
		if d.rng.IntN(10) == 0 {
			d.promise(now, lifecycle.EventStartFailed, e.Task)
		}
	}
	d.promiseEnd(e.Task)
}

// promiseEnd promises task ti's end, if Due promises one.
func (d *stepDriver) promiseEnd(ti int32) {
	t := d.c.Tasks.At(ti)
	if end, _ := t.Due(d.c.Jobs[t.Job].Shape); end >= 0 {
		d.promise(end, lifecycle.EventEnded, ti)
	}
}

func (d *stepDriver) promise(at int64, kind lifecycle.EventKind, ti int32) {
	d.promised = append(d.promised, promise{at: at, ev: lifecycle.Event{Kind: kind, Task: ti, Ver: d.c.Tasks.At(ti).Ver}})
}

// killings reports the end of each kill a kill or time limit left
// killing, as a driver does: at once, before the instant's Step, or
// promised a few seconds later, the task holding its slots meanwhile.
func (d *stepDriver) killings(ks []lifecycle.KillingTask) error {
	for _, k := range slices.Clone(ks) {
		if d.rng.IntN(2) == 0 {
			d.promise(d.now+1+int64(d.rng.IntN(10)), lifecycle.EventKillEnded, k.Task)
			continue
		}
		inUse, slots := d.c.InUse(), sched.Slots(d.c.Tasks.At(k.Task).Nodes)
		o := d.c.Observe(d.now, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: k.Task, Ver: d.c.Tasks.At(k.Task).Ver})
		if !o.Applied || o.Slots != slots || inUse-d.c.InUse() != slots {
			return fmt.Errorf("t%d's kill ended at once: %+v, in use %d → %d; want %d freed", k.Task, o, inUse, d.c.InUse(), slots)
		}
	}
	return nil
}

// preemptingJob is the job of the first task record preempting, -1 for
// none.
func (d *stepDriver) preemptingJob() int32 {
	for ti := range int32(d.c.Tasks.Len()) {
		if r := d.c.Tasks.At(ti); r.State == lifecycle.TaskPreempting {
			return r.Job
		}
	}
	return -1
}

// round moves the clock, reports the outcomes due, submits or kills at
// random, steps and checks.
func (d *stepDriver) round() error {
	d.now += int64(d.rng.IntN(20))
	slices.SortStableFunc(d.promised, func(a, b promise) int { return int(a.at - b.at) })
	n := 0
	for n < len(d.promised) && d.promised[n].at <= d.now {
		n++
	}
	due := slices.Clone(d.promised[:n])
	d.promised = slices.Delete(d.promised, 0, n)
	for _, p := range due {
		stale := !d.c.Tasks.Current(p.ev.Task, p.ev.Ver)
		if stale {
			d.stale++
		}
		inUse := d.c.InUse()
		o := d.c.Observe(d.now, p.ev)
		if o.Applied == stale || stale && d.c.InUse() != inUse {
			return fmt.Errorf("outcome %+v: stale %t, applied %t, in use %d → %d", p.ev, stale, o.Applied, inUse, d.c.InUse())
		}
		if o.Applied && p.ev.Kind == lifecycle.EventStartFailed {
			d.startFailed++
			if st := d.c.Tasks.At(p.ev.Task).State; st != lifecycle.StartFailed() || inUse-d.c.InUse() != o.Slots {
				return fmt.Errorf("start failed %+v: task %s, freed %d, in use %d → %d", p.ev, st, o.Slots, inUse, d.c.InUse())
			}
		}
		if o.Drained {
			d.promiseEnd(p.ev.Task)
		}
		if err := d.killings(o.Killing); err != nil {
			return err
		}
	}
	for range d.rng.IntN(3) {
		d.submit()
	}
	kill := int32(-1)
	switch pj := d.preemptingJob(); {
	case pj >= 0 && d.rng.IntN(2) == 0:
		kill = pj // a kill that finds a checkpoint under way, which runs seldom meet by chance
	case d.rng.IntN(8) == 0 && len(d.c.Jobs) > 0:
		kill = int32(d.rng.IntN(len(d.c.Jobs)))
	}
	if kill >= 0 {
		if err := d.killings(d.c.Observe(d.now, lifecycle.Event{Kind: lifecycle.EventKill, Job: kill}).Killing); err != nil {
			return err
		}
	}
	if d.rng.IntN(10) == 0 {
		if err := d.flipNode(); err != nil {
			return err
		}
	}
	if d.rng.IntN(10) == 0 {
		n := d.rng.IntN(len(d.drained))
		kind := lifecycle.EventNodeDrain
		if d.drained[n] {
			kind = lifecycle.EventNodeResume
		}
		if o := d.c.Observe(d.now, lifecycle.Event{Kind: kind, Node: int32(n)}); !o.Applied || o.Slots != 0 {
			return fmt.Errorf("node %d drained %t: event %d gave %+v", n, d.drained[n], kind, o)
		}
		d.drained[n] = !d.drained[n]
		d.drains++
		d.held[n] = d.holds()[n]
	}
	if err := d.step(); err != nil {
		return err
	}
	if d.err != nil {
		return d.err
	}
	if err := checkBooks(&d.c); err != nil {
		return err
	}
	if d.graph.err != nil {
		return d.graph.err
	}
	if err := checkCounts(&d.c, d.graph); err != nil {
		return err
	}
	return d.checkNodes()
}

func (d *stepDriver) submit() {
	tasks := 1 + d.rng.IntN(3)
	d.seq++
	sh := lifecycle.Shape{Every: int64(d.rng.IntN(2) * 10), Limit: int64(d.rng.IntN(2) * 60)}
	slots, minSlots := 1+d.rng.IntN(4), 0
	if d.rng.IntN(4) == 0 && slots > 1 {
		// Elastic: it may start shrunk and grow, and a pass may plan it
		// again before its checkpoint lands (lifecycle.Replannable).
		sh.Elastic, minSlots = true, 1
	}
	submit(&d.c, d.now, lifecycle.Submission{Tasks: tasks, Fresh: lifecycle.FreshWork(int64(1+d.rng.IntN(100)), slots, sh.Elastic),
		Shape: sh, MaxRetries: d.rng.IntN(3), Project: -1, Account: -1},
		sched.Job{ID: fmt.Sprintf("j%d", d.seq), Submit: d.now, Seq: d.seq, Priority: d.rng.IntN(5),
			Preemptible: d.rng.IntN(2) == 0, Slots: slots, MinSlots: minSlots, MaxRunning: tasks, Weight: 1,
			TimeLimit: sh.Limit, Project: -1, Account: -1})
}

// flipNode takes a random node down, or brings it back if it is down,
// and checks that a loss freed exactly what the records on the node held,
// and that none is left on it.
func (d *stepDriver) flipNode() error {
	n := int32(d.rng.IntN(len(d.c.Snap.Nodes)))
	inUse := d.c.InUse()
	o := d.c.Observe(d.now, lifecycle.Event{Kind: lifecycle.EventNodeDown, Node: n})
	if !o.Applied {
		if o = d.c.Observe(d.now, lifecycle.Event{Kind: lifecycle.EventNodeUp, Node: n}); !o.Applied {
			return fmt.Errorf("node %d neither went down nor came back", n)
		}
		return nil
	}
	d.lost += len(o.Freed)
	freed := 0
	for _, f := range o.Freed {
		freed += f.Slots
		if t := d.c.Tasks.At(f.Task); t.State.Active() {
			return fmt.Errorf("node %d down: t%d freed but %s", n, f.Task, t.State)
		}
	}
	if freed != o.Slots || inUse-d.c.InUse() != freed {
		return fmt.Errorf("node %d down: freed %d slots, outcome says %d, in use %d → %d", n, freed, o.Slots, inUse, d.c.InUse())
	}
	for _, ti := range d.c.Tasks.Running() {
		// A re-placed task keeps the placement it reserved there until its
		// checkpoint lands, and then waits again (lifecycle.Restartable).
		t := d.c.Tasks.At(ti)
		reserved := t.Replacing() && !slices.ContainsFunc(t.Old, func(x sched.NodeSlots) bool { return x.Node == n })
		if t.State.Active() && !reserved && slices.ContainsFunc(t.Nodes, func(x sched.NodeSlots) bool { return x.Node == n }) {
			return fmt.Errorf("node %d down: t%d still holds slots there", n, ti)
		}
	}
	for _, ji := range o.Ended {
		if !d.c.Jobs[ji].State.Terminal() {
			return fmt.Errorf("node %d down: j%d ended but %s", n, ji, d.c.Jobs[ji].State)
		}
	}
	return checkBooks(&d.c)
}

// checkDrained checks that effect e puts nothing new on a drained node:
// no start there and no preemption of a task there (checkNodes checks
// that moves and resizes do not grow onto one).
func (d *stepDriver) checkDrained(e *lifecycle.Effect) error {
	nodes := e.Nodes
	if e.Op == lifecycle.OpPreempt {
		nodes = d.c.Tasks.At(e.Task).Nodes
	} else if e.Op != lifecycle.OpStart {
		return nil
	}
	for _, ns := range nodes {
		if d.drained[ns.Node] {
			return fmt.Errorf("%v of t%d on drained node %d", e.Op, e.Task, ns.Node)
		}
	}
	return nil
}

// checkNodes checks that no node holds more than its slots, counting
// every live task record (running, checkpointing, draining), but for
// placements reserved on nodes that are down, and that a drained node's
// holding never grows.
func (d *stepDriver) checkNodes() error {
	held := d.holds()
	for i, h := range held {
		if h > d.c.Snap.Nodes[i].Slots {
			return fmt.Errorf("node %d holds %d of its %d slots", i, h, d.c.Snap.Nodes[i].Slots)
		}
		if d.drained[i] && h > d.held[i] {
			return fmt.Errorf("drained node %d holds %d slots, up from %d", i, h, d.held[i])
		}
		d.held[i] = h
	}
	return nil
}

// holds is what every live task record holds on each node.
func (d *stepDriver) holds() []int {
	held := make([]int, len(d.c.Snap.Nodes))
	for _, ti := range d.c.Tasks.Running() {
		if t := d.c.Tasks.At(ti); t.State.Active() {
			for _, ns := range t.Nodes {
				// A placement reserved on a node lost since holds nothing
				// there (lifecycle.Restartable).
				if !t.Replacing() || d.c.Snap.Nodes[ns.Node].Slots > 0 || slices.ContainsFunc(t.Old, func(x sched.NodeSlots) bool { return x.Node == ns.Node }) {
					held[ns.Node] += int(ns.Slots)
				}
			}
		}
	}
	return held
}
