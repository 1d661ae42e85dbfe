package sched

import "fmt"

// The over_quota reason's advice. Work that may only run within quota
// (interactive or not preemptible) waits there even when the pool has
// idle slots, which preemptible work of the same project could borrow
// past its quota (the over-quota phase of quota rounds). A user who does
// not know that sees no way forward, so the reason says so, where it
// would help.

// BorrowIdle returns how many slots of job j's pool are idle (on nodes
// that take new work, of its GPU type if it names one) when the job,
// made preemptible, could borrow need of them past its project's quota
// now; 0 when it could not: it is preemptible already, its pool is not a
// quota pool, fewer than need slots are idle, or need more would take
// its project or a parent past its limit. It reads s as it stands
// (between passes, or before a pass placed anything); after a pass,
// Plan.BorrowIdle counts what its plan leaves. The advice is what the
// job could try, not a promise.
func (s *Snapshot) BorrowIdle(j, need int) int { return s.borrowIdle(nil, j, need) }

// BorrowIdle is Snapshot.BorrowIdle in the state plan, made from s,
// leaves, as the allocations its driver reports once it is applied:
// its starts hold their slots, a moved or resized task its new nodes
// and, until its checkpoint lands, what of its old ones it does not
// reuse (Resize), and the tasks it preempts theirs until their
// checkpoints land, all of which count against their project's limit. A job told
// that slots are idle which the same pass gave away would find them
// gone when it is submitted again.
func (pl *Plan) BorrowIdle(s *Snapshot, j, need int) int { return s.borrowIdle(pl, j, need) }

// borrowIdle is BorrowIdle after plan, or of s as it stands when plan
// is nil.
func (s *Snapshot) borrowIdle(plan *Plan, j, need int) int {
	if j < 0 || j >= len(s.Jobs) {
		return 0
	}
	job := &s.Jobs[j]
	if job.Preemptible || job.Borrow || job.Pool < 0 || job.Pool >= len(s.Pools) ||
		s.Pools[job.Pool].Policy != PolicyQuota || !s.limitRoom(plan, job.Pool, job.Project, need) {
		return 0
	}
	if idle := s.idleSlots(plan, job); idle >= need && idle > 0 {
		return idle
	}
	return 0
}

// idleSlots counts the free slots of job's pool on nodes that take new
// work and have its GPU type, after plan (nil: none). A node's slots held
// by a task being preempted are not idle yet, nor are those a moved or
// resized task leaves until its checkpoint lands.
func (s *Snapshot) idleSlots(plan *Plan, job *Job) int {
	free := make([]int, len(s.Nodes))
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool == job.Pool && !n.Drained && (job.GPU == "" || n.GPU == job.GPU) {
			free[i] = n.Slots
		}
	}
	// take holds what placement ns claims beyond old, node by node.
	take := func(ns, old []NodeSlots) {
		for _, x := range ns {
			if x.Node >= 0 && int(x.Node) < len(free) {
				free[x.Node] -= int(max(x.Slots-slotsOn(old, x.Node), 0))
			}
		}
	}
	for ai := range s.Allocs {
		take(s.Allocs[ai].Nodes, nil)
	}
	if plan != nil {
		for _, st := range plan.Starts {
			take(st.Nodes, nil)
		}
		for _, m := range plan.Moves {
			take(m.Nodes, s.allocNodes(m.Alloc))
		}
		for _, r := range plan.Resizes {
			take(r.Nodes, s.allocNodes(r.Alloc))
		}
	}
	idle := 0
	for _, f := range free {
		idle += max(f, 0)
	}
	return idle
}

// allocNodes is allocation a's placement, nil for an index out of range.
func (s *Snapshot) allocNodes(a int) []NodeSlots {
	if a < 0 || a >= len(s.Allocs) {
		return nil
	}
	return s.Allocs[a].Nodes
}

