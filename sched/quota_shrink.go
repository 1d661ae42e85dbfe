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

// shrinkables lists, in victim order, the victims shrinkFor may shrink:
// tasks of elastic jobs, not interactive nor borrowing, holding more than
// min_slots on one node.
func (s *reclaimPreempt) shrinkables(p *pass) {
	s.shrink = s.shrink[:0]
	for _, a := range s.victims {
		al := &p.s.Allocs[a]
		job := &p.s.Jobs[al.Job]
		if job.MinSlots > 0 && !job.Interactive && !job.Borrow && len(al.Nodes) == 1 &&
			al.Nodes[0].Slots > int32(job.MinSlots) {
			s.shrink = append(s.shrink, a)
		}
	}
}

// shrinkFor places one task of j, a single-node task of project pr, by
// shrinking a grown elastic task of another project over its quota on a
// node where the slots it gives back make the task fit, and reports held
// (the task waits for the checkpoint), or failed having changed nothing.
func (s *reclaimPreempt) shrinkFor(p *pass, j, pr int32) outcome {
	if len(s.shrink) == 0 {
		return failed
	}
	r := p.request(j, true)
	if !p.st.oneNode(&r) {
		return failed
	}
	q := &p.sc.quota
	for _, a := range s.shrink {
		al := &p.s.Allocs[a]
		vj := &p.s.Jobs[al.Job]
		v := int32(vj.Project)
		if v == pr || p.vic.gone(a) || p.sc.evicted[a] || p.vic.budgetSpent(vj) {
			continue
		}
		// Never a project below its quota.
		if o := p.shrinkTo(a, j, &r, q.excess(p.s, v, pr), func(given int32) { q.add(p.s, q.alloc, v, -given) }); o != failed {
			return o
		}
	}
	return failed
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
