package sched

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// This file holds the fixture builders shared by the package's tests: a
// small fluent builder for snapshots, and helpers that apply a plan to a
// snapshot and finish checkpoints, so that multi-pass tests read like the
// walkthroughs in the seeds.
//
//	b := newCluster(t).pool("gpu", PolicyPriority, withPreemption()).nodes("gpu", 2, 8, "h100")
//	j := b.job("asha", prio(2), slots(1), waiting(20), maxRunning(20), preemptible())
//	b.running(j, start(0), on("gpu-1", 1))
//	s := b.snapshot()

// cluster builds a Snapshot. Jobs are added to the most recently added pool
// unless inPool says otherwise; each job gets the next submission sequence
// number, so creation order is submission order among equal submit times.
type cluster struct {
	t    testing.TB
	s    Snapshot
	last int // the pool jobs and nodes go to by default
	seq  int64
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	return &cluster{t: t, last: -1}
}

type poolOpt func(*Pool)

func withPreemption() poolOpt { return func(p *Pool) { p.Preemption = true } }
func withBackfill() poolOpt   { return func(p *Pool) { p.Backfill = true } }
func withSerial() poolOpt     { return func(p *Pool) { p.Serial = true } }
func withSpread() poolOpt     { return func(p *Pool) { p.Placement = PlaceSpread } }
func withReservations(r Reservations) poolOpt {
	return func(p *Pool) { p.Reservations = r }
}
func withMultifactor(mf Multifactor) poolOpt { return func(p *Pool) { p.Multifactor = mf } }

// pool adds a pool; placement defaults to best fit and reservations to EASY.
func (c *cluster) pool(name string, pol Policy, opts ...poolOpt) *cluster {
	c.t.Helper()
	p := Pool{Name: name, Policy: pol, Placement: PlaceBinpack, Reservations: ReserveEASY}
	for _, o := range opts {
		o(&p)
	}
	c.s.Pools = append(c.s.Pools, p)
	c.last = len(c.s.Pools) - 1
	return c
}

// now sets the snapshot's clock.
func (c *cluster) now(t int64) *cluster {
	c.s.Now = t
	return c
}

func (c *cluster) poolIndex(name string) int {
	c.t.Helper()
	for i := range c.s.Pools {
		if c.s.Pools[i].Name == name {
			return i
		}
	}
	c.t.Fatalf("fixture: no pool %q", name)
	return -1
}

type nodeOpt func(*Node)

// zeroLimit sets how many zero-slot tasks a node may run (default 100).
func zeroLimit(n int) nodeOpt { return func(nd *Node) { nd.ZeroSlotLimit = n } }

// nodes adds n nodes of the given size and GPU type to a pool, named
// "<pool>-1", "<pool>-2", ... continuing the pool's numbering.
func (c *cluster) nodes(pool string, n, slots int, gpu string, opts ...nodeOpt) *cluster {
	c.t.Helper()
	pi := c.poolIndex(pool)
	have := 0
	for i := range c.s.Nodes {
		if c.s.Nodes[i].Pool == pi {
			have++
		}
	}
	for i := range n {
		nd := Node{Name: fmt.Sprintf("%s-%d", pool, have+i+1), Pool: pi, Slots: slots, GPU: gpu, ZeroSlotLimit: 100}
		for _, o := range opts {
			o(&nd)
		}
		c.s.Nodes = append(c.s.Nodes, nd)
	}
	return c
}

// node adds one node with an explicit name.
func (c *cluster) node(pool, name string, slots int, gpu string, opts ...nodeOpt) *cluster {
	c.t.Helper()
	nd := Node{Name: name, Pool: c.poolIndex(pool), Slots: slots, GPU: gpu, ZeroSlotLimit: 100}
	for _, o := range opts {
		o(&nd)
	}
	c.s.Nodes = append(c.s.Nodes, nd)
	return c
}

func (c *cluster) nodeIndex(name string) int32 {
	c.t.Helper()
	for i := range c.s.Nodes {
		if c.s.Nodes[i].Name == name {
			return int32(i)
		}
	}
	c.t.Fatalf("fixture: no node %q", name)
	return -1
}

type jobOpt func(*cluster, *Job)

