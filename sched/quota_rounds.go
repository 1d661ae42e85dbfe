package sched

// quotaRounds serves the most deprived project (the lowest held/fair share)
// one workload at a time until no project can place anything more.
func (p *pass) quotaRounds(pool int, jobs []int32) {
	q := &p.sc.quota
	q.jobs = jobs
	victims := p.quotaVictims(pool)
	q.next = resize(q.next, len(victims))
	q.heap = q.heap[:0]
	for pr := range p.s.Projects {
		if q.hi[pr] > q.lo[pr] {
			q.heap = append(q.heap, int32(pr))
		}
	}
	// Three phases: every project grows up to its quota (as far as its
	// fair share allows), then up to its fair share, then past it on the
	// slots left. In one phase, a project placed first could take slots
	// another's share needs, which that project would then reclaim in the
	// next pass: a start/preempt cycle. Within-quota work goes before
	// over-quota work for the same reason: reclaim may take over-quota
	// slots back, so over-quota work must not take free slots that
	// within-quota work of a less deprived project is waiting for.
	for ph := withinQuota; ph <= overShare; ph++ {
		q.phase = ph
		if ph == overShare && p.st.groupsAvail(pool) == 0 {
			return // nothing is left to grow on
		}
		if ph > withinQuota {
			for pr := range p.s.Projects {
				if q.hi[pr] > q.lo[pr] {
					q.heap = append(q.heap, int32(pr))
				}
			}
		}
		p.quotaPhase(victims)
	}
}

// roundPhase is a stage of quota rounds.
type roundPhase uint8

const (
	withinQuota roundPhase = iota // up to min(quota, fair share)
	withinShare                   // up to the fair share
	overShare                     // past it, on slots nobody's share needs
)

// phaseCap is what preemptible work may grow project pr to in this phase.
func (q *quotaPass) phaseCap(pr int32) int32 {
	switch q.phase {
	case withinQuota:
		return min(q.quota[pr], q.share[pr])
	case withinShare:
		return q.share[pr]
	}
	return 1 << 30
}

// quotaPhase runs rounds until no project in the heap can place more.
func (p *pass) quotaPhase(victims []int32) {
	q := &p.sc.quota
	heapify(q, len(q.heap))
	for len(q.heap) > 0 {
		pr := q.heap[0]
		j, interactive := p.quotaCandidate(pr)
		if j < 0 {
			q.popTop()
			continue
		}
		if !interactive && p.s.Jobs[j].Preemptible && q.alloc[pr]+int32(p.s.Jobs[j].Slots) > q.phaseCap(pr) {
			q.popTop() // the rest of its work waits for a later phase
			continue
		}
		if !p.quotaTry(pr, j, interactive, victims) {
			// Skip the job for the rest of the pass; the project may still
			// place its next one.
			if interactive {
				q.iCur[pr]++
			} else {
				q.uCur[pr]++
			}
		}
		siftDown(q, 0, len(q.heap))
	}
}

// quotaCandidate picks the project's next workload: interactive work first,
// only within quota; else unattended work, which must stay within quota
// unless it is preemptible. "Within quota" counts only the project's work
// that cannot be preempted, since its preemptible work makes way. Jobs that may not run get their reason here.
func (p *pass) quotaCandidate(pr int32) (int32, bool) {
	q := &p.sc.quota
	for q.iCur[pr] < q.lo[pr]+q.nInter[pr] {
		j := q.jobs[q.iCur[pr]]
		if ok := p.quotaAllowed(pr, j, true); ok {
			return j, true
		}
		q.iCur[pr]++
	}
	for q.uCur[pr] < q.hi[pr] {
		j := q.jobs[q.uCur[pr]]
		if p.s.Jobs[j].Borrow {
			q.uCur[pr]++
			continue
		}
		if ok := p.quotaAllowed(pr, j, false); ok {
			return j, false
		}
		q.uCur[pr]++
	}
	return -1, false
}

