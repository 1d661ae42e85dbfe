package sched

// hasWaiting reports whether j has waiting tasks this plan did not start.
func (p *pass) hasWaiting(j int32) bool {
	return int(p.sc.planned[j]-p.sc.holds[j]) < p.s.Jobs[j].Waiting
}

// runTasks starts j's waiting tasks while they fit; on the first task that
// does not fit it records why and reports failure.
func (p *pass) runTasks(j int32) outcome {
	res := started
	for p.wants(j) {
		if p.tryPlace(j, false) == failed {
			if p.elastic.shrink(j) {
				continue
			}
			p.addPending(p.failReason(j))
			return failed
		}
	}
	return res
}

// fifo starts jobs in submission order while the head fits and stops at
// the first job that does not (head-of-line blocking).
func (p *pass) fifo(pool int, jobs []int32) {
	if p.s.Pools[pool].Serial {
		p.serial(pool, jobs)
		return
	}
	blocker := int32(-1)
	for _, j := range jobs {
		if blocker >= 0 && p.sc.OmitBehind {
			break
		}
		if p.impossible(j) {
			continue
		}
		if blocker >= 0 {
			if p.hasWaiting(j) {
				p.behind(j, blocker, ReasonBehind)
			}
			continue
		}
		if p.runTasks(j) == failed {
			blocker = j
		}
		p.finish(j)
	}
}

// serial runs one job at a time: the earliest job that holds slots, or
// else the queue head, is the only one that may start tasks.
func (p *pass) serial(pool int, jobs []int32) {
	active := int32(-1)
	for _, a := range p.sc.poolRuns[pool] {
		j := int32(p.s.Allocs[a].Job)
		if p.s.Jobs[j].Slots == 0 {
			continue
		}
		if active < 0 || lessFIFO(&p.s.Jobs[j], &p.s.Jobs[active]) < 0 {
			active = j
		}
	}
	for _, j := range jobs {
		if p.impossible(j) {
			continue
		}
		if active < 0 && p.hasWaiting(j) {
			active = j
		}
		if j == active {
			p.runTasks(j)
			p.finish(j)
		} else if p.hasWaiting(j) {
			p.behind(j, active, ReasonSerial)
		}
	}
}

// priority walks jobs by priority (FIFO within a level). A task that does
// not fit may preempt less important preemptible tasks; if it still does
// not fit it blocks every job after it, except that with backfill on,
// preemptible jobs of lower priority may use slots that are idle now.
func (p *pass) priority(pool int, jobs []int32) {
	pl := &p.s.Pools[pool]
	var victims []int32
	var facts []victimFacts
	if pl.Preemption || pl.Backfill || p.sc.mf.qosPreempt {
		victims = p.vic.victimOrder(pool)
		facts = p.vic.facts
		if pl.Preemption {
			p.vic.indexVictims(facts, victimsByPriority)
			defer p.vic.index.stop(p)
		}
	}
	blocker := int32(-1)
	for _, j := range jobs {
		job := &p.s.Jobs[j]
		if blocker >= 0 && !pl.Backfill && p.sc.OmitBehind {
			break
		}
		if p.impossible(j) {
			continue
		}
		if blocker >= 0 {
			if pl.Backfill && job.Preemptible && job.Priority > p.s.Jobs[blocker].Priority {
				p.backfillIdle(j, blocker)
			} else if p.hasWaiting(j) {
				p.behind(j, blocker, ReasonBehind)
			}
			continue
		}
		qp, qosPre := qosOf(p.s, job)
		rule := victimRule{kind: victimsByPriority, prio: job.Priority, preemption: pl.Preemption,
			qos: qp, qosPreempt: qosPre, next: p.vic.next, facts: facts}
		for p.wants(j) {
			o := p.tryPlace(j, false)
			if o == failed && victims != nil {
				o = p.pre.preempt(j, victims, &rule)
			}
			if o == failed {
				if p.elastic.shrink(j) {
					continue
				}
				p.addPending(p.failReason(j))
				blocker = j
				break
			}
		}
		p.finish(j)
	}
}

// backfillIdle starts tasks of j on slots that are free right now, marked
// as backfill so that the blocked job can evict them later. Evicting does
// not give licenses back, so j may not take licenses the blocker needs.
func (p *pass) backfillIdle(j, blocker int32) {
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
			p.behind(j, blocker, ReasonBehind)
			break
		}
		p.sc.scratch = nodes[:0]
		p.commit(j, nodes, true)
	}
	p.finish(j)
}

// zeroSlot schedules zero-slot tasks apart from slot tasks: in priority
// order under the priority policy, else in FIFO order, each on the first
// node with room under its zero-slot limit.
func (p *pass) zeroSlot(pool int, byPriority bool) {
	jobs := p.sc.zeroJobs[pool]
	if len(jobs) == 0 {
		return
	}
	if byPriority {
		p.sortPriority(jobs)
	} else {
		p.sortFIFO(jobs)
	}
	p.zeroSlotJobs(jobs)
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
				p.addPending(Pending{Job: int(j), Reason: ReasonZeroSlotFull, Blocker: -1, At: -1})
				blocker = j
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
