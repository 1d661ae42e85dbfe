package sched

// The rounds serve the most deprived project (the lowest held/fair
// share) one workload at a time until no project can place anything more,
// in three phases: every project grows up to its quota (as far as its
// fair share allows), then up to its fair share, then past it on the
// slots left. In one phase, a project placed first could take slots
// another's share needs, which that project would then reclaim in the
// next pass: a start/preempt cycle. Within-quota work goes before
// over-quota work for the same reason: reclaim may take over-quota slots
// back, so over-quota work must not take free slots that within-quota
// work of a less deprived project is waiting for.

// projects fills the deprivation heap with the projects that have
// jobs in the pool.
func (q *quotaPass) projects(p *pass) {
	for pr := range p.s.Projects {
		if q.hi[pr] > q.lo[pr] {
			q.heap = append(q.heap, int32(pr))
		}
	}
	heapify(q, len(q.heap))
}

// next returns the most deprived project's next workload, moving on to
// the next phase when no project can place more in this one. It leaves
// the project and whether the job is interactive in quotaPass.cur and
// inter, for the quota filter and the reclaim stage.
func (o *quotaOrder) next(p *pass) int32 {
	q := &p.sc.quota
	for !o.over {
		if len(q.heap) == 0 {
			if q.phase == overShare {
				o.over = true
				break
			}
			q.phase++
			if q.phase == overShare && p.st.groupsAvail(q.pool) == 0 {
				o.over = true // nothing is left to grow on
				break
			}
			q.projects(p)
			continue
		}
		pr := q.heap[0]
		j, interactive := q.candidate(p, pr)
		if j < 0 {
			q.popTop()
			continue
		}
		if !interactive && p.s.Jobs[j].Preemptible && q.alloc[pr]+int32(p.s.Jobs[j].Slots) > q.phaseCap(pr) {
			q.popTop() // the rest of its work waits for a later phase
			continue
		}
		q.cur, q.inter = pr, interactive
		p.sc.turns.offer(j)
		return j
	}
	return -1
}

// placed counts the task toward its project, and ends the round.
func (o *quotaOrder) placed(p *pass, j, slots int32) bool {
	q := &p.sc.quota
	q.add(p.s, q.alloc, q.cur, slots)
	if q.guaranteed(p.s, j) {
		q.add(p.s, q.fixed, q.cur, slots)
	}
	return false
}

// failed skips the job for the rest of the pass; the project may still
// place its next one.
func (o *quotaOrder) failed(p *pass, j int32) {
	q := &p.sc.quota
	if !p.sc.pending[j] {
		q.pending(p, q.cur, j, p.elastic.size(j))
	}
	if q.inter {
		q.iCur[q.cur]++
	} else {
		q.uCur[q.cur]++
	}
}

// done ranks the project again.
func (o *quotaOrder) done(p *pass, _ int32) {
	q := &p.sc.quota
	siftDown(q, 0, len(q.heap))
}

func (o *quotaOrder) rest() []int32 { return nil }

// offered lists the rounds' jobs at their first turn, then the borrowing
// work in the order borrowIdle tried it.
func (o *quotaOrder) offered(p *pass) []int32 { return p.sc.turns.offers }

// guaranteed reports work that must fit its project's quota: interactive
// work, or work that cannot be preempted.
func (q *quotaPass) guaranteed(s *Snapshot, j int32) bool {
	return q.inter || !s.Jobs[j].Preemptible
}

// quotaFilter admits a task of the current round's job while its project
// stays within its limit and, for guaranteed work, its quota (checked
// again after shrinking: next checked the first size), and while its
// licenses are free: neither preemption nor reclaim frees licenses. A
// task within the limit only once its project's draining tasks are gone
// is admitted to a hold, and one over it only because of its project's
// own preemptible work to preemption alone (quotaPass.allowed).
type quotaFilter struct{}

