package master

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// snapView maps the indices of the last snapshot back to the mirror.
type snapView struct {
	jobs   []*mjob
	allocs []*mtask
	nodes  []*mnode
	pools  map[string]int
	// projects maps project names to Snapshot.Projects indices.
	projects map[string]int
}

// buildSnapshot fills m.snap from the mirror. Pools come from the config in
// its order, nodes that are up (in a configured pool) sorted by name, jobs
// by id (= submission order) and allocations by (job, task).
func (m *Master) buildSnapshot() {
	s, v := &m.snap, &m.view
	s.Now = m.now().Unix()
	s.Pools = s.Pools[:0]
	v.pools = map[string]int{}
	for i, p := range m.cfg.Pools {
		s.Pools = append(s.Pools, sched.Pool{Name: p.Name, Policy: p.Policy, Preemption: p.Preemption,
			Backfill: p.Backfill, Reservations: p.Reservations, Placement: p.Placement})
		v.pools[p.Name] = i
	}
	m.snapProjects()
	m.snapNodes()
	nodeIdx := make(map[string]int32, len(v.nodes))
	for i, n := range v.nodes {
		nodeIdx[n.rec.Name] = int32(i)
	}
	m.compactOrder()
	s.Jobs, s.Allocs = s.Jobs[:0], s.Allocs[:0]
	v.jobs, v.allocs = v.jobs[:0], v.allocs[:0]
	for _, j := range m.order {
		if j.entryGen != m.cfgGen {
			j.entry, j.entryOK = m.snapJob(j)
			j.entryGen = m.cfgGen
		}
		if !j.entryOK {
			continue
		}
		ji := len(s.Jobs)
		j.entry.Waiting = j.count.get(store.TaskQueued)
		if j.rec.State.Terminal() {
			j.entry.Waiting = 0
		}
		j.entry.Reserved = j.reserved
		s.Jobs = append(s.Jobs, j.entry)
		v.jobs = append(v.jobs, j)
		if j.active() == 0 {
			continue
		}
		for _, t := range j.tasks {
			if t.att == nil {
				continue
			}
			a := sched.Alloc{Job: ji, Start: t.att.started.Unix(), Backfilled: t.att.backfilled,
				Preempting: t.rec.State == store.TaskPreempting || t.rec.State == store.TaskKilling}
			for _, p := range t.att.parts {
				if n, ok := nodeIdx[p.node]; ok {
					a.Nodes = append(a.Nodes, sched.NodeSlots{Node: n, Slots: int32(len(p.gpus))})
				}
			}
			if len(a.Nodes) == 0 {
				continue
			}
			s.Allocs = append(s.Allocs, a)
			v.allocs = append(v.allocs, t)
		}
	}
}

func (m *Master) snapProjects() {
	s, v := &m.snap, &m.view
	s.Projects = s.Projects[:0]
	v.projects = map[string]int{}
	for i, p := range m.cfg.Projects {
		v.projects[p.Name] = i
	}
	for _, p := range m.cfg.Projects {
		parent := -1
		if i, ok := v.projects[p.Parent]; ok && p.Parent != "" {
			parent = i
		}
		s.Projects = append(s.Projects, sched.Project{Name: p.Name, Parent: parent, Quota: p.Quota,
			OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit})
	}
}

func (m *Master) snapNodes() {
	s, v := &m.snap, &m.view
	s.Nodes = s.Nodes[:0]
	v.nodes = v.nodes[:0]
	names := make([]string, 0, len(m.nodes))
	for name, n := range m.nodes {
		if _, ok := v.pools[n.pool]; ok && n.up() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		n := m.nodes[name]
		pool := m.cfg.Pools[v.pools[n.pool]]
		// A node that re-registered with fewer GPUs than its running tasks
		// hold must not look over-committed to the core.
		sn := sched.Node{Name: name, Pool: v.pools[n.pool], Slots: max(len(n.rec.GPUs), len(n.used)),
			Labels: m.nodeLabels(n), ZeroSlotLimit: zeroSlotLimit(pool)}
		if len(n.rec.GPUs) > 0 {
			sn.GPU = n.rec.GPUs[0].Type
		}
		s.Nodes = append(s.Nodes, sn)
		v.nodes = append(v.nodes, n)
	}
}