func prio(p int) jobOpt         { return func(_ *cluster, j *Job) { j.Priority = p } }
func slots(n int) jobOpt        { return func(_ *cluster, j *Job) { j.Slots = n } }
func waiting(n int) jobOpt      { return func(_ *cluster, j *Job) { j.Waiting = n } }
func maxRunning(n int) jobOpt   { return func(_ *cluster, j *Job) { j.MaxRunning = n } }
func preemptible() jobOpt       { return func(_ *cluster, j *Job) { j.Preemptible = true } }
func submit(t int64) jobOpt     { return func(_ *cluster, j *Job) { j.Submit = t } }
func seq(n int64) jobOpt        { return func(_ *cluster, j *Job) { j.Seq = n } }
func timeLimit(d int64) jobOpt  { return func(_ *cluster, j *Job) { j.TimeLimit = d } }
func weight(w float64) jobOpt   { return func(_ *cluster, j *Job) { j.Weight = w } }
func gpuType(g string) jobOpt   { return func(_ *cluster, j *Job) { j.GPU = g } }
func kind(k Kind) jobOpt        { return func(_ *cluster, j *Job) { j.Kind = k } }
func minSlots(n int) jobOpt     { return func(_ *cluster, j *Job) { j.MinSlots = n } }
func interactive() jobOpt       { return func(_ *cluster, j *Job) { j.Interactive = true } }
func inPool(name string) jobOpt { return func(c *cluster, j *Job) { j.Pool = c.poolIndex(name) } }
func acct(i int) jobOpt         { return func(_ *cluster, j *Job) { j.Account = i } }
func qos(i int) jobOpt          { return func(_ *cluster, j *Job) { j.QOS = i } }
func nice(n int) jobOpt         { return func(_ *cluster, j *Job) { j.Nice = n } }

// lic makes each task of the job hold n of license l.
func lic(l, n int) jobOpt {
	return func(_ *cluster, j *Job) { j.Licenses = append(j.Licenses, LicenseUse{License: l, Count: n}) }
}

// account adds a fair-share account and returns its index; parent is -1
// at the top.
func (c *cluster) account(name string, parent int, shares, usage float64) int {
	c.s.Accounts = append(c.s.Accounts, Account{Name: name, Parent: parent, Shares: shares, Usage: usage})
	return len(c.s.Accounts) - 1
}

// qosLevel adds a QOS and returns its index.
func (c *cluster) qosLevel(name string, priority int, preempt bool) int {
	c.s.QOS = append(c.s.QOS, QOS{Name: name, Priority: priority, Preempt: preempt})
	return len(c.s.QOS) - 1
}

// license adds a license and returns its index.
func (c *cluster) license(name string, total int) int {
	c.s.Licenses = append(c.s.Licenses, License{Name: name, Total: total})
	return len(c.s.Licenses) - 1
}

// job adds a job and returns its index. Defaults: the last pool, one slot,
// one waiting task, priority 42, weight 1, not preemptible, submitted at 0,
// no limit on running tasks.
func (c *cluster) job(id string, opts ...jobOpt) int {
	c.t.Helper()
	if c.last < 0 {
		c.t.Fatal("fixture: add a pool before jobs")
	}
	c.seq++
	j := Job{ID: id, Pool: c.last, Kind: KindExperiment, Seq: c.seq, Priority: 42, Weight: 1,
		Slots: 1, Waiting: 1, MaxRunning: 1 << 20}
	for _, o := range opts {
		o(c, &j)
	}
	c.s.Jobs = append(c.s.Jobs, j)
	return len(c.s.Jobs) - 1
}

type allocOpt func(*cluster, *Alloc)

func start(t int64) allocOpt { return func(_ *cluster, a *Alloc) { a.Start = t } }

// on puts part of an allocation on a node; repeat it for a gang.
func on(node string, n int) allocOpt {
	return func(c *cluster, a *Alloc) {
		a.Nodes = append(a.Nodes, NodeSlots{Node: c.nodeIndex(node), Slots: int32(n)})
	}
}
func preempting() allocOpt { return func(_ *cluster, a *Alloc) { a.Preempting = true } }
func backfilled() allocOpt { return func(_ *cluster, a *Alloc) { a.Backfilled = true } }

// running adds a running task of job j and returns the allocation index.
func (c *cluster) running(j int, opts ...allocOpt) int {
	c.t.Helper()
	a := Alloc{Job: j}
	for _, o := range opts {
		o(c, &a)
	}
	c.s.Allocs = append(c.s.Allocs, a)
	return len(c.s.Allocs) - 1
}

// fill adds n running tasks of job j, each of the job's slots, on the given
// node, started at times st, st+1, ... (so later ones are newer).
func (c *cluster) fill(j int, node string, n int, st int64) []int {
	c.t.Helper()
	var out []int
	for i := range n {
		out = append(out, c.running(j, start(st+int64(i)), on(node, c.s.Jobs[j].Slots)))
	}
	return out
}

