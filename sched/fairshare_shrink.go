package sched

// Fair share and elastic jobs. An elastic job's share counts from its
// min_slots steps (fillStep): what it runs past them is opportunistic,
// as in Run:ai, so a job that started or grew at full size while nothing
// else waited is above its share once others come. When a job below its
// share finds no room, not even by preempting whole tasks of jobs that
// stay at or above theirs (a grown task is often the only one of its job,
// and evicting it would take the job below its share), the sharePreempt
// stage shrinks such a task instead (shrinkFor): the task restarts from a
// checkpoint at a smaller size (a Resize), giving back what the waiting
// task needs on its node but never going below min_slots nor its job
// below its share, and the slots it gives back drain to the waiting
// task, which is held until they land. It grows again, doubling, once the
// pool has slots to spare. A shrink names the job it gives back to
// (Resize.For) and counts against the shrunk job's project's preemption
// budget, within the pass as the drivers count it after.

// fillStep is the slots j's share grows by in the water fill, from share:
// a task's size, or for an elastic job its min_slots, the last step
// topping up to its demand. 0 means the share is complete.
func fillStep(job *Job, share, demand int32) int32 {
	if job.MinSlots == 0 {
		return int32(job.Slots)
	}
	return max(min(int32(job.MinSlots), demand-share), 0)
}

// grownElastic fills dst (reusing it), in victims' order, with the tasks a shrink may
// take from: tasks of elastic jobs, not interactive nor borrowing,
// holding more than min_slots on one node. Most pools have none, and
// then a failed search costs nothing more.
func grownElastic(p *pass, victims, dst []int32) []int32 {
	dst = dst[:0]
	for _, a := range victims {
		al := &p.s.Allocs[a]
		job := &p.s.Jobs[al.Job]
		if job.MinSlots > 0 && !job.Interactive && !job.Borrow && len(al.Nodes) == 1 && al.Nodes[0].Slots > int32(job.MinSlots) {
			dst = append(dst, a)
		}
	}
	return dst
}

// shrinkFor places one task of j, a single-node task, by shrinking a
// grown elastic task of a job above its share, never below it.
func (s *sharePreempt) shrinkFor(p *pass, j int32) outcome {
	f := &p.sc.fs
	return p.shrinkOne(j, s.shrink, 0, func(a int32) (int32, func(int32), bool) {
		v := p.s.Allocs[a].Job
		return f.alloc[v] - f.share[v], func(given int32) { f.took(int32(v), -given) }, true
	})
}

// shrinkOne places one task of j, a single-node task, by shrinking one of
// the grown tasks in shrink (grownElastic) on a node where the slots it
// gives back make the task fit, giving at least least slots, and reports
// held (the task waits for the checkpoint), or failed having changed
// nothing. give says how much a's
// owner may give and how to count it, or that a may not be shrunk for
// j. A task gone or evicted in this pass, or one of a project whose
// preemption budget is spent, gives nothing back.
func (p *pass) shrinkOne(j int32, shrink []int32, least int32, give func(a int32) (most int32, account func(int32), ok bool)) outcome {
	if len(shrink) == 0 {
		return failed
	}
	r := p.request(j, true)
	if !p.st.oneNode(&r) {
		return failed
	}
	for _, a := range shrink {
		if p.vic.gone(a) || p.sc.evicted[a] || p.vic.budgetSpent(&p.s.Jobs[p.s.Allocs[a].Job]) {
			continue
		}
		most, account, ok := give(a)
		if !ok {
			continue
		}
		if o := p.shrinkTo(a, j, &r, least, most, account); o != failed {
			return o
		}
	}
	return failed
}

// shrinkTo shrinks allocation a, a grown elastic task on one node, for
// job j's single-node request r: it gives back what r needs on the node,
// no more, never below its job's min_slots nor more than most (what its
// owner may give: the job's excess over its share, the project's over
// its quota), but at least least (what a limit asks the project to give
// up; 0 for none), and holds j there until the slots drain. account takes
// the slots given before j is placed. failed, having changed nothing,
// where the node does not fit j or the task cannot give enough.
func (p *pass) shrinkTo(a, j int32, r *request, least, most int32, account func(given int32)) outcome {
	al := &p.s.Allocs[a]
	n, cur := al.Nodes[0].Node, al.Nodes[0].Slots
	if !p.elastic.fitsJob(n, &p.s.Jobs[j]) {
		return failed
	}
	floor := int32(p.s.Jobs[al.Job].MinSlots)
	to := min(max(cur-(r.slots-p.st.avail(n)), floor, cur-most), cur-least)
	if to >= cur || to < floor || p.st.avail(n)+cur-to < r.slots {
		return failed
	}
	p.st.addDrain(n, cur-to)
	nodes, ok := p.st.find(r, p.sc.scratch[:0])
	p.sc.scratch = nodes[:0]
	if !ok { // cannot happen: n has the room
		p.st.removeDrain(n, cur-to)
		return failed
	}
	p.pre.setFinal(a)
	account(cur - to)
	at := len(p.sc.arena)
	p.sc.arena = append(p.sc.arena, NodeSlots{Node: n, Slots: to})
	p.plan.Resizes = append(p.plan.Resizes, Resize{Alloc: int(a), Nodes: p.sc.arena[at:len(p.sc.arena):len(p.sc.arena)], For: int(j)})
	if pr := p.vic.allocProject[a]; pr >= 0 {
		p.vic.preempts[pr]++ // counts as a preemption, as the drivers charge it
	}
	return p.commit(j, nodes, false)
}