func (quotaFilter) admit(p *pass, j int32, again bool) admission {
	q := &p.sc.quota
	if again && !q.allowed(p, q.cur, j, q.inter) {
		return refuse
	}
	if !p.lic.licensesFit(j) {
		p.addPending(p.lic.licensePending(j))
		return refuse
	}
	switch {
	case q.limitNeed > 0:
		return admitPreemptOnly
	case q.limitHold:
		return admitHold
	}
	return admitTask
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

// candidate picks the project's next workload: interactive work first,
// only within quota; else unattended work, which must stay within quota
// unless it is preemptible. "Within quota" counts only the project's work
// that cannot be preempted, since its preemptible work makes way. Jobs that may not run get their reason here.
func (q *quotaPass) candidate(p *pass, pr int32) (int32, bool) {
	for q.iCur[pr] < q.lo[pr]+q.nInter[pr] {
		j := q.jobs[q.iCur[pr]]
		if ok := q.allowed(p, pr, j, true); ok {
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
		if ok := q.allowed(p, pr, j, false); ok {
			return j, false
		}
		q.uCur[pr]++
	}
	return -1, false
}

// allowed reports whether j may try to place a task now, recording
// why not when it may not.
func (q *quotaPass) allowed(p *pass, pr, j int32, interactive bool) bool {
	if !p.wants(j) {
		return false
	}
	job := &p.s.Jobs[j]
	pe := Pending{Job: int(j), Blocker: -1, Free: int(q.quota[pr] - q.fixed[pr]), At: -1}
	guaranteed := interactive || !job.Preemptible
	q.limitNeed, q.limitHold = 0, false
	for {
		slots := p.elastic.size(j)
		pe.Need = int(slots)
		switch need := q.overLimit(p.s, pr, slots); {
		case need > 0:
			// Work the project is entitled to may take the place of the
			// project's own preemptible work, which keeps it at its limit.
			if guaranteed && q.fixed[pr]+slots <= q.quota[pr] && need <= q.alloc[pr]-q.fixed[pr]+q.borrowed[pr] {
				q.limitNeed = need
				return true
			}
			pe.Reason = ReasonLimit
		case guaranteed && q.fixed[pr]+slots > q.quota[pr]:
			pe.Reason = ReasonOverQuota
		default:
			// Within the limit once the project's draining tasks are
			// gone; until then their GPUs count, and the task is held.
			q.limitHold = !q.withinLimit(p.s, pr, slots)
			return true
		}
		if !p.elastic.shrink(j) {
			break
		}
	}
	// Its project's round reached it and turned it away: that is its
	// turn, ahead of the borrowing work tried after the rounds
	// (Pending.Turn; it decides nothing).
	p.sc.turns.offer(j)
	p.addPending(pe)
	return false
}

// pending records why j's task of slots cannot start: no_spare when
// it would be work past its project's quota or fair share, which only idle
// slots serve, and too few are available; otherwise the room reason
// (no_capacity, fragmented, no_nodes), as when free slots are scattered.
func (q *quotaPass) pending(p *pass, pr, j, slots int32) {
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
func (q *quotaPass) borrowIdle(p *pass) {
	for _, j := range q.borrow {
		job := &p.s.Jobs[j]
		if p.wants(j) {
			p.sc.turns.offer(j)
		}
		for p.wants(j) {
			// An elastic task is tried at its size in this pass, as the
			// rounds try it: one over its project's limit at its full size
			// shrinks toward its min_slots, and what it borrows is what it
			// holds (it was checked, and counted, at its full size: one
			// whose min_slots fit the limit never started).
			slots := p.elastic.size(j)
			if !q.withinLimit(p.s, int32(job.Project), slots) {
				if p.elastic.shrink(j) {
					continue
				}
				p.addPending(Pending{Job: int(j), Reason: ReasonLimit, Blocker: -1, Need: int(slots), At: -1})
				break
			}
			if p.tryPlace(j, false) == failed {
				if p.elastic.shrink(j) {
					continue
				}
				p.addPending(p.failReason(j))
				break
			}
			q.add(p.s, q.borrowed, int32(job.Project), slots)
		}
	}
}

// victims orders the pool's tasks for preemption: borrowing work
// first, then projects furthest above their fair share, newest task first.
func (q *quotaPass) victims(p *pass, pool int) []int32 {
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
	q.lendStart = resize(q.lendStart, len(p.s.Projects))
	q.lendStop = resize(q.lendStop, len(p.s.Projects))
	for i := len(v) - 1; i >= 0; i-- {
		if i+1 < len(v) && facts[i].project == facts[i+1].project && facts[i].borrow == facts[i+1].borrow {
			q.blockEnd[i] = q.blockEnd[i+1]
		} else {
			q.blockEnd[i] = int32(i + 1)
		}
		pr := facts[i].project
		if !facts[i].borrow {
			q.blockStart[pr] = int32(i)
			q.blockStop[pr] = q.blockEnd[i]
		} else {
			q.lendStart[pr] = int32(i)
			q.lendStop[pr] = q.blockEnd[i]
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