// snapshot returns an independent copy of the snapshot built so far.
func (c *cluster) snapshot() *Snapshot { return cloneSnapshot(&c.s) }

// cloneSnapshot deep-copies a snapshot.
func cloneSnapshot(s *Snapshot) *Snapshot {
	out := &Snapshot{Now: s.Now}
	out.Pools = slices.Clone(s.Pools)
	out.Nodes = slices.Clone(s.Nodes)
	for i := range out.Nodes {
		if out.Nodes[i].Labels != nil {
			out.Nodes[i].Labels = maps.Clone(out.Nodes[i].Labels)
		}
	}
	out.Jobs = slices.Clone(s.Jobs)
	for i := range out.Jobs {
		out.Jobs[i].Licenses = slices.Clone(out.Jobs[i].Licenses)
	}
	out.Projects = slices.Clone(s.Projects)
	out.Accounts = slices.Clone(s.Accounts)
	out.QOS = slices.Clone(s.QOS)
	out.Licenses = slices.Clone(s.Licenses)
	out.Allocs = slices.Clone(s.Allocs)
	for i := range out.Allocs {
		out.Allocs[i].Nodes = slices.Clone(out.Allocs[i].Nodes)
	}
	return out
}

// clonePlan copies a plan out of the Scheduler's memory.
func clonePlan(p *Plan) Plan {
	out := Plan{
		Starts:      slices.Clone(p.Starts),
		Preemptions: slices.Clone(p.Preemptions),
		Pending:     slices.Clone(p.Pending),
		Moves:       slices.Clone(p.Moves),
		Resizes:     slices.Clone(p.Resizes),
	}
	for i := range out.Starts {
		out.Starts[i].Nodes = slices.Clone(out.Starts[i].Nodes)
	}
	for i := range out.Moves {
		out.Moves[i].Nodes = slices.Clone(out.Moves[i].Nodes)
	}
	for i := range out.Resizes {
		out.Resizes[i].Nodes = slices.Clone(out.Resizes[i].Nodes)
	}
	return out
}

// mustSchedule runs a pass with a fresh Scheduler and fails the test on an
// error. The plan is copied, so it outlives later passes.
func mustSchedule(t testing.TB, s *Snapshot) Plan {
	t.Helper()
	p, err := Schedule(s)
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	return clonePlan(p)
}

// applyPlan returns a copy of s after the plan: starts become allocations
// (started now, marked backfilled when the start was a backfill) and take
// one waiting task each; preempted allocations are marked Preempting.
// Moved and resized tasks become two allocations, as the Move and Resize
// documentation asks of callers: the new placement, started now, and what
// the old one does not reuse, Preempting and Moving.
func applyPlan(s *Snapshot, p *Plan) *Snapshot {
	out := cloneSnapshot(s)
	for _, pr := range p.Preemptions {
		out.Allocs[pr.Alloc].Preempting = true
	}
	replace := func(a int, nodes []NodeSlots) {
		old := &out.Allocs[a]
		out.Allocs = append(out.Allocs, Alloc{Job: old.Job, Nodes: slices.Clone(nodes), Start: s.Now,
			Backfilled: old.Backfilled})
		old = &out.Allocs[a]
		var left []NodeSlots
		for _, ns := range old.Nodes {
			if k := ns.Slots - slotsOn(nodes, ns.Node); k > 0 {
				left = append(left, NodeSlots{Node: ns.Node, Slots: k})
			}
		}
		old.Nodes, old.Preempting, old.Moving = left, true, true
	}
	for _, mv := range p.Moves {
		replace(mv.Alloc, mv.Nodes)
	}
	for _, rs := range p.Resizes {
		replace(rs.Alloc, rs.Nodes)
	}
	kept := out.Allocs[:0]
	for _, a := range out.Allocs {
		if len(a.Nodes) > 0 {
			kept = append(kept, a)
		}
	}
	out.Allocs = kept
	for _, st := range p.Starts {
		out.Allocs = append(out.Allocs, Alloc{Job: st.Job, Nodes: slices.Clone(st.Nodes), Start: s.Now, Backfilled: st.Backfill})
		out.Jobs[st.Job].Waiting--
	}
	return out
}

