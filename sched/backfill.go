package sched

// release is a future moment when a task's slots and licenses come back:
// the end of its time limit. A release with no nodes gives back licenses
// only.
type release struct {
	at    int64
	nodes []NodeSlots
	job   int32
	ord   int32 // the release's place in its list before sortReleases
	// from is 1 + the allocation whose end this is, or 0.
	from int32
}

// headPending records why the EASY head waits: its reservation, or the
// license it is short of, with the reserved time.
func (g *easyGate) headPending(p *pass, j int32, pool int, shadowAt int64) {
	if !p.lic.licensesFit(j) {
		pe := p.lic.licensePending(j)
		pe.At = shadowAt
		p.addPending(pe)
		return
	}
	p.addPending(Pending{Job: int(j), Reason: ReasonReserved, Blocker: -1,
		Need: int(p.elastic.size(j)), Free: p.st.groupsAvail(pool), At: shadowAt})
}

// reserveHead computes the head's shadow time and leaves in sc.shadow the
// cluster as it will be at that time, without the head placed, and in
// sc.lic.shadow the licenses free then.
func (g *easyGate) reserveHead(p *pass, pool int, head int32, firstStart int) int64 {
	sh := &p.sc.shadow
	sh.copyFrom(p.st)
	ends := p.sc.ends[:0]
	for _, a := range p.sc.poolRuns[pool] {
		al := &p.s.Allocs[a]
		if al.Preempting || p.sc.evicted[a] {
			continue // already counted as draining
		}
		if nodes, ok := p.elastic.resizedTo(a); ok {
			// A task grown ahead (elastic_ahead.go) restarts now on its
			// new placement, as a moved one; what of its old placement
			// that one does not reuse is draining, counted already.
			if lim := p.s.Jobs[al.Job].TimeLimit; lim > 0 {
				ends = append(ends, release{at: p.s.Now + lim, nodes: nodes, job: int32(al.Job)})
			}
			continue
		}
		if end := al.End(p.s.Jobs); end != Never {
			// A task past its limit whose kill has not landed yet ends
			// "now", not in the past.
			ends = append(ends, release{at: max(end, p.s.Now), nodes: al.Nodes, job: int32(al.Job), from: a + 1})
		}
	}
	for _, st := range p.plan.Starts[firstStart:] {
		if lim := p.s.Jobs[st.Job].TimeLimit; lim > 0 {
			ends = append(ends, release{at: p.s.Now + lim, nodes: st.Nodes, job: int32(st.Job)})
		}
	}
	for _, mv := range p.plan.Moves {
		// A moved task restarts now on its new nodes.
		if job := &p.s.Jobs[p.s.Allocs[mv.Alloc].Job]; job.Pool == pool && job.TimeLimit > 0 {
			ends = append(ends, release{at: p.s.Now + job.TimeLimit, nodes: mv.Nodes, job: int32(p.s.Allocs[mv.Alloc].Job)})
		}
	}
	ends = p.lic.licenseEnds(pool, head, firstStart, ends)
	p.sc.lic.shadowFromFree()
	p.sc.orders.sortReleases(pool*listKinds+listReleases, ends, len(p.s.Allocs), p.sc.allocs.newOf)
	p.sc.ends = ends
	r := p.request(head, true)
	for i := 0; i < len(ends); {
		at := ends[i].at
		for ; i < len(ends) && ends[i].at == at; i++ {
			for _, ns := range ends[i].nodes {
				if ns.Slots > 0 && !p.s.Nodes[ns.Node].Drained {
					sh.release(ns.Node, ns.Slots)
				}
			}
			p.lic.shadowRelease(ends[i].job, 1)
		}
		if _, ok := sh.find(&r, p.sc.scratch[:0]); ok && p.lic.shadowFits(head, -1) {
			return at
		}
	}
	return Never
}

// backfill starts tasks of j that do not delay the head's reservation.
// A head with no reservation (shadowAt Never: a task it waits for has no
// time limit, or its nodes are drained) has no start that a later job
// could delay, only an unknown one: a later job with a time limit starts
// if it fits now, since it holds the head back at most by its limit once
// the head could start, and from then the head has a reservation that
// binds every later start; a job without one starts only if the head
// fits beside it once every timed task has ended (it could hold the
// head's slots for ever), which it cannot where the head does not fit
// there alone, and otherwise waits would_delay with At Never.
func (g *easyGate) backfill(p *pass, j, head int32, shadowAt int64) {
	sh := &p.sc.shadow
	hr := p.request(head, true)
	lim := p.s.Jobs[j].TimeLimit
	for p.wants(j) {
		if !p.lic.licensesFit(j) {
			p.addPending(p.lic.licensePending(j))
			return
		}
		r := p.request(j, false)
		nodes, ok := p.finds.find(p.st, &r, p.sc.scratch[:0])
		if !ok {
			if p.elastic.shrink(j) {
				continue
			}
			p.addPending(p.failReason(j))
			return
		}
		p.sc.scratch = nodes[:0]
		if lim <= 0 || (shadowAt != Never && p.s.Now+lim > shadowAt) {
			// The task will still run at the shadow time: the head must
			// fit beside it, licenses included.
			if !shadowRoom(sh, nodes) || !p.lic.shadowFits(head, j) {
				if p.elastic.shrink(j) {
					continue
				}
				wouldDelay(p, j, head, shadowAt == Never)
				return
			}
			sh.takeAll(nodes)
			probe, ok := sh.find(&hr, p.sc.probe[:0])
			p.sc.probe = probe[:0]
			if !ok {
				for _, ns := range nodes {
					sh.release(ns.Node, ns.Slots)
				}
				if p.elastic.shrink(j) {
					continue
				}
				wouldDelay(p, j, head, shadowAt == Never)
				return
			}
			p.lic.shadowRelease(j, -1)
		}
		p.commit(j, nodes, true)
	}
}

// wouldDelay records that j fits now but may not pass blocker: it would
// delay blocker's reservation or, when blocker has none (unreserved), it
// has no time limit and could hold blocker's slots for ever; At Never
// says the latter to Message.
func wouldDelay(p *pass, j, blocker int32, unreserved bool) {
	at := int64(-1)
	if unreserved {
		at = Never
	}
	p.addPending(Pending{Job: int(j), Reason: ReasonWouldDelay, Blocker: int(blocker), Need: p.s.Jobs[j].Slots, At: at})
}

// releasable counts the slots of nodes that come free when their task
// ends: a drained node's (Node.Drained) are gone with the task, so that no
// reservation or shadow time is promised on them.
func (s *Snapshot) releasable(nodes []NodeSlots) int {
	n := 0
	for _, ns := range nodes {
		if !s.Nodes[ns.Node].Drained {
			n += int(ns.Slots)
		}
	}
	return n
}

func shadowRoom(sh *state, nodes []NodeSlots) bool {
	for _, ns := range nodes {
		if sh.avail(ns.Node) < ns.Slots {
			return false
		}
	}
	return true
}

// groupsAvail counts the slots available in a pool.
func (st *state) groupsAvail(pool int) int {
	n := 0
	for _, gi := range st.poolGroups[pool] {
		n += st.groups[gi].avail
	}
	return n
}