// quotaAllowed reports whether j may try to place a task now, recording
// why not when it may not.
func (p *pass) quotaAllowed(pr, j int32, interactive bool) bool {
	q := &p.sc.quota
	if !p.wants(j) {
		return false
	}
	job := &p.s.Jobs[j]
	pe := Pending{Job: int(j), Blocker: -1, Free: int(q.quota[pr] - q.fixed[pr]), At: -1}
	for {
		slots := p.elastic.size(j)
		pe.Need = int(slots)
		switch {
		case !q.withinLimit(p.s, pr, slots):
			pe.Reason = ReasonLimit
		case (interactive || !job.Preemptible) && q.fixed[pr]+slots > q.quota[pr]:
			pe.Reason = ReasonOverQuota
		default:
			return true
		}
		if !p.elastic.shrink(j) {
			break
		}
	}
	p.addPending(pe)
	return false
}

// quotaTry places one task of j, preempting if the rules allow it.
func (p *pass) quotaTry(pr, j int32, interactive bool, victims []int32) bool {
	q := &p.sc.quota
	job := &p.s.Jobs[j]
	slots := p.elastic.size(j)
	guaranteed := interactive || !job.Preemptible
	if !p.lic.licensesFit(j) {
		// Neither preemption nor reclaim frees licenses.
		p.addPending(p.lic.licensePending(j))
		return false
	}
	o := p.tryPlace(j, false)
	if o == failed && guaranteed && q.blockStop[pr] > q.blockStart[pr] {
		// Guaranteed work within quota makes room among its own
		// project's preemptible work first.
		own := victims[q.blockStart[pr]:q.blockStop[pr]]
		o = p.pre.preempt(j, own, &victimRule{kind: victimsOwnProject, project: pr})
	}
	room := min(q.quota[pr], q.share[pr])
	if o == failed && q.alloc[pr]+slots <= room && (q.failReclaim[pr] == 0 || slots < q.failReclaim[pr]) {
		o = p.pre.preempt(j, victims, &victimRule{kind: victimsReclaim, project: pr,
			blockEnd: q.blockEnd, next: q.next, facts: p.vic.facts})
		if o == failed {
			q.failReclaim[pr] = slots
		}
	}
	if o != failed {
		q.add(p.s, q.alloc, pr, slots)
		if guaranteed {
			q.add(p.s, q.fixed, pr, slots)
		}
		return true
	}
	if p.elastic.shrink(j) {
		return p.quotaAllowed(pr, j, interactive)
	}
	p.quotaPending(pr, j, slots)
	return false
}

// quotaPending records why j's task of slots cannot start: no_spare when
// it would be work past its project's quota or fair share, which only idle
// slots serve, and too few are available; otherwise the room reason
// (no_capacity, fragmented, no_nodes), as when free slots are scattered.
func (p *pass) quotaPending(pr, j, slots int32) {
	q := &p.sc.quota
	avail := p.st.groupsAvail(p.s.Jobs[j].Pool)
	over := q.alloc[pr]+slots > q.share[pr] || q.alloc[pr]+slots > q.quota[pr]
	if over && avail < int(slots) {
		p.addPending(Pending{Job: int(j), Reason: ReasonNoSpare, Blocker: -1, Need: int(slots), Free: avail, At: -1})
		return
	}
	p.addPending(p.failReason(j))
}

// borrowIdle places borrowing work on whatever slots are idle after every
// project had its turn.
func (p *pass) borrowIdle() {
	q := &p.sc.quota
	for _, j := range q.borrow {
		job := &p.s.Jobs[j]
		for p.wants(j) {
			if !q.withinLimit(p.s, int32(job.Project), int32(job.Slots)) {
				p.addPending(Pending{Job: int(j), Reason: ReasonLimit, Blocker: -1, Need: job.Slots, At: -1})
				break
			}
			if p.tryPlace(j, false) == failed {
				if p.elastic.shrink(j) {
					continue
				}
				p.addPending(p.failReason(j))
				break
			}
			q.add(p.s, q.borrowed, int32(job.Project), int32(job.Slots))
		}
	}
}