// finishCheckpoints returns a copy of s in which every preempted task has
// checkpointed: its allocation is gone and its job has one more waiting
// task, unless it was the old placement of a moved task, which runs on.
func finishCheckpoints(s *Snapshot) *Snapshot {
	out := cloneSnapshot(s)
	keep := out.Allocs[:0]
	for _, a := range out.Allocs {
		if a.Preempting {
			if !a.Moving {
				out.Jobs[a.Job].Waiting++
			}
			continue
		}
		keep = append(keep, a)
	}
	out.Allocs = keep
	return out
}

// settle runs passes at a fixed time, applying each plan and finishing the
// checkpoints it asked for, until a pass changes nothing. It returns the
// settled snapshot, the last (empty) plan and the number of passes, or fails
// after max passes.
func settle(t testing.TB, s *Snapshot, max int) (*Snapshot, Plan, int) {
	t.Helper()
	for i := 1; i <= max; i++ {
		p := mustSchedule(t, s)
		if quiet(&p) {
			return s, p, i
		}
		s = finishCheckpoints(applyPlan(s, &p))
	}
	t.Fatalf("did not settle after %d passes", max)
	return nil, Plan{}, 0
}

// quiet reports a plan that changes nothing: no start, preemption, move
// or resize.
func quiet(p *Plan) bool {
	return len(p.Starts) == 0 && len(p.Preemptions) == 0 && len(p.Moves) == 0 && len(p.Resizes) == 0
}

// Queries on plans, by job index.

func startsOf(p *Plan, j int) []Start {
	var out []Start
	for _, st := range p.Starts {
		if st.Job == j {
			out = append(out, st)
		}
	}
	return out
}

func pendingOf(p *Plan, j int) (Pending, bool) {
	for _, pe := range p.Pending {
		if pe.Job == j {
			return pe, true
		}
	}
	return Pending{}, false
}

// mustPending returns j's pending entry and checks its reason.
func mustPending(t testing.TB, s *Snapshot, p *Plan, j int, want Reason) Pending {
	t.Helper()
	pe, ok := pendingOf(p, j)
	if !ok {
		t.Fatalf("job %s: no pending entry, want %v\n%s", s.Jobs[j].ID, want, fmtPlan(s, p))
	}
	if pe.Reason != want {
		t.Fatalf("job %s: pending %v (%s), want %v\n%s", s.Jobs[j].ID, pe.Reason, pe.Message(s), want, fmtPlan(s, p))
	}
	return pe
}

func mustNotPending(t testing.TB, s *Snapshot, p *Plan, j int) {
	t.Helper()
	if pe, ok := pendingOf(p, j); ok {
		t.Fatalf("job %s: unexpected pending %v (%s)\n%s", s.Jobs[j].ID, pe.Reason, pe.Message(s), fmtPlan(s, p))
	}
}

// preempted returns the preempted allocation indices, sorted.
func preempted(p *Plan) []int {
	var out []int
	for _, pr := range p.Preemptions {
		out = append(out, pr.Alloc)
	}
	slices.Sort(out)
	return out
}

// placement renders node slots as "name:slots" joined by commas.
func placement(s *Snapshot, ns []NodeSlots) string {
	parts := make([]string, len(ns))
	for i, x := range ns {
		parts[i] = fmt.Sprintf("%s:%d", s.Nodes[x.Node].Name, x.Slots)
	}
	return strings.Join(parts, ",")
}

// startPlacements renders each start of job j.
func startPlacements(s *Snapshot, p *Plan, j int) []string {
	var out []string
	for _, st := range startsOf(p, j) {
		out = append(out, placement(s, st.Nodes))
	}
	return out
}

// fmtPlan renders a plan for failure messages.
func fmtPlan(s *Snapshot, p *Plan) string {
	var b strings.Builder
	for _, st := range p.Starts {
		fmt.Fprintf(&b, "  start %s on %s backfill=%v\n", s.Jobs[st.Job].ID, placement(s, st.Nodes), st.Backfill)
	}
	for _, pr := range p.Preemptions {
		a := &s.Allocs[pr.Alloc]
		fmt.Fprintf(&b, "  preempt alloc %d (%s on %s) for %s\n", pr.Alloc, s.Jobs[a.Job].ID, placement(s, a.Nodes), s.Jobs[pr.For].ID)
	}
	for _, mv := range p.Moves {
		a := &s.Allocs[mv.Alloc]
		fmt.Fprintf(&b, "  move alloc %d (%s on %s) to %s for %s\n", mv.Alloc, s.Jobs[a.Job].ID, placement(s, a.Nodes), placement(s, mv.Nodes), s.Jobs[mv.For].ID)
	}
	for _, rs := range p.Resizes {
		a := &s.Allocs[rs.Alloc]
		fmt.Fprintf(&b, "  resize alloc %d (%s on %s) to %s\n", rs.Alloc, s.Jobs[a.Job].ID, placement(s, a.Nodes), placement(s, rs.Nodes))
	}
	for _, pe := range p.Pending {
		fmt.Fprintf(&b, "  pending %s: %v blocker=%d need=%d free=%d at=%d prio=%v lic=%d:%d/%d\n", s.Jobs[pe.Job].ID, pe.Reason,
			pe.Blocker, pe.Need, pe.Free, pe.At, pe.Priority, pe.License, pe.LicenseNeed, pe.LicenseFree)
	}
	return b.String()
}

