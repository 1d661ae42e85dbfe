package sched

// Quota reclaim and elastic jobs. Reclaim never takes a victim project
// below its quota (quotaPass.reclaimable), so a project over its quota
// only by one grown elastic task, larger than its excess, would keep a
// project below its quota waiting for as long as that task runs. Run:ai
// gives a project its deserved GPUs when it asks; so where evicting whole
// tasks fails, the reclaim stage shrinks such a task instead (shrinkFor):
// it restarts from a checkpoint at a smaller size (a Resize), giving back
// what the waiting task needs on its node, but never going below
// min_slots nor taking its project (or an ancestor outside the
// reclaimer's branch) below its quota. The slots drain to the waiting
// task, held until they land, as a fair-share shrink does.

// shrinkFor places one task of j, a single-node task of project pr, by
// shrinking a grown elastic task of another project over its quota, never
// taking that project below it.
func (s *reclaimPreempt) shrinkFor(p *pass, j, pr int32) outcome {
	q := &p.sc.quota
	return p.shrinkOne(j, s.shrink, 0, func(a int32) (int32, func(int32), bool) {
		v := int32(p.s.Jobs[p.s.Allocs[a].Job].Project)
		return q.excess(p.s, v, pr), func(given int32) { q.add(p.s, q.alloc, v, -given) }, v != pr
	})
}

// excess is what project v may give to pr's reclaim: the least, over v
// and its ancestors outside pr's branch, of what each holds over its
// quota (0 when one holds no more).
func (q *quotaPass) excess(s *Snapshot, v, pr int32) int32 {
	ex := int32(1 << 30)
	for v >= 0 && !q.isAncestor(s, v, pr) {
		ex = min(ex, max(q.alloc[v]-q.quota[v], 0))
		v = int32(s.Projects[v].Parent)
	}
	return ex
}

// Work a project is entitled to (interactive or non-preemptible, within
// its quota) takes the place of the project's own preemptible work,
// which keeps the project's total as it was. What an elastic task runs
// past min_slots is opportunistic, the first thing Run:ai and KAI take
// back, so there a grown elastic task of the project gives back what
// the waiting task needs on its node before any whole task of the
// project is evicted (shrinkOwn): a notebook of 2 next to its project's
// elastic job grown to 4 on a node of 4 shrinks the job to 2, where
// evicting it would stop it. The shrink never goes below min_slots; the
// project's quota is not at stake, since the project's total does not
// change.

// shrinkOwn places one task of j, guaranteed work of project pr, by
// shrinking a grown elastic task of pr's own preemptible work, giving at
// least least slots (what pr's limit asks it to give up; 0 for none).
func (s *reclaimPreempt) shrinkOwn(p *pass, j, pr, least int32) outcome {
	q := &p.sc.quota
	return p.shrinkOne(j, s.shrink, least, func(a int32) (int32, func(int32), bool) {
		return 1 << 30, func(given int32) { q.add(p.s, q.alloc, pr, -given) }, int32(p.s.Jobs[p.s.Allocs[a].Job].Project) == pr
	})
}

// grownOwn reports whether project pr runs a grown elastic task that a
// shrink could take from (s.shrink holds no borrowing work).
func (s *reclaimPreempt) grownOwn(p *pass, pr int32) bool {
	for _, a := range s.shrink {
		if int32(p.s.Jobs[p.s.Allocs[a].Job].Project) == pr {
			return true
		}
	}
	return false
}
