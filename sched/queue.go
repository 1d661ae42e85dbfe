package sched

// hasWaiting reports whether j has waiting tasks this plan did not start.
func (p *pass) hasWaiting(j int32) bool {
	return int(p.sc.planned[j]-p.sc.holds[j]) < p.s.Jobs[j].Waiting
}

// backfill starts tasks of j on slots that are free right now, marked
// as backfill so that the blocked job can evict them later. Evicting does
// not give licenses back, so j may not take licenses the blocker needs.
func (g *idleGate) backfill(p *pass, j, blocker int32) {
	for p.wants(j) {
		if !p.lic.licensesFit(j) {
			p.addPending(p.lic.licensePending(j))
			break
		}
		if !p.lic.licensesLeave(j, blocker) {
			p.behind(j, blocker, ReasonBehind)
			break
		}
		r := p.request(j, false)
		nodes, ok := p.finds.find(p.st, &r, p.sc.scratch[:0])
		if !ok {
			if p.elastic.shrink(j) {
				continue
			}
			p.addPending(g.noRoom(p, j))
			break
		}
		p.sc.scratch = nodes[:0]
		p.commit(j, nodes, true)
	}
	p.finish(j)
}

// zeroSlotJobs starts zero-slot tasks in the given order until one cannot
// start, which blocks the rest.
func (p *pass) zeroSlotJobs(jobs []int32) {
	blocker := int32(-1)
	for _, j := range jobs {
		if p.hasWaiting(j) && len(p.s.Jobs[j].Licenses) > 0 && p.lic.licenseNever(j) {
			continue
		}
		if blocker >= 0 {
			if p.hasWaiting(j) {
				p.behind(j, blocker, ReasonBehind)
			}
			continue
		}
		for p.wants(j) {
			if !p.lic.licensesFit(j) {
				p.addPending(p.lic.licensePending(j))
				blocker = j
				break
			}
			r := p.request(j, false)
			n := p.st.findZero(&r, p.s)
			if n < 0 {
				pe := p.zeroWait(j, &r)
				p.addPending(pe)
				if pe.Reason == ReasonZeroSlotFull {
					// The others wait behind it; a job no node up could
					// take blocks no one (zeroslot.go).
					blocker = j
				}
				break
			}
			p.st.zeroUsed[n]++
			p.lic.takeLicenses(j)
			at := len(p.sc.arena)
			p.sc.arena = append(p.sc.arena, NodeSlots{Node: n})
			p.plan.Starts = append(p.plan.Starts, Start{Job: int(j), Nodes: p.sc.arena[at : at+1 : at+1]})
			p.sc.planned[j]++
		}
		p.finish(j)
	}
}
