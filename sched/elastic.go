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
// A priority or multifactor pool also grows its tasks during the walk,
// ahead of strictly less important jobs, there by as much of the
// doubling as fits (elastic_ahead.go).

// Resize grows a running task of an elastic job to a new placement, or
// shrinks it in place to make room for a job below its fair share
// (fairshare_shrink.go) or quota, or for work within its own project's
// quota (quota_shrink.go). The
// task checkpoints and restarts on Nodes (its new, complete placement);
// the slots of Nodes it does not hold yet are claimed from this plan on.
// Until its checkpoint lands the caller reports it as two allocations: the
// new placement, running, and whatever of the old placement Nodes does not
// reuse (per node, old minus new slots), as Preempting and Moving.
type Resize struct {
	Alloc int
	Nodes []NodeSlots
	// For is the waiting job a shrink gives its slots back to, as a
	// Preemption's For, or -1 when the task grows on spare slots: a
	// shrink for another job counts against the task's project's
	// preemption budget, growth does not.
	For int
}

// elasticPass is the elastic stage: the task sizes jobs shrink to when the
// full size does not fit, and the growth of shrunk tasks once a pool has
// slots to spare (expand). It owns the sizes and the list of tasks that
// may grow. It reads the snapshot, the plan's pending entries and the
// quota counters; growing writes the planning state, the quota counters,
// the plan's resizes (in the Scheduler's arena) and the final marks
// (through the preemption's setFinal).
type elasticPass struct {
	p *pass
	// s and st are the pass's snapshot and planning state.
	s  *Snapshot
	st *state
	// sizes holds each elastic job's current task size in this pass; 0
	// means Job.Slots.
	sizes []int32
	// growable is the pool's tasks that may grow (candidates), and
	// ahead the walk's growth in a priority or multifactor pool
	// (elastic_ahead.go).
	growable []int32
	ahead    ahead
}