func zeroSlotLimit(p config.Pool) int {
	if p.ZeroSlotLimit > 0 {
		return p.ZeroSlotLimit
	}
	return defaultZeroSlotLimit
}

// nodeLabels are the agent's labels with the config's on top.
func (m *Master) nodeLabels(n *mnode) map[string]string {
	var extra map[string]string
	for _, r := range m.cfg.Nodes {
		if r.Name == n.rec.Name {
			extra = r.Labels
		}
	}
	if len(extra) == 0 {
		return n.rec.Labels
	}
	out := make(map[string]string, len(n.rec.Labels)+len(extra))
	for k, v := range n.rec.Labels {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// compactOrder drops jobs that left the mirror from m.order and sorts it
// when a submission arrived out of order.
func (m *Master) compactOrder() {
	m.order = slices.DeleteFunc(m.order, func(j *mjob) bool { return j.gone })
	if m.unsorted {
		slices.SortFunc(m.order, func(a, b *mjob) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
		m.unsorted = false
	}
}

// snapJob is a job's entry in the snapshot, but for Waiting and Reserved,
// which buildSnapshot fills in every pass. A job whose pool is not
// configured, or that runs in a quota pool under an unknown project, is
// left out and given a pending reason of the master's own.
func (m *Master) snapJob(j *mjob) (sched.Job, bool) {
	pool, ok := m.view.pools[j.rec.Pool]
	if !ok {
		j.pending = &pendingInfo{code: "unknown_pool", msg: "pool " + strconv.Quote(j.rec.Pool) + " is not configured"}
		return sched.Job{}, false
	}
	policy := m.cfg.Pools[pool].Policy
	proj := -1
	if i, ok := m.view.projects[j.rec.Project]; ok {
		proj = i
	} else if policy == sched.PolicyQuota {
		j.pending = &pendingInfo{code: "unknown_project",
			msg: "project " + strconv.Quote(j.rec.Project) + " is not configured, and the pool uses quotas"}
		return sched.Job{}, false
	}
	maxRun := len(j.tasks)
	if j.rec.MaxConcurrent > 0 {
		maxRun = min(maxRun, j.rec.MaxConcurrent)
	}
	if j.rec.MaxSlots > 0 && j.rec.Slots > 0 {
		maxRun = min(maxRun, max(j.rec.MaxSlots/j.rec.Slots, 1))
	}
	kind := sched.Kind(j.rec.Kind)
	return sched.Job{
		ID:          j.idString(),
		Pool:        pool,
		Kind:        kind,
		Submit:      j.rec.SubmittedAt.Unix(),
		Seq:         j.rec.ID,
		Priority:    j.rec.Priority,
		Weight:      j.rec.Weight,
		Preemptible: j.rec.Preemptible,
		Slots:       j.rec.Slots,
		MaxRunning:  max(maxRun, 1),
		TimeLimit:   int64(j.rec.TimeLimit.Seconds()),
		Project:     max(proj, 0),
		Interactive: kind == sched.KindNotebook || kind == sched.KindShell || kind == sched.KindTensorBoard,
		Borrow:      policy == sched.PolicyQuota && j.rec.PriorityClass == string(jobfile.ClassLow),
	}, true
}

// queueKey orders a pool's waiting jobs as the pool's policy ranks them,
// for Job.Position: by priority first under the priority and quota
// policies, then by submission.
func queueKey(policy sched.Policy) func(a, b *mjob) int {
	byPriority := policy == sched.PolicyPriority || policy == sched.PolicyQuota
	return func(a, b *mjob) int {
		if byPriority {
			if c := cmp.Compare(a.rec.Priority, b.rec.Priority); c != 0 {
				return c
			}
		}
		if c := a.rec.SubmittedAt.Compare(b.rec.SubmittedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.rec.ID, b.rec.ID)
	}
}
