package master

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// snapView maps the indices of the last snapshot back to the mirror.
// Its jobs are the planner's roster's (roster.go).
type snapView struct {
	allocs []allocRef
	nodes  []*mnode
	pools  map[string]int
	// projects maps project names to Snapshot.Projects indices.
	projects map[string]int
	// launches counts the attempts launched and the placements moves
	// drain (launchorder.go); perm, sortedAllocs and sortedRefs are
	// orderAllocs' scratch.
	launches     int64
	perm         []int
	sortedAllocs []sched.Alloc
	sortedRefs   []allocRef
	// capScratch is capDrained's.
	capScratch []int
}

// allocRef maps a snapshot allocation back to its task: its attempt, or,
// for a task being moved or resized, the placement it restarts on (next).
type allocRef struct {
	t    *mtask
	next bool
}

// buildSnapshot fills pl.snap from the mirror at instant now (its Unix
// seconds are the snapshot's Now: the settling's, loop.go). Pools come
// from the config in its order, nodes that are up (in a configured pool)
// sorted by name, jobs by id (= submission order: the roster's entries,
// brought up to date in place, roster.go) and allocations in launch
// order (launchorder.go).
func (pl *planner) buildSnapshot(now time.Time) {
	s, v := &pl.snap, &pl.view
	s.Now = now.Unix()
	s.Pools = s.Pools[:0]
	v.pools = map[string]int{}
	for i, p := range pl.m.cfg.Pools {
		s.Pools = append(s.Pools, p.Sched())
		v.pools[p.Name] = i
	}
	if pl.m.fair.dirty {
		pl.m.fair.rebuild(pl.m.cfg)
		pl.m.cfgGen++ // job entries hold account indexes
	}
	pl.snapProjects(now)
	// The roster first: which jobs it leaves out decides what their nodes
	// offer (snapNodes, heldOutside).
	pl.syncRoster()
	capacity := pl.snapNodes()
	s.Licenses = pl.m.cfg.SchedLicenses()
	s.QOS = pl.m.cfg.SchedQOS()
	nodeIdx := make(map[string]int32, len(v.nodes))
	for i, n := range v.nodes {
		nodeIdx[n.rec.Name] = int32(i)
	}
	r := &pl.roster
	s.Jobs, s.Allocs = r.Entries(), s.Allocs[:0]
	v.allocs = v.allocs[:0]
	pl.m.fair.open = resizeFloats(pl.m.fair.open, len(pl.m.fair.accounts))
	// A task whose stray still runs does not wait yet (stray.go).
	strayed := pl.m.agents.strays.strayTasks()
	for ji, ri := range r.List() {
		j := r.jobs[ri]
		waiting := j.count.Queued() - strayed[j]
		if j.rec.State.Terminal() {
			waiting = 0
		}
		r.setWaiting(ji, waiting)
		if j.active() == 0 {
			continue
		}
		for _, t := range j.tasks {
			if t.att != nil {
				pl.snapTask(ji, t, nodeIdx, now)
			}
		}
	}
	pl.orderAllocs()
	pl.capDrained()
	pl.m.fair.fill(pl.m.cfg, s.Now, capacity)
	s.Accounts = pl.m.fair.accounts
}

