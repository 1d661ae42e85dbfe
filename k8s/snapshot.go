package k8s

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// Pass is one pass's snapshot and what its jobs stand for in Kubernetes.
type Pass struct {
	Snap sched.Snapshot
	// Jobs runs parallel to Snap.Jobs.
	Jobs []JobPods
	// Waits are pods that wait for reasons found before the core runs
	// (a malformed gang, a pod larger than any node).
	Waits []Wait
	// AllocPods runs parallel to Snap.Allocs: the pod of each running
	// task, so that preemptions name the pods to evict.
	AllocPods []*v1.Pod
	// Classes maps the node classes in Snap's GPU fields to their nodes
	// (classes.go).
	Classes map[string][]string
}

// InFlight is what the scheduler asked of the API server that the
// informers may not show yet. Nil maps are empty.
type InFlight struct {
	// Bound maps pods whose binding was posted to their nodes.
	Bound map[types.UID]string
	// Evicted holds pods whose eviction was posted.
	Evicted map[types.UID]bool
}

// JobPods is the Kubernetes side of one job.
type JobPods struct {
	// Pending are the job's unbound pods, in the order starts go to them.
	Pending []*v1.Pod
	// Bound counts the job's pods already on nodes; BoundPods are they.
	Bound     int
	BoundPods []*v1.Pod
	// Min is how many of the job's pods must be bound before any is:
	// 1 for a single pod, min-available for a gang.
	Min int
	// Gang is true for a pod group.
	Gang bool
	// NoPreempt is set for pods with preemptionPolicy: Never: no pod is
	// evicted for them.
	NoPreempt bool
}

// Wait is a pod that stays unbound, and why.
type Wait struct {
	Pod     *v1.Pod
	Message string
}

// group is the pods of one job before it becomes one.
type group struct {
	key     string
	gang    bool
	pending []*v1.Pod
	bound   []*v1.Pod
}

type builder struct {
	cfg      *Config
	fl       InFlight
	projects projectIndex
	groups   map[string]int
	pass     *Pass
	pools    map[string]int
	nodes    map[string]int
	kn       []*v1.Node // parallel to pass.Snap.Nodes
	// facts are what each node's snapshot entry is made from, parallel
	// to pass.Snap.Nodes: what its pods hold goes in once they are.
	facts []lifecycle.NodeFacts
	// elig holds, by job, the nodes its pods may use (constraints.go).
	elig map[int][]bool
	// allowedBy caches the nodes pods of alike constraints may use.
	allowedBy map[string]allowance
}

// Cluster is the objects the informers show.
type Cluster struct {
	Nodes []*v1.Node
	Pods  []*v1.Pod
	// PodGroups maps the namespace/name of each PodGroup object to its
	// minMember; nil when the PodGroup resource is not served.
	PodGroups map[string]int
}

// Build turns the cluster as the informers see it into a snapshot. fl
// holds bindings and evictions made but not yet seen, so that bound GPUs
// count as used and evicted pods as draining; now is the snapshot's clock.
func Build(cfg *Config, c Cluster, fl InFlight, now time.Time) *Pass {
	b := &builder{cfg: cfg, fl: fl, groups: c.PodGroups, pass: &Pass{}, pools: map[string]int{}, nodes: map[string]int{},
		elig: map[int][]bool{}, allowedBy: map[string]allowance{}}
	b.pass.Snap.Now = now.Unix()
	b.addNodes(sortedNodes(c.Nodes))
	b.addProjects()
	groups := b.sortPods(sortPods(c.Pods))
	for _, g := range groups {
		b.addGroup(g)
	}
	b.floorHeld()
	b.classify()
	b.weigh()
	return b.pass
}

func (b *builder) addNodes(nodes []*v1.Node) {
	names := []string{DefaultPool}
	for _, n := range nodes {
		names = append(names, poolOf(b.cfg, n.Labels))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for i, name := range names {
		p := b.cfg.Pool
		p.Name = name
		b.pass.Snap.Pools = append(b.pass.Snap.Pools, p)
		b.pools[name] = i
	}
	for _, n := range nodes {
		f := lifecycle.NodeFacts{Name: n.Name, Pool: b.pools[poolOf(b.cfg, n.Labels)], Slots: gpus(n),
			GPU: n.Labels[b.cfg.GPULabel], Labels: n.Labels, ZeroSlotLimit: podLimit(n)}
		b.nodes[n.Name] = len(b.pass.Snap.Nodes)
		b.pass.Snap.Nodes = append(b.pass.Snap.Nodes, f.Node())
		b.facts = append(b.facts, f)
		b.kn = append(b.kn, n)
	}
}

// floorHeld remakes the nodes whose bound pods hold more GPUs than they
// have allocatable (a device plugin restarting, a GPU gone unhealthy)
// with what the pods hold (lifecycle.NodeSlots), so that such a node is
// full rather than over-committed, which the core refuses for the whole
// pass. Its free GPUs, allocatable less those held, are none either way,
// and only free ones are started on. Call it once the allocations are in.
func (b *builder) floorHeld() {
	s := &b.pass.Snap
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			b.facts[ns.Node].Held += int(ns.Slots)
		}
	}
	for i := range b.facts {
		if b.facts[i].Held > b.facts[i].Slots {
			s.Nodes[i] = b.facts[i].Node()
		}
	}
}