func (e *elasticPass) reset(s *Snapshot) {
	e.sizes = resize(e.sizes, len(s.Jobs))
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
func (e *elasticPass) size(j int32) int32 {
	job := &e.s.Jobs[j]
	if job.MinSlots > 0 {
		if v := e.sizes[j]; v > 0 {
			return v
		}
	}
	return int32(job.Slots)
}

// SmallestTask is the fewest slots a task of the job can run on: its
// MinSlots for an elastic job, else its Slots. What it can never get is
// judged by it (feasibility, limits, the explanations).
func (j *Job) SmallestTask() int {
	if j.MinSlots > 0 {
		return j.MinSlots
	}
	return j.Slots
}

// minSize is the smallest task j can run: MinSlots for an elastic job.
func (e *elasticPass) minSize(j int32) int32 {
	job := &e.s.Jobs[j]
	if job.MinSlots > 0 {
		return int32(job.MinSlots)
	}
	return int32(job.Slots)
}

// shrink halves j's task size for the next try and reports whether there
// is a smaller size to try.
func (e *elasticPass) shrink(j int32) bool {
	job := &e.s.Jobs[j]
	if job.MinSlots == 0 {
		return false
	}
	cur := e.size(j)
	if cur <= int32(job.MinSlots) {
		return false
	}
	e.sizes[j] = max(cur/2, int32(job.MinSlots))
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

// BlocksGrowth reports whether a job waiting for reason r keeps its
// pool's elastic tasks from growing (blocksExpansion): it waits for
// slots, which growth would take.
func (r Reason) BlocksGrowth() bool { return blocksExpansion(r) }

// expand doubles the pool's shrunk elastic tasks when its pass left slots
// spare; pendMark is where the pool's pending entries start in the plan.
func (e *elasticPass) expand(pool int, pendMark int) {
	e.candidates(pool)
	cands := e.growable
	if len(cands) == 0 {
		return
	}
	for _, pe := range e.p.plan.Pending[pendMark:] {
		if e.s.Jobs[pe.Job].Slots > 0 && blocksExpansion(pe.Reason) {
			return
		}
	}
	slices.SortFunc(cands, e.older)
	for _, a := range cands {
		e.grow(a, false)
	}
}

// canGrow reports a running task of an elastic job that may double now.
func (e *elasticPass) canGrow(a int32) bool {
	al := &e.s.Allocs[a]
	job := &e.s.Jobs[al.Job]
	if job.MinSlots == 0 || job.Interactive || al.Preempting || e.p.sc.evicted[a] || e.p.sc.final[a] {
		return false
	}
	if min := e.s.Pools[job.Pool].MinRunTime; min > 0 && e.s.Now-al.Start < min {
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

// grow doubles one task (capped at Job.Slots) if the doubled task fits,
// and records the resize. With partial (the walk's growth ahead of less
// important jobs, elastic_ahead.go) a task whose doubling does not fit
// grows to the largest size short of it that does, by one slot at least.
func (e *elasticPass) grow(a int32, partial bool) {
	al := &e.s.Allocs[a]
	job := &e.s.Jobs[al.Job]
	cur := int32(Slots(al.Nodes))
	want := min(2*cur, int32(job.Slots))
	if !e.quotaAllowsGrowth(job, want-cur) {
		return
	}
	lo := want
	if partial {
		lo = cur + 1
	}
	at := len(e.p.sc.arena)
	size := e.placeGrown(al, job, cur, lo, want)
	if size == 0 {
		return
	}
	e.p.pre.setFinal(a)
	if q := &e.p.sc.quota; e.s.Pools[job.Pool].Policy == PolicyQuota {
		switch {
		case job.Borrow:
			// What it borrows counts toward its project's limit, as
			// borrowIdle counts it.
			q.add(e.s, q.borrowed, int32(job.Project), size-cur)
		default:
			q.add(e.s, q.alloc, int32(job.Project), size-cur)
			if !job.Preemptible {
				q.add(e.s, q.fixed, int32(job.Project), size-cur)
			}
		}
	}
	e.p.plan.Resizes = append(e.p.plan.Resizes, Resize{Alloc: int(a), Nodes: e.p.sc.arena[at:len(e.p.sc.arena):len(e.p.sc.arena)], For: -1})
}

// placeGrown places the task of cur slots at the largest size from want
// down to lo that fits, appends the placement to the arena and returns
// the size, or 0 when none fits. A size goes in place when the task's
// one node has the room, or else to the best placement anew (regrow):
// a resize restarts the task either way, and the largest size wins.
// Sizes past what the pool's available slots could hold are not tried.
func (e *elasticPass) placeGrown(al *Alloc, job *Job, cur, lo, want int32) int32 {
	n := al.Nodes[0].Node
	inPlace := int32(0) // the largest size the task's own node holds
	if len(al.Nodes) == 1 && e.fitsJob(n, job) {
		inPlace = cur + e.st.free[n]
	}
	top := want
	if lo < want {
		top = min(want, cur+e.availFor(job))
	}
	for size := top; size >= lo; size-- {
		if inPlace >= size {
			e.st.take(n, size-cur)
			e.p.sc.arena = append(e.p.sc.arena, NodeSlots{Node: n, Slots: size})
			return size
		}
		if e.regrow(al, size) {
			return size
		}
	}
	return 0
}

// availFor bounds the slots a new placement of job could take besides
// its own: the available slots of the pool's nodes of its GPU type.
func (e *elasticPass) availFor(job *Job) int32 {
	k := 0
	for _, gi := range e.st.poolGroups[job.Pool] {
		if g := &e.st.groups[gi]; job.GPU == "" || g.gpu == job.GPU {
			k += g.avail
		}
	}
	return int32(min(k, 1<<30))
}

// resizedTo returns the placement this plan resizes allocation a to, if
// it does. Only a task marked final and not evicted can be resized, and
// resizes are few.
func (e *elasticPass) resizedTo(a int32) ([]NodeSlots, bool) {
	if !e.p.sc.final[a] || e.p.sc.evicted[a] {
		return nil, false
	}
	for i := range e.p.plan.Resizes {
		if rs := &e.p.plan.Resizes[i]; rs.Alloc == int(a) {
			return rs.Nodes, true
		}
	}
	return nil, false
}

// regrow places the task anew at want slots, its own slots counted as
// free but on drained nodes (a drained node takes nothing anew: what the
// task held there drains), and appends the placement to the arena. Slots
// of the old placement that the new one does not reuse are left
// draining: the task holds them until its checkpoint lands.
func (e *elasticPass) regrow(al *Alloc, want int32) bool {
	for _, ns := range al.Nodes {
		if !e.s.Nodes[ns.Node].Drained {
			e.st.release(ns.Node, ns.Slots)
		}
	}
	job := &e.s.Jobs[al.Job]
	r := request{pool: job.Pool, gpu: job.GPU, slots: want, spread: e.s.Pools[job.Pool].Placement == PlaceSpread,
		oneSwitch: job.Topology == TopologyRequired}
	nodes, ok := e.st.find(&r, e.p.sc.scratch[:0])
	e.p.sc.scratch = nodes[:0]
	if !ok {
		for _, ns := range al.Nodes {
			if !e.s.Nodes[ns.Node].Drained {
				e.st.take(ns.Node, ns.Slots)
			}
		}
		return false
	}
	e.st.takeAll(nodes)
	e.p.sc.arena = append(e.p.sc.arena, nodes...)
	for _, ns := range al.Nodes {
		left := ns.Slots - slotsOn(nodes, ns.Node)
		if left <= 0 {
			continue
		}
		// Held on a drained node, they were never counted free, and
		// drain into nothing a waiting job could use.
		if !e.s.Nodes[ns.Node].Drained {
			e.st.take(ns.Node, left)
			e.st.addDrain(ns.Node, left)
		}
	}
	return true
}

// fitsJob reports whether node n may hold more of the job's tasks: not
// a drained one.
func (e *elasticPass) fitsJob(n int32, job *Job) bool {
	nd := &e.s.Nodes[n]
	return nd.Pool == job.Pool && (job.GPU == "" || nd.GPU == job.GPU) && !nd.Drained
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

// quotaAllowsGrowth checks a quota pool's limits for delta more slots:
// every task's project limit, borrowing work's included (it grew past
// the limit it started under: trial 2026-11-29f F1), and the quota of
// work that is not preemptible.
func (e *elasticPass) quotaAllowsGrowth(job *Job, delta int32) bool {
	if e.s.Pools[job.Pool].Policy != PolicyQuota {
		return true
	}
	q := &e.p.sc.quota
	pr := int32(job.Project)
	if !q.withinLimit(e.s, pr, delta) {
		return false
	}
	return job.Borrow || job.Preemptible || q.fixed[pr]+delta <= q.quota[pr]
}