// quotaVictims orders the pool's tasks for preemption: borrowing work
// first, then projects furthest above their fair share, newest task first.
func (p *pass) quotaVictims(pool int) []int32 {
	q := &p.sc.quota
	now := p.s.Now
	// Furthest over first; each project's tasks together.
	v := p.vic.sortVictims(pool, func(a int32, al *Alloc) victimKey {
		job := &p.s.Jobs[al.Job]
		over := q.alloc[job.Project] - q.share[job.Project]
		if job.Borrow {
			// Borrowing work first, most borrowed first.
			over = 1<<30 + q.alloc[job.Project] + q.borrowed[job.Project] - q.quota[job.Project]
		}
		return victimKey{major: -int64(over), minor: int64(job.Project), lost: al.Lost(now), start: al.Start, a: a}
	})
	// The reclaim rule reads the list's facts; a quota pool's jobs have
	// projects in range, so each fact's project is its job's.
	facts := p.vic.victimFactsOf(v)
	q.blockEnd = resize(q.blockEnd, len(v))
	q.blockStart = resize(q.blockStart, len(p.s.Projects))
	q.blockStop = resize(q.blockStop, len(p.s.Projects))
	for i := len(v) - 1; i >= 0; i-- {
		if i+1 < len(v) && facts[i].project == facts[i+1].project && facts[i].borrow == facts[i+1].borrow {
			q.blockEnd[i] = q.blockEnd[i+1]
		} else {
			q.blockEnd[i] = int32(i + 1)
		}
		if !facts[i].borrow {
			pr := facts[i].project
			q.blockStart[pr] = int32(i)
			q.blockStop[pr] = q.blockEnd[i]
		}
	}
	return v
}

// borrowing reports whether project v holds more than its quota counting
// its borrowing work: only then is that work on slots it borrowed.
func (q *quotaPass) borrowing(v int32) bool {
	return q.alloc[v]+q.borrowed[v] > q.quota[v]
}

// reclaimable reports whether taking slots from project v keeps v and
// each of its ancestors outside pr's own branch at or above their quota.
func (q *quotaPass) reclaimable(s *Snapshot, v, pr, slots int32) bool {
	for v >= 0 {
		if q.isAncestor(s, v, pr) {
			return true
		}
		if q.alloc[v]-slots < q.quota[v] {
			return false
		}
		v = int32(s.Projects[v].Parent)
	}
	return true
}

// isAncestor reports whether a is pr or one of its ancestors.
func (q *quotaPass) isAncestor(s *Snapshot, a, pr int32) bool {
	for pr >= 0 {
		if pr == a {
			return true
		}
		pr = int32(s.Projects[pr].Parent)
	}
	return false
}

// The deprivation heap: lowest held/share first; a project with no share
// comes last; ties by held slots, then project index.
func (q *quotaPass) less(i, k int) bool {
	a, b := q.heap[i], q.heap[k]
	sa, sb := int64(q.share[a]), int64(q.share[b])
	aa, ab := int64(q.alloc[a]), int64(q.alloc[b])
	switch {
	case sa == 0 && sb != 0:
		return false
	case sb == 0 && sa != 0:
		return true
	case sa != 0 && aa*sb != ab*sa:
		return aa*sb < ab*sa
	case aa != ab:
		return aa < ab
	}
	return a < b
}

func (q *quotaPass) swap(i, k int) { q.heap[i], q.heap[k] = q.heap[k], q.heap[i] }

func (q *quotaPass) popTop() {
	last := len(q.heap) - 1
	q.swap(0, last)
	q.heap = q.heap[:last]
	siftDown(q, 0, last)
}