// sortPods groups Allot's unfinished pods into jobs, in age order of each
// job's oldest pod, and turns every other bound pod into an allocation
// that the core must leave alone. Bound pods on their way out (evicted,
// deleted) are draining allocations of their own: their GPUs are not free
// until the pods are gone, and they are never victims again.
func (b *builder) sortPods(pods []*v1.Pod) []*group {
	var groups []*group
	byKey := map[string]*group{}
	for _, p := range pods {
		if finished(p) {
			continue
		}
		node := boundNode(p, b.fl.Bound)
		if p.Spec.SchedulerName != b.cfg.SchedulerName || (node != "" && draining(p, b.fl.Evicted)) {
			if node != "" {
				b.hold(p, node, draining(p, b.fl.Evicted))
			}
			continue
		}
		if node == "" && p.DeletionTimestamp != nil {
			continue
		}
		key, gang := jobKey(p), gangKey(p) != ""
		g := byKey[key]
		if g == nil {
			g = &group{key: key, gang: gang}
			byKey[key] = g
			groups = append(groups, g)
		}
		if node != "" {
			g.bound = append(g.bound, p)
		} else {
			g.pending = append(g.pending, p)
		}
	}
	return groups
}

// hold adds a bound pod that is not part of any Allot job as a running,
// non-preemptible allocation of a job of its own, or a draining
// (Preempting) one when the pod is leaving.
func (b *builder) hold(p *v1.Pod, node string, leaving bool) {
	n, ok := b.nodes[node]
	if !ok {
		return // a node left out of scheduling; its usage does not matter
	}
	s := &b.pass.Snap
	j := len(s.Jobs)
	s.Jobs = append(s.Jobs, sched.Job{ID: "bound:" + podKey(p), Pool: s.Nodes[n].Pool, Kind: sched.KindCommand,
		Submit: p.CreationTimestamp.Unix(), Seq: int64(j), Weight: 1, Slots: podGPUs(p), MaxRunning: 1,
		Project: b.projects.other})
	b.pass.Jobs = append(b.pass.Jobs, JobPods{})
	b.alloc(j, n, podGPUs(p), p)
	s.Allocs[len(s.Allocs)-1].Preempting = leaving
}

func (b *builder) alloc(job, node, slots int, p *v1.Pod) {
	start := p.CreationTimestamp.Unix()
	if p.Status.StartTime != nil {
		start = p.Status.StartTime.Unix()
	}
	b.pass.Snap.Allocs = append(b.pass.Snap.Allocs, sched.Alloc{
		Job: job, Nodes: []sched.NodeSlots{{Node: int32(node), Slots: int32(slots)}}, Start: start})
	b.pass.AllocPods = append(b.pass.AllocPods, p)
}

// addGroup makes a job of the group, or explains why its pods wait
// without asking the core. Without preemption no job is preemptible, so
// that the core's consolidation, which runs under every policy, does not
// evict pods to move them either.
func (b *builder) addGroup(g *group) {
	first := append(slices.Clone(g.pending), g.bound...)[0]
	slots, min, pool, err := b.shape(g, first)
	var ok []bool
	if err == nil {
		ok, err = b.eligible(append(slices.Clone(g.pending), g.bound...), pool, slots)
	}
	project := 0
	if err == nil {
		project, err = b.projects.projectOf(first)
	}
	if err != nil {
		for _, p := range g.bound {
			b.hold(p, boundNode(p, b.fl.Bound), false)
		}
		for _, p := range g.pending {
			b.pass.Waits = append(b.pass.Waits, Wait{Pod: p, Message: err.Error()})
		}
		return
	}
	s := &b.pass.Snap
	j := len(s.Jobs)
	s.Jobs = append(s.Jobs, sched.Job{ID: g.key, Pool: pool, Kind: sched.KindCommand,
		Submit: first.CreationTimestamp.Unix(), Seq: int64(j), Priority: priority(first), Weight: 1,
		Preemptible: b.cfg.Pool.Preemption && preemptible(first), Project: project, Slots: slots, Waiting: len(g.pending),
		MaxRunning: len(g.pending) + len(g.bound)})
	b.elig[j] = ok
	b.pass.Jobs = append(b.pass.Jobs, JobPods{Pending: g.pending, Bound: len(g.bound), BoundPods: g.bound,
		Min: min, Gang: g.gang, NoPreempt: neverPreempts(first)})
	for _, p := range g.bound {
		if n, ok := b.nodes[boundNode(p, b.fl.Bound)]; ok {
			b.alloc(j, n, slots, p)
		}
	}
}

// shape checks that the group can be one job and returns its slots per
// pod, the pods that must bind together, and its pool.
func (b *builder) shape(g *group, first *v1.Pod) (slots, min, pool int, err error) {
	slots = podGPUs(first)
	for _, p := range append(slices.Clone(g.pending), g.bound...) {
		if podGPUs(p) != slots {
			return 0, 0, 0, fmt.Errorf("gang %s: its pods request different numbers of %s (%d and %d); Allot needs one size per gang",
				g.key, ResourceGPU, slots, podGPUs(p))
		}
	}
	min = 1
	if g.gang {
		total := len(g.pending) + len(g.bound)
		if min, err = minAvailable(first, total, b.groups); err != nil {
			return 0, 0, 0, fmt.Errorf("gang %s: %w", g.key, err)
		}
		if total < min {
			return 0, 0, 0, fmt.Errorf("gang %s has %d of the %d pods it needs (min-available); waiting for the rest to be created", g.key, total, min)
		}
	}
	name := poolOf(b.cfg, first.Spec.NodeSelector)
	pool, ok := b.pools[name]
	if !ok {
		return 0, 0, 0, fmt.Errorf("no usable node is in pool %q", name)
	}
	return slots, min, pool, nil
}
