package sched

import "slices"

// quotaPass holds per-project numbers for a quota pool, indexed by project.
// A parent's alloc and demand are the sums of its children's.
type quotaPass struct {
	alloc []int32 // slots held by counted (non-borrow) work, plus planned
	// fixed counts the part of alloc that cannot be preempted
	// (interactive or non-preemptible work), which must fit the quota.
	fixed []int32
	// borrowed counts slots held by borrowing work (OSMO's LOW), which
	// counts toward no quota but toward the limit.
	borrowed []int32
	// draining counts slots held by tasks being preempted (or the old
	// placement of a moved or resized task) until their checkpoints land:
	// GPUs still held, so they count toward the limit, and toward nothing
	// else (they are on their way out, as KAI leaves Releasing pods out of
	// a queue's allocation).
	draining []int32
	demand   []int32 // slots counted work wants running at once
	share    []int32 // fair share of the pool
	quota    []int32
	limit    []int32 // 0: none
	kids     [][]int32
	roots    []int32
	lo, hi   []int32 // each leaf's range in the sorted job list
	iCur     []int32 // next interactive candidate
	uCur     []int32 // next unattended candidate
	nInter   []int32 // interactive jobs at the start of each range
	// failReclaim is, per project, the smallest task that reclaim failed
	// for; larger tasks of the project are not tried again this pass.
	failReclaim []int32
	// limitNeed, when not 0, is how many slots of its project's own
	// preemptible work the current round's task must preempt to stay
	// within the limit (quotaPass.allowed); it may take no free slot.
	limitNeed int32
	// limitHold: the current round's task is within its project's limit
	// only once the project's draining tasks are gone, so it may be held
	// in their place but not start.
	limitHold bool
	// phase is the stage of rounds (see quotaOrder.next): what preemptible
	// work may grow its project to.
	phase roundPhase
	// pool is the pool being scheduled; cur is the project whose round it
	// is, and inter whether its job is interactive (quotaOrder.next).
	pool   int
	cur    int32
	inter  bool
	heap   []int32
	borrow []int32
	jobs   []int32
	// The victim list keeps each project's tasks together: blockEnd gives
	// each position's run end, blockStart/blockStop each project's run.
	blockEnd   []int32
	blockStart []int32
	blockStop  []int32
	next       []int32
	// lendStart/lendStop are each project's run of borrowing work, and
	// own the scratch list of a project's own candidates (displace).
	lendStart []int32
	lendStop  []int32
	own       []int32
}

// quotaOrder schedules a pool under project quotas (Run:ai): the most
// deprived project places one workload per round (quota_rounds.go).
// Interactive work runs only within its project's quota and may preempt
// its own project's unattended work; unattended work runs within quota,
// or over quota on spare slots, which projects share in proportion to
// their over-quota weight. A project below its quota reclaims from
// projects over theirs, never pushing one below its quota and never
// growing past its own fair share (reclaimPreempt). Borrowing work
// (OSMO's LOW) counts toward nothing, uses idle slots last, and is
// reclaimed first.
type quotaOrder struct {
	jobs []int32
	over bool // the last phase is over
}

func (o *quotaOrder) begin(p *pass, pool int, jobs []int32) {
	q := &p.sc.quota
	q.reset(p.s)
	p.sortQueue(pool, jobs, orderQuota)
	q.count(p, pool, jobs)
	capacity := int32(0)
	for _, gi := range p.st.poolGroups[pool] {
		capacity += p.st.groups[gi].size * int32(len(p.st.groups[gi].nodes))
	}
	q.divide(q.roots, capacity, p.s)
	o.jobs, o.over = jobs, false
	q.jobs, q.pool, q.phase, q.heap = jobs, pool, withinQuota, q.heap[:0]
	q.projects(p)
}

func (o *quotaOrder) end(p *pass) {
	// Work the rounds never reached (preemptible work kept for a phase
	// that found no idle slot) takes its turn here, in the queue's
	// order, before the borrowing work: the order the pool's queue is
	// shown in (Pending.Turn) is every project's work, then borrowing
	// work, whatever the rounds got to (docs/cli.md, POS).
	for _, j := range o.jobs {
		if !p.s.Jobs[j].Borrow && p.wants(j) {
			p.sc.turns.offer(j)
		}
	}
	p.sc.quota.borrowIdle(p)
	for _, j := range o.jobs {
		p.sc.quota.finish(p, j)
	}
}

// finish gives a reason to a job left waiting. Work held back for
// the over-share phase, which never ran because no slot was idle, waits
// for spare slots (no_spare), not for capacity.
func (q *quotaPass) finish(p *pass, j int32) {
	job := &p.s.Jobs[j]
	if !p.sc.pending[j] && p.wants(j) && p.sc.holds[j] == 0 && !job.Borrow &&
		job.Project >= 0 && job.Project < len(p.s.Projects) {
		q.pending(p, int32(job.Project), j, p.elastic.size(j))
		return
	}
	p.finish(j)
}