// snapTask adds the allocations of a task that holds an attempt, as
// lifecycle.Hold makes them: one for the attempt, or, for a task being
// moved or resized, one running for its new placement and one preempting
// and moving for what of the old placement the new one does not reuse
// (Hold.Replaced). A preempting one is free by the stop its attempt was
// asked (Hold.FreeBy: its Asked and Grace, sendAll), for the forecast. Parts
// on nodes not in the snapshot (lost) are left out, and so is an
// allocation left with no part.
func (pl *planner) snapTask(ji int, t *mtask, nodeIdx map[string]int32, now time.Time) {
	s, v := &pl.snap, &pl.view
	j := &s.Jobs[ji]
	if acc := j.Account; acc >= 0 && acc < len(pl.m.fair.open) && s.Pools[j.Pool].Policy == sched.PolicyMultifactor {
		gpus := 0
		for _, p := range t.att.parts {
			gpus += len(p.gpus)
		}
		pl.m.fair.open[acc] += pl.m.fair.openUsage(gpus, t.att.usedTo, now)
	}
	// A move or resize continues the attempt, as the simulator counts it
	// (lifecycle.Replace): the attempt keeps its first start.
	every := t.job.spec.checkpointEvery
	h := t.att.Hold(nil, t.rec.State == store.TaskPreempting || t.rec.State == store.TaskKilling, false)
	if !t.Replacement.Replacing() {
		// The common case, thousands a pass: the allocation is filled in
		// place, before its nodes (the checkpoint's division overlaps
		// their lookups), and dropped when none is in the snapshot;
		// making it apart and copying it in cost a tenth more
		// (BenchmarkSnapTasks).
		s.Allocs = append(s.Allocs, sched.Alloc{})
		a := &s.Allocs[len(s.Allocs)-1]
		h.Fill(a, ji, s.Now, every)
		if a.Nodes = snapNodesOf(nil, t.att.parts, nodeIdx); len(a.Nodes) == 0 {
			s.Allocs = s.Allocs[:len(s.Allocs)-1]
			return
		}
		v.allocs = append(v.allocs, allocRef{t: t})
		return
	}
	// The new placement runs from the move on; only what it does not keep
	// of the old drains (by the move's or resize's kind: placeReserved
	// keeps a resize's own GPUs, up to its new slots on each node).
	h.Nodes = snapNodesOf(nil, t.att.parts, nodeIdx)
	placed, drained := t.Replacement.Split(&h, snapNodesOf(nil, t.next, nodeIdx), nil)
	if len(placed.Nodes) > 0 {
		s.Allocs = append(s.Allocs, placed.Alloc(ji, s.Now, every))
		v.allocs = append(v.allocs, allocRef{t: t, next: true})
	}
	if len(drained.Nodes) > 0 {
		s.Allocs = append(s.Allocs, drained.Alloc(ji, s.Now, every))
		v.allocs = append(v.allocs, allocRef{t: t})
	}
}

// snapNodesOf appends to dst the snapshot's nodes of parts, with the slots
// each holds there, leaving out parts on nodes not in the snapshot (lost).
func snapNodesOf(dst []sched.NodeSlots, parts []*mpart, nodeIdx map[string]int32) []sched.NodeSlots {
	for _, p := range parts {
		if n, ok := nodeIdx[p.node]; ok {
			dst = append(dst, sched.NodeSlots{Node: n, Slots: int32(len(p.gpus))})
		}
	}
	return dst
}

func resizeFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	x = x[:n]
	clear(x)
	return x
}

func (pl *planner) snapProjects(now time.Time) {
	s, v := &pl.snap, &pl.view
	s.Projects = s.Projects[:0]
	v.projects = map[string]int{}
	for i, p := range pl.m.cfg.Projects {
		v.projects[p.Name] = i
	}
	for _, p := range pl.m.cfg.Projects {
		parent := -1
		if i, ok := v.projects[p.Parent]; ok && p.Parent != "" {
			parent = i
		}
		sp := sched.Project{Name: p.Name, Parent: parent, Quota: p.Quota,
			OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit, PreemptBudget: p.PreemptBudget}
		if p.PreemptBudget > 0 {
			sp.Preempted = pl.preemptedCount(p.Name, now)
		}
		s.Projects = append(s.Projects, sp)
	}
}

