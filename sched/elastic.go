package sched

import (
	"fmt"
	"slices"
)

// Elastic jobs (Job.MinSlots > 0) trade size for an earlier start, as in
// Run:ai's elasticity.
//
// Shrinking: a task that cannot be placed at its job's current size, after
// consolidation and, where the policy preempts, after preemption, is tried
// again at half that size: Slots, Slots/2, Slots/4, ... (integer halving)
// while the size stays at or above MinSlots; when the halving skips
// MinSlots (Slots 8, MinSlots 3: 8, 4, then 3) MinSlots itself is tried
// last. The first size that fits starts, and the Start's nodes carry the
// slots the task actually holds. A job keeps the size it shrank to for the
// rest of the pass: a size that failed will not fit a later task either.
// A job whose every size failed is pending with the usual reason, computed
// at MinSlots (its Need is MinSlots).
//
// Expanding: slots are spare in a pool when, after the pool's pass, no
// slot job of the pool is left waiting for slots, that is every pending
// job waits for a reason more slots would not cure (see
// blocksExpansion). Then each running task of an elastic job holding fewer
// than Job.Slots slots, oldest allocation first, doubles (capped at
// Job.Slots) if the doubled task fits on free slots, counting its own
// slots as available: it grows in place when its node has the room, or
// else takes the best placement for the new size. Each task doubles at
// most once per pass. A resize restarts the task from a checkpoint, so
// tasks that are draining, moved or preempted in this plan, interactive, or
// younger than the pool's minimum run time do not grow; under quota the
// project's limit (and, for non-preemptible work, its quota) still holds.

// Resize grows a running task of an elastic job to a new placement. The
// task checkpoints and restarts on Nodes (its new, complete placement);
// the slots of Nodes it does not hold yet are claimed from this plan on.
// Until its checkpoint lands the caller reports it as two allocations: the
// new placement, running, and whatever of the old placement Nodes does not
// reuse (per node, old minus new slots), as Preempting and Moving.
type Resize struct {
	Alloc int
	Nodes []NodeSlots
}

// elasticPass is the per-pass scratch of elastic jobs.
type elasticPass struct {
	// size is each elastic job's current task size in this pass; 0 means
	// Job.Slots.
	size []int32
	grow []int32
}

func (e *elasticPass) reset(s *Snapshot) {
	e.size = resize(e.size, len(s.Jobs))
}

func validateJobElastic(j *Job) error {
	switch {
	case j.MinSlots < 0:
		return fmt.Errorf("job %q: negative min slots %d", j.ID, j.MinSlots)
	case j.MinSlots > 0 && j.Slots == 0:
		return fmt.Errorf("job %q: min slots %d on a zero-slot job; only slot jobs can be elastic", j.ID, j.MinSlots)
	case j.MinSlots > j.Slots:
		return fmt.Errorf("job %q: min slots %d above its slots %d", j.ID, j.MinSlots, j.Slots)
	}
	return nil
}

// validateMoving checks that a moved task's old placement drains.
func validateMoving(s *Snapshot) error {
	for i := range s.Allocs {
		if a := &s.Allocs[i]; a.Moving && !a.Preempting {
			return fmt.Errorf("allocation %d: moving but not preempting; a moved task's old placement drains", i)
		}
	}
	return nil
}

// size is the slots the next task of j asks for in this pass.
func (p *pass) size(j int32) int32 {
	job := &p.s.Jobs[j]
	if job.MinSlots > 0 {
		if v := p.sc.elastic.size[j]; v > 0 {
			return v
		}
	}
	return int32(job.Slots)
}

// minSize is the smallest task j can run: MinSlots for an elastic job.
func (p *pass) minSize(j int32) int32 {
	job := &p.s.Jobs[j]
	if job.MinSlots > 0 {
		return int32(job.MinSlots)
	}
	return int32(job.Slots)
}

// shrink halves j's task size for the next try and reports whether there
// is a smaller size to try.
func (p *pass) shrink(j int32) bool {
	job := &p.s.Jobs[j]
	if job.MinSlots == 0 {
		return false
	}
	cur := p.size(j)
	if cur <= int32(job.MinSlots) {
		return false
	}
	p.sc.elastic.size[j] = max(cur/2, int32(job.MinSlots))
	return true
}

// blocksExpansion reports whether a job pending for this reason wants slots
// that an expansion would take. Only reasons that more slots cannot cure
// leave slots spare; any other reason, including ones added later, blocks.
func blocksExpansion(r Reason) bool {
	switch r {
	case ReasonNoNodes, ReasonMaxConcurrent, ReasonSerial, ReasonOverQuota, ReasonLimit, ReasonZeroSlotFull:
		return false
	}
	return true
}