// quotaOrder sorts jobs by project, interactive first, then other
// non-preemptible work, borrowing last, then priority and submission.
func (p *pass) quotaOrder(a, b int32) int {
	ja, jb := &p.s.Jobs[a], &p.s.Jobs[b]
	switch {
	case ja.Project != jb.Project:
		return ja.Project - jb.Project
	case ja.Borrow != jb.Borrow:
		return boolOrder(ja.Borrow, jb.Borrow)
	case ja.Interactive != jb.Interactive:
		return boolOrder(jb.Interactive, ja.Interactive)
	case ja.Preemptible != jb.Preemptible:
		// Guaranteed work goes before the unattended work it may preempt,
		// or the unattended work would start only to be preempted.
		return boolOrder(ja.Preemptible, jb.Preemptible)
	case ja.Priority != jb.Priority:
		return ja.Priority - jb.Priority
	}
	return lessFIFO(ja, jb)
}

func boolOrder(a, b bool) int {
	if a == b {
		return 0
	}
	if a {
		return 1
	}
	return -1
}

func (q *quotaPass) reset(s *Snapshot) {
	n := len(s.Projects)
	q.alloc = resize(q.alloc, n)
	q.fixed = resize(q.fixed, n)
	q.borrowed = resize(q.borrowed, n)
	q.draining = resize(q.draining, n)
	q.demand = resize(q.demand, n)
	q.share = resize(q.share, n)
	q.quota = resize(q.quota, n)
	q.limit = resize(q.limit, n)
	q.lo = resize(q.lo, n)
	q.hi = resize(q.hi, n)
	q.iCur = resize(q.iCur, n)
	q.uCur = resize(q.uCur, n)
	q.nInter = resize(q.nInter, n)
	q.failReclaim = resize(q.failReclaim, n)
	q.kids = resizeLists(q.kids, n)
	q.roots = q.roots[:0]
	q.borrow = q.borrow[:0]
	for i := range s.Projects {
		pr := &s.Projects[i]
		q.quota[i] = int32(pr.Quota)
		q.limit[i] = int32(pr.Limit)
		if pr.Parent < 0 {
			q.roots = append(q.roots, int32(i))
		} else {
			q.kids[pr.Parent] = append(q.kids[pr.Parent], int32(i))
		}
	}
}

// count fills each project's demand, held slots and job ranges.
func (q *quotaPass) count(p *pass, pool int, jobs []int32) {
	for _, a := range p.sc.poolRuns[pool] {
		al := &p.s.Allocs[a]
		job := &p.s.Jobs[al.Job]
		if al.Preempting {
			q.add(p.s, q.draining, int32(job.Project), int32(Slots(al.Nodes)))
			continue
		}
		if job.Borrow {
			q.add(p.s, q.borrowed, int32(job.Project), int32(Slots(al.Nodes)))
			continue
		}
		q.add(p.s, q.alloc, int32(job.Project), int32(Slots(al.Nodes)))
		if job.Interactive || !job.Preemptible {
			q.add(p.s, q.fixed, int32(job.Project), int32(Slots(al.Nodes)))
		}
	}
	tasks := p.sc.probeCounts(p.s, pool)
	for i := 0; i < len(jobs); {
		pr := p.s.Jobs[jobs[i]].Project
		q.lo[pr] = int32(i)
		for ; i < len(jobs) && p.s.Jobs[jobs[i]].Project == pr; i++ {
			j := jobs[i]
			job := &p.s.Jobs[j]
			if job.Borrow {
				q.borrow = append(q.borrow, j)
				continue
			}
			if job.Interactive {
				q.nInter[pr]++
			}
			d := int32(min(job.MaxRunning, int(tasks[j])+job.Waiting) * job.Slots)
			q.add(p.s, q.demand, int32(pr), d)
		}
		q.hi[pr] = int32(i)
		q.iCur[pr] = q.lo[pr]
		q.uCur[pr] = q.lo[pr] + q.nInter[pr]
	}
	slices.SortFunc(q.borrow, func(a, b int32) int {
		ja, jb := &p.s.Jobs[a], &p.s.Jobs[b]
		if ja.Priority != jb.Priority {
			return ja.Priority - jb.Priority
		}
		return lessFIFO(ja, jb)
	})
}

// add adds v to a project's counter and every ancestor's.
func (q *quotaPass) add(s *Snapshot, c []int32, pr int32, v int32) {
	for pr >= 0 {
		c[pr] += v
		pr = int32(s.Projects[pr].Parent)
	}
}

// withinLimit reports whether a project and its ancestors may hold slots
// more now. The limit caps everything a project holds, borrowing work and
// tasks still draining included.
func (q *quotaPass) withinLimit(s *Snapshot, pr, slots int32) bool {
	for pr >= 0 {
		if q.limit[pr] > 0 && q.alloc[pr]+q.borrowed[pr]+q.draining[pr]+slots > q.limit[pr] {
			return false
		}
		pr = int32(s.Projects[pr].Parent)
	}
	return true
}

// overLimit is how many slots a project (or, if more, an ancestor) would
// hold past its limit with slots more once its draining tasks are gone:
// what preempting its own work must free.
func (q *quotaPass) overLimit(s *Snapshot, pr, slots int32) int32 {
	over := int32(0)
	for pr >= 0 {
		if q.limit[pr] > 0 {
			over = max(over, q.alloc[pr]+q.borrowed[pr]+slots-q.limit[pr])
		}
		pr = int32(s.Projects[pr].Parent)
	}
	return over
}