// snapNodes adds the nodes that are up, each made from its facts by
// the simulator's rules (nodeFacts, lifecycle.NodeFacts.Node: its GPUs
// less those held outside the snapshot, at least the GPUs its attempts
// in the snapshot hold, a draining node what they hold), and
// returns the slots of the nodes in multifactor pools, against which
// fair-share usage is measured (lifecycle.FairShareSlots): lost and
// drained ones too, as in the simulator, so that a loss or a drain does
// not change what the accounts' usage is worth. A deleted node is no
// node of the master's, so it leaves the capacity, as the rule says.
// Call it after syncRoster, which says which jobs are left out.
func (pl *planner) snapNodes() (multifactorSlots int) {
	s, v := &pl.snap, &pl.view
	out := pl.heldOutside()
	s.Nodes = s.Nodes[:0]
	v.nodes = v.nodes[:0]
	names := make([]string, 0, len(pl.m.nodes))
	for name, n := range pl.m.nodes {
		i, ok := v.pools[n.pool]
		if !ok {
			continue
		}
		multifactorSlots += lifecycle.FairShareSlots(pl.m.cfg.Pools[i].Policy, len(n.rec.GPUs), false)
		if n.up() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		n := pl.m.nodes[name]
		f := nodeFacts(pl.m.cfg, name, n, v.pools[n.pool])
		held, tasks := out.on(n)
		f.Held, f.Outside, f.Drained = len(n.used)-tasks, held, n.draining() // capDrained makes a draining one exact
		s.Nodes = append(s.Nodes, f.Node())
		v.nodes = append(v.nodes, n)
	}
	return multifactorSlots
}

// nodeFacts are node n's facts, named name, in the configuration's pool
// i: its own GPUs and their type, its agent's labels with its node
// rule's on top, its pool's zero-slot limit. What its attempts hold and
// whether it drains are the snapshot's to add; the feasibility check
// judges a node by its own GPUs.
func nodeFacts(cfg *config.Config, name string, n *mnode, pool int) lifecycle.NodeFacts {
	f := lifecycle.NodeFacts{Name: name, Pool: pool, Slots: len(n.rec.GPUs), Labels: n.rec.Labels,
		Rule: nodeRule(cfg, n), ZeroSlotLimit: cfg.Pools[pool].ZeroSlotLimit}
	if len(n.rec.GPUs) > 0 {
		f.GPU = n.rec.GPUs[0].Type
	}
	return f
}

// nodeLabels are the agent's labels with the config's on top
// (lifecycle.NodeLabels).
func nodeLabels(cfg *config.Config, n *mnode) map[string]string {
	return lifecycle.NodeLabels(n.rec.Labels, nodeRule(cfg, n))
}

// nodeRule is the labels of the config's node rule for n, nil for none:
// the last rule of its name.
func nodeRule(cfg *config.Config, n *mnode) map[string]string { return configRule(cfg, n.rec.Name) }

// configRule is the labels of the config's node rule for node name, nil
// for none: the last rule of its name.
func configRule(cfg *config.Config, name string) map[string]string {
	var extra map[string]string
	for _, r := range cfg.Nodes {
		if r.Name == name {
			extra = r.Labels
		}
	}
	return extra
}

// compactOrder drops jobs that left the mirror from m.order.
func (pl *planner) compactOrder() {
	if pl.m.goneJobs > 0 {
		pl.m.order = slices.DeleteFunc(pl.m.order, func(j *mjob) bool { return j.gone })
		pl.m.goneJobs = 0
	}
}