// limitRoom reports whether project pr and each of its parents could
// hold need more slots of pool within their limits, counting the pool's
// running tasks, those being preempted included, as quota rounds do
// (withinLimit), after plan (nil: none): its starts, its victims (still
// draining) and its re-placed tasks on their old and new nodes count.
func (s *Snapshot) limitRoom(plan *Plan, pool, pr, need int) bool {
	if pr < 0 || pr >= len(s.Projects) {
		return false
	}
	held := make([]int, len(s.Projects))
	add := func(j, slots int) {
		if j < 0 || j >= len(s.Jobs) || s.Jobs[j].Pool != pool {
			return
		}
		for p := s.Jobs[j].Project; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
			held[p] += slots
		}
	}
	slots := s.allocSlotsAfter(plan)
	for ai := range s.Allocs {
		add(s.Allocs[ai].Job, slots(ai))
	}
	if plan != nil {
		for _, st := range plan.Starts {
			add(st.Job, Slots(st.Nodes))
		}
	}
	for p := pr; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
		if l := s.Projects[p].Limit; l > 0 && held[p]+need > l {
			return false
		}
	}
	return true
}

// allocSlotsAfter returns what each allocation holds against its
// project's limit after plan: when plan moves or resizes it, its new
// placement and what of the old one it does not reuse (draining), per
// node the larger; its own otherwise (a victim drains).
func (s *Snapshot) allocSlotsAfter(plan *Plan) func(a int) int {
	var after map[int]int
	if plan != nil && len(plan.Moves)+len(plan.Resizes) > 0 {
		after = make(map[int]int, len(plan.Moves)+len(plan.Resizes))
		for _, m := range plan.Moves {
			after[m.Alloc] = s.heldReplaced(m.Alloc, m.Nodes)
		}
		for _, r := range plan.Resizes {
			after[r.Alloc] = s.heldReplaced(r.Alloc, r.Nodes)
		}
	}
	return func(a int) int {
		if n, ok := after[a]; ok {
			return n
		}
		return Slots(s.Allocs[a].Nodes)
	}
}

// heldReplaced is what allocation a holds once re-placed on nodes until
// its checkpoint lands: nodes, and per node what of its old placement
// they do not reuse.
func (s *Snapshot) heldReplaced(a int, nodes []NodeSlots) int {
	n := Slots(nodes)
	for _, ns := range s.allocNodes(a) {
		n += int(max(ns.Slots-slotsOn(nodes, ns.Node), 0))
	}
	return n
}

// BorrowHint is the over_quota message's advice for a job that could
// borrow idle slots if preemptible (BorrowIdle), or "" for none. Callers
// that render the message from less than the pass's snapshot (the
// master's views) keep idle and add this themselves.
func BorrowHint(idle int) string {
	if idle <= 0 {
		return ""
	}
	return fmt.Sprintf("; submitted preemptible (resources: preemptible: true) it could borrow idle slots past its quota (%d idle in the pool), and be preempted when they are reclaimed", idle)
}

// LimitBelow returns the project, job j's own or a parent, whose limit
// is below the job's smallest task (its MinSlots when elastic), so that
// in a quota pool the job can never start however idle the pool, until
// the limit is raised; -1 when none is, or the job is not in a quota
// pool. The limit caps borrowing work too (withinLimit). The nearest
// such project is named, as the quota rounds check it first.
func (s *Snapshot) LimitBelow(j int) int {
	if j < 0 || j >= len(s.Jobs) {
		return -1
	}
	job := &s.Jobs[j]
	if job.Pool < 0 || job.Pool >= len(s.Pools) || s.Pools[job.Pool].Policy != PolicyQuota {
		return -1
	}
	need := job.SmallestTask()
	for p := job.Project; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
		if l := s.Projects[p].Limit; l > 0 && need > l {
			return p
		}
	}
	return -1
}

// LimitNeverMessage is the project_limit reason of job j that can never
// start under its project's limit (LimitBelow): what must change, not
// only what binds (trial 2026-11-29e E6: "would take its project past its
// limit" read as a wait that ends); "" when the limit does not bind for
// ever. A caller that renders the reason later, from less than the
// snapshot, keeps it.
func (s *Snapshot) LimitNeverMessage(j int) string {
	p := s.LimitBelow(j)
	if p < 0 {
		return ""
	}
	job := &s.Jobs[j]
	need := job.SmallestTask()
	return fmt.Sprintf("can never start: a task of %s is over project %s's limit of %d in pool %s; an admin must raise the project's limit",
		slotCount(need), s.Projects[p].Name, s.Projects[p].Limit, s.Pools[job.Pool].Name)
}