// expand doubles the pool's shrunk elastic tasks when its pass left slots
// spare; pendMark is where the pool's pending entries start in the plan.
func (p *pass) expand(pool int, pendMark int) {
	e := &p.sc.elastic
	cands := e.grow[:0]
	for _, a := range p.sc.poolRuns[pool] {
		if p.canGrow(a) {
			cands = append(cands, a)
		}
	}
	e.grow = cands
	if len(cands) == 0 {
		return
	}
	for _, pe := range p.plan.Pending[pendMark:] {
		if p.s.Jobs[pe.Job].Slots > 0 && blocksExpansion(pe.Reason) {
			return
		}
	}
	slices.SortFunc(cands, func(a, b int32) int {
		if c := cmp64(p.s.Allocs[a].Start, p.s.Allocs[b].Start); c != 0 {
			return c
		}
		return int(a - b)
	})
	for _, a := range cands {
		p.grow(a)
	}
}

// canGrow reports a running task of an elastic job that may double now.
func (p *pass) canGrow(a int32) bool {
	al := &p.s.Allocs[a]
	job := &p.s.Jobs[al.Job]
	if job.MinSlots == 0 || job.Interactive || al.Preempting || p.sc.evicted[a] || p.sc.final[a] {
		return false
	}
	if min := p.s.Pools[job.Pool].MinRunTime; min > 0 && p.s.Now-al.Start < min {
		return false
	}
	held := 0
	for i, ns := range al.Nodes {
		if ns.Slots <= 0 || slotsOn(al.Nodes[:i], ns.Node) > 0 {
			return false // odd input: a part without slots, or a node twice
		}
		held += int(ns.Slots)
	}
	return held < job.Slots
}

// grow doubles one task if the new size fits, and records the resize.
func (p *pass) grow(a int32) {
	al := &p.s.Allocs[a]
	job := &p.s.Jobs[al.Job]
	cur := int32(Slots(al.Nodes))
	want := min(2*cur, int32(job.Slots))
	if !p.quotaAllowsGrowth(job, want-cur) {
		return
	}
	at := len(p.sc.arena)
	if n := al.Nodes[0].Node; len(al.Nodes) == 1 && p.fitsJob(n, job) && p.st.free[n] >= want-cur {
		p.st.take(n, want-cur)
		p.sc.arena = append(p.sc.arena, NodeSlots{Node: n, Slots: want})
	} else if !p.regrow(al, want) {
		return
	}
	p.setFinal(a)
	if q := &p.sc.quota; p.s.Pools[job.Pool].Policy == PolicyQuota && !job.Borrow {
		q.add(p.s, q.alloc, int32(job.Project), want-cur)
		if !job.Preemptible {
			q.add(p.s, q.fixed, int32(job.Project), want-cur)
		}
	}
	p.plan.Resizes = append(p.plan.Resizes, Resize{Alloc: int(a), Nodes: p.sc.arena[at:len(p.sc.arena):len(p.sc.arena)]})
}

// regrow places the task anew at want slots, its own slots counted as
// free, and appends the placement to the arena. Slots of the old placement
// that the new one does not reuse are left draining: the task holds them
// until its checkpoint lands.
func (p *pass) regrow(al *Alloc, want int32) bool {
	for _, ns := range al.Nodes {
		p.st.release(ns.Node, ns.Slots)
	}
	job := &p.s.Jobs[al.Job]
	r := request{pool: job.Pool, gpu: job.GPU, slots: want, spread: p.s.Pools[job.Pool].Placement == PlaceSpread,
		oneSwitch: job.Topology == TopologyRequired}
	nodes, ok := p.st.find(&r, p.sc.scratch[:0])
	p.sc.scratch = nodes[:0]
	if !ok {
		p.st.takeAll(al.Nodes)
		return false
	}
	p.st.takeAll(nodes)
	p.sc.arena = append(p.sc.arena, nodes...)
	for _, ns := range al.Nodes {
		if left := ns.Slots - slotsOn(nodes, ns.Node); left > 0 {
			p.st.take(ns.Node, left)
			p.st.addDrain(ns.Node, left)
		}
	}
	return true
}

// fitsJob reports whether node n may hold tasks of the job.
func (p *pass) fitsJob(n int32, job *Job) bool {
	nd := &p.s.Nodes[n]
	return nd.Pool == job.Pool && (job.GPU == "" || nd.GPU == job.GPU)
}

// slotsOn returns the slots a placement has on node n.
func slotsOn(nodes []NodeSlots, n int32) int32 {
	k := int32(0)
	for _, x := range nodes {
		if x.Node == n {
			k += x.Slots
		}
	}
	return k
}

// quotaAllowsGrowth checks a quota pool's limits for delta more slots.
func (p *pass) quotaAllowsGrowth(job *Job, delta int32) bool {
	if p.s.Pools[job.Pool].Policy != PolicyQuota || job.Borrow {
		return true
	}
	q := &p.sc.quota
	pr := int32(job.Project)
	if !q.withinLimit(p.s, pr, delta) {
		return false
	}
	return job.Preemptible || q.fixed[pr]+delta <= q.quota[pr]
}