// snapJob is a job's entry in the snapshot, but for Waiting and Reserved,
// which buildSnapshot fills in every pass: its facts, which the
// simulator's entries are made from too (lifecycle.JobFacts). A job whose
// pool is not configured, or that runs in a quota pool or one that
// weighs fair share under an unknown project, is left out and given a
// pending reason of the master's own; elsewhere such a job has no
// project and no account (-1), as in the simulator.
func (pl *planner) snapJob(j *mjob) (sched.Job, bool) {
	if stillRefused(j, pl.m.cfgGen) {
		return sched.Job{}, false
	}
	pool, ok := pl.view.pools[j.rec.Pool]
	if !ok {
		j.pending = &pendingInfo{code: "unknown_pool", msg: "pool " + strconv.Quote(j.rec.Pool) + " is not configured"}
		return sched.Job{}, false
	}
	pc := &pl.m.cfg.Pools[pool]
	policy := pc.Policy
	fairShare := policy == sched.PolicyMultifactor && pc.Multifactor.FairShare > 0
	proj := -1
	if i, ok := pl.view.projects[j.rec.Project]; ok {
		proj = i
	} else if policy == sched.PolicyQuota || fairShare {
		uses := "quotas"
		if fairShare {
			uses = "fair share"
		}
		j.pending = &pendingInfo{code: "unknown_project",
			msg: "project " + strconv.Quote(j.rec.Project) + " is not configured, and the pool uses " + uses}
		return sched.Job{}, false
	}
	f := lifecycle.JobFacts{
		ID:            j.idString(),
		Pool:          pool,
		Project:       proj,
		Account:       pl.m.fair.account(j.rec.Project, j.rec.User),
		Kind:          sched.Kind(j.rec.Kind),
		Submit:        j.rec.SubmittedAt.Unix(),
		Seq:           j.rec.ID,
		Priority:      j.rec.Priority,
		Weight:        j.rec.Weight,
		Preemptible:   j.rec.Preemptible,
		Slots:         j.rec.Slots,
		Tasks:         len(j.tasks),
		MaxConcurrent: j.rec.MaxConcurrent,
		MaxSlots:      j.rec.MaxSlots,
		TimeLimit:     int64(j.rec.TimeLimit.Seconds()),
		Low:           j.rec.PriorityClass == string(jobfile.ClassLow),
		QuotaPool:     policy == sched.PolicyQuota,
		Interactive:   lifecycle.InteractiveKind(sched.Kind(j.rec.Kind)),
		OnHold:        j.rec.Held(),
	}
	if f.LeftOut() {
		j.pending = &pendingInfo{code: lifecycle.ReasonHeld, msg: heldPending(j.rec).Message}
		return sched.Job{}, false
	}
	if p := schedHints(pl.m.cfg, j, &f); p != nil {
		j.pending = p
		return sched.Job{}, false
	}
	return f.Entry(), true
}

// queueFacts are what a pool's policy ranks its waiting jobs by.
type queueFacts struct {
	mf        float64 // the last pass's multifactor priority, 0 when not pending
	priority  int
	submitted time.Time
	id        int64
	// held, demand and weight rank a fair-share pool's jobs as sched's
	// share queue does (held/(demand×weight), lowest first): the slots
	// the job holds, those it wants at once, its weight (0 counts as 1).
	held, demand int
	weight       float64
}

// shareBelow compares two jobs' held/(demand×weight) by
// cross-multiplying, as sched's fsQueue does; a job that wants nothing
// ranks as one that holds nothing.
func shareBelow(a, b queueFacts) int {
	w := func(f queueFacts) float64 {
		if f.weight > 0 {
			return f.weight
		}
		return 1
	}
	return cmp.Compare(float64(a.held)*float64(max(b.demand, 1))*w(b), float64(b.held)*float64(max(a.demand, 1))*w(a))
}

// queueOrder orders jobs by a key that follows a pool's policy: by
// priority first under the priority and quota policies, by the last
// pass's multifactor priority (higher first) under multifactor, then by
// submission; under fair share, the job furthest below its share of what
// it wants first (shareBelow), then by submission. The core's own order
// is the last pass's turns (sched.Pending.Turn), which
// readView.positions reads for the jobs that pass saw; the key ranks
// the rest: jobs it did not see, the rows of allot jobs that do not wait,
// and a dry run's job (placeIn). Quota rounds are not a key: there it is
// priority, then submission.
func queueOrder(policy sched.Policy) func(a, b queueFacts) int {
	byPriority := policy == sched.PolicyPriority || policy == sched.PolicyQuota
	return func(a, b queueFacts) int {
		if policy == sched.PolicyMultifactor {
			if c := cmp.Compare(b.mf, a.mf); c != 0 {
				return c
			}
		}
		if policy == sched.PolicyFairShare {
			if c := shareBelow(a, b); c != 0 {
				return c
			}
		}
		if byPriority {
			if c := cmp.Compare(a.priority, b.priority); c != 0 {
				return c
			}
		}
		if c := a.submitted.Compare(b.submitted); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
}

// capDrained shrinks every draining node of the snapshot to what its
// allocations hold (lifecycle.CapDrained, which the simulator's Cluster
// calls too). Call it once the snapshot's allocations are in. Callers
// hold mu.
func (pl *planner) capDrained() {
	v := &pl.view
	v.capScratch, _ = lifecycle.CapDrained(&pl.snap, func(n int32) bool { return v.nodes[n].draining() },
		func(n int32) int { return len(v.nodes[n].rec.GPUs) }, v.capScratch)
}