// fmtSnapshot renders a snapshot as Go-like text for bug reports.
func fmtSnapshot(s *Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Now: %d\n", s.Now)
	for i, p := range s.Pools {
		fmt.Fprintf(&b, "pool %d: %+v\n", i, p)
	}
	for i, n := range s.Nodes {
		fmt.Fprintf(&b, "node %d: %s pool=%d slots=%d gpu=%q zero=%d\n", i, n.Name, n.Pool, n.Slots, n.GPU, n.ZeroSlotLimit)
	}
	for i, j := range s.Jobs {
		fmt.Fprintf(&b, "job %d: %+v\n", i, j)
	}
	for i, a := range s.Accounts {
		fmt.Fprintf(&b, "account %d: %+v\n", i, a)
	}
	for i, q := range s.QOS {
		fmt.Fprintf(&b, "qos %d: %+v\n", i, q)
	}
	for i, l := range s.Licenses {
		fmt.Fprintf(&b, "license %d: %+v\n", i, l)
	}
	for i, p := range s.Projects {
		fmt.Fprintf(&b, "project %d: %+v\n", i, p)
	}
	for i, a := range s.Allocs {
		fmt.Fprintf(&b, "alloc %d: job=%d nodes=%v start=%d preempting=%v backfilled=%v moving=%v\n", i, a.Job, a.Nodes, a.Start, a.Preempting, a.Backfilled, a.Moving)
	}
	return b.String()
}

// TestFixtures checks the helpers the other tests rely on.
func TestFixtures(t *testing.T) {
	b := newCluster(t).pool("gpu", PolicyPriority, withPreemption()).nodes("gpu", 2, 8, "h100")
	asha := b.job("asha", prio(2), slots(1), waiting(20), maxRunning(20), preemptible())
	a0 := b.running(asha, start(0), on("gpu-1", 1))
	s := b.snapshot()
	if len(s.Nodes) != 2 || s.Nodes[1].Name != "gpu-2" || s.Nodes[1].Slots != 8 || s.Nodes[1].GPU != "h100" {
		t.Fatalf("nodes: %+v", s.Nodes)
	}
	if s.Jobs[asha].Priority != 2 || s.Jobs[asha].Waiting != 20 || !s.Jobs[asha].Preemptible || s.Jobs[asha].Seq != 1 {
		t.Fatalf("job: %+v", s.Jobs[asha])
	}
	if got := s.Allocs[a0].Nodes; len(got) != 1 || got[0] != (NodeSlots{Node: 0, Slots: 1}) {
		t.Fatalf("alloc: %+v", s.Allocs[a0])
	}
	// The snapshot is a copy: editing it leaves the builder alone.
	s.Allocs[a0].Nodes[0].Slots = 5
	if b.s.Allocs[a0].Nodes[0].Slots != 1 {
		t.Fatal("snapshot shares memory with the builder")
	}

	plan := Plan{
		Starts:      []Start{{Job: asha, Nodes: []NodeSlots{{Node: 1, Slots: 1}}, Backfill: true}},
		Preemptions: []Preemption{{Alloc: a0, For: asha}},
	}
	s = b.snapshot()
	after := applyPlan(s, &plan)
	if len(after.Allocs) != 2 || !after.Allocs[a0].Preempting || !after.Allocs[1].Backfilled ||
		after.Allocs[1].Start != s.Now || after.Jobs[asha].Waiting != 19 {
		t.Fatalf("applyPlan: %s", fmtSnapshot(after))
	}
	if s.Allocs[a0].Preempting || s.Jobs[asha].Waiting != 20 {
		t.Fatal("applyPlan modified its input")
	}
	done := finishCheckpoints(after)
	if len(done.Allocs) != 1 || done.Allocs[0].Nodes[0].Node != 1 || done.Jobs[asha].Waiting != 20 {
		t.Fatalf("finishCheckpoints: %s", fmtSnapshot(done))
	}
}
