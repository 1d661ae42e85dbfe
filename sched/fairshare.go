package sched

// fairShare holds per-job numbers for a weighted fair-share pool, indexed
// by job. Slots are the unit throughout.
type fairShare struct {
	alloc  []int32 // slots held (not draining) plus slots planned this pass
	share  []int32 // the job's fair share of the pool
	demand []int32 // slots the job wants running at once
	q      fsQueue
}

func (f *fairShare) canGive(j, slots int32) bool { return f.alloc[j]-slots >= f.share[j] }

// took changes a job's allocation, as when one of its tasks is evicted
// tentatively, and re-sorts the job if it waits in the allocation heap.
func (f *fairShare) took(j, delta int32) {
	f.alloc[j] += delta
	if f.q.track && f.q.pos[j] >= 0 {
		f.q.fix(int(f.q.pos[j]))
	}
}

// fairShare divides the pool in proportion to demand × weight, capped at
// demand, handing out whole tasks to the most deprived job first (ties by
// submission order), and then runs the same water-filling against the real
// nodes: the most deprived job places a task next; a job below its share
// may preempt preemptible tasks of jobs that stay at or above theirs.
func (p *pass) fairShare(pool int, jobs []int32) {
	f := &p.sc.fs
	n := len(p.s.Jobs)
	f.alloc = resize(f.alloc, n)
	f.share = resize(f.share, n)
	f.demand = resize(f.demand, n)
	tasks := p.sc.probeCounts(p.s, pool)
	total := int32(0)
	for _, gi := range p.st.poolGroups[pool] {
		total += p.st.groups[gi].size * int32(len(p.st.groups[gi].nodes))
	}
	live := p.sc.fsLive[:0]
	for _, a := range p.sc.poolRuns[pool] {
		// Held slots, not tasks × Job.Slots: elastic tasks may hold fewer.
		if al := &p.s.Allocs[a]; !al.Preempting {
			f.alloc[al.Job] += int32(Slots(al.Nodes))
		}
	}
	for _, j := range jobs {
		job := &p.s.Jobs[j]
		if p.impossible(j) {
			continue // never fits: takes no share and blocks nobody
		}
		f.demand[j] = int32(min(job.MaxRunning, int(tasks[j])+job.Waiting) * job.Slots)
		live = append(live, j)
	}
	p.sc.fsLive = live
	p.waterFill(live, total)
	p.allocateShares(pool, live)
	for _, j := range jobs {
		p.finish(j)
	}
}

// probeCounts counts every task of each job that holds slots in the pool,
// draining ones included, since those come back as waiting tasks.
func (sc *Scheduler) probeCounts(s *Snapshot, pool int) []int32 {
	sc.holdsAll = resize(sc.holdsAll, len(s.Jobs))
	for _, a := range sc.poolRuns[pool] {
		sc.holdsAll[s.Allocs[a].Job]++
	}
	return sc.holdsAll
}

// waterFill computes shares without looking at placement.
func (p *pass) waterFill(jobs []int32, capacity int32) {
	f := &p.sc.fs
	q := &f.q
	q.reset(p.s, f.share, f.demand)
	for _, j := range jobs {
		if f.demand[j] > 0 && p.s.Jobs[j].Weight > 0 {
			q.items = append(q.items, j)
		}
	}
	q.init()
	left := capacity
	for q.Len() > 0 {
		j := q.items[0]
		step := int32(p.s.Jobs[j].Slots)
		if f.share[j]+step > f.demand[j] || step > left {
			q.popTop()
			continue
		}
		f.share[j] += step
		left -= step
		q.fixTop()
	}
}

// allocateShares places tasks, most deprived job first.
func (p *pass) allocateShares(pool int, jobs []int32) {
	f := &p.sc.fs
	pl := &p.s.Pools[pool]
	victims := p.shareVictims(pool)
	if pl.Preemption {
		p.indexVictims(p.sc.vfacts, victimsAboveShare)
		defer p.sc.vindex.stop(p)
	}
	q := &f.q
	q.reset(p.s, f.alloc, f.demand)
	for _, j := range jobs {
		if p.wants(j) && p.s.Jobs[j].Weight > 0 {
			q.items = append(q.items, j)
		}
	}
	q.share = f.share
	q.init()
	q.trackPositions(len(p.s.Jobs))
	rule := victimRule{kind: victimsAboveShare, next: p.sc.victimNext, facts: p.sc.vfacts}
	for q.Len() > 0 {
		j := q.items[0]
		step := p.size(j)
		o := p.tryPlace(j, false)
		if o == failed && pl.Preemption && f.alloc[j]+step <= f.share[j] {
			o = p.preempt(j, victims, &rule)
		}
		if o == failed && p.shrink(j) {
			continue
		}
		// A victim whose allocation dropped may have moved above j, so j
		// is found by position rather than assumed to be on top.
		if o == failed {
			q.remove(j)
			p.shareFail(j)
			continue
		}
		f.alloc[j] += step
		if p.wants(j) {
			q.fix(int(q.pos[j]))
		} else {
			q.remove(j)
		}
	}
	q.clearPos()
}

func (p *pass) shareFail(j int32) {
	f := &p.sc.fs
	if f.alloc[j] >= f.share[j] && p.licensesFit(j) {
		job := &p.s.Jobs[j]
		p.addPending(Pending{Job: int(j), Reason: ReasonAboveShare, Blocker: -1,
			Need: job.Slots, Free: p.st.groupsAvail(job.Pool), At: -1})
		return
	}
	p.addPending(p.failReason(j))
}

// shareVictims orders the pool's tasks as victims: jobs furthest above
// their share first, newest task first.
func (p *pass) shareVictims(pool int) []int32 {
	f := &p.sc.fs
	v := p.sortVictims(pool, func(a int32, al *Alloc) victimKey {
		return victimKey{major: -int64(f.alloc[al.Job] - f.share[al.Job]), start: al.Start, a: a}
	})
	p.sc.victimNext = resize(p.sc.victimNext, len(v))
	p.victimFactsOf(v)
	return v
}

// fsQueue is a heap of jobs ordered by num[j] / (demand[j] × weight),
// lowest first, ties by submission order.
type fsQueue struct {
	s      *Snapshot
	num    []int32
	demand []int32
	items  []int32
	// pos is each job's index in items, or -1; only tracked while
	// allocating, when evictions change keys of jobs inside the heap.
	pos   []int32
	track bool
	// share, when set (while allocating), puts jobs below their share
	// ahead of jobs at or above it: otherwise a victim at its share could
	// retake the slots just freed for the job that preempted it.
	share []int32
	// key holds, per job in the heap, the fields less compares, copied by
	// init: reading them from the jobs themselves (large structs all over
	// memory) was most of the heap's cost on a queue of 100,000 jobs.
	key []fsKey
}

// fsKey is what fsQueue.less reads of a job besides its counters.
type fsKey struct {
	weight      float64
	submit, seq int64
}

func (q *fsQueue) reset(s *Snapshot, num, demand []int32) {
	q.s, q.num, q.demand, q.items = s, num, demand, q.items[:0]
	q.track = false
	q.share = nil
}

// remove takes job j out of the heap.
func (q *fsQueue) remove(j int32) {
	i := int(q.pos[j])
	last := len(q.items) - 1
	q.swap(i, last)
	q.pos[j] = -1
	q.items = q.items[:last]
	if i < last {
		q.fix(i)
	}
}

// trackPositions starts keeping pos up to date for the current items.
func (q *fsQueue) trackPositions(n int) {
	if len(q.pos) < n {
		q.pos = make([]int32, n)
		for i := range q.pos {
			q.pos[i] = -1
		}
	}
	q.track = true
	for i, j := range q.items {
		q.pos[j] = int32(i)
	}
}

func (q *fsQueue) clearPos() {
	for _, j := range q.items {
		q.pos[j] = -1
	}
	q.track = false
}

func (q *fsQueue) swap(i, k int) {
	q.items[i], q.items[k] = q.items[k], q.items[i]
	if q.track {
		q.pos[q.items[i]] = int32(i)
		q.pos[q.items[k]] = int32(k)
	}
}

// fix restores heap order after the key at i changed either way.
func (q *fsQueue) fix(i int) {
	siftDown(q, siftUp(q, i), len(q.items))
}

func (q *fsQueue) Len() int { return len(q.items) }

func (q *fsQueue) init() {
	if len(q.key) < len(q.s.Jobs) {
		q.key = make([]fsKey, len(q.s.Jobs))
	}
	for _, j := range q.items {
		job := &q.s.Jobs[j]
		q.key[j] = fsKey{weight: job.Weight, submit: job.Submit, seq: job.Seq}
	}
	heapify(q, len(q.items))
}

func (q *fsQueue) fixTop() { siftDown(q, 0, len(q.items)) }

func (q *fsQueue) popTop() {
	last := len(q.items) - 1
	q.swap(0, last)
	if q.track {
		q.pos[q.items[last]] = -1
	}
	q.items = q.items[:last]
	siftDown(q, 0, last)
}

func (q *fsQueue) less(i, k int) bool {
	a, b := q.items[i], q.items[k]
	if q.share != nil {
		ua, ub := q.num[a] < q.share[a], q.num[b] < q.share[b]
		if ua != ub {
			return ua
		}
	}
	// Compare num/(demand·weight) by cross-multiplying.
	ka, kb := &q.key[a], &q.key[b]
	l := float64(q.num[a]) * float64(q.demand[b]) * kb.weight
	r := float64(q.num[b]) * float64(q.demand[a]) * ka.weight
	if l != r {
		return l < r
	}
	// lessFIFO, reading the jobs only for the ID of a full tie.
	if ka.submit != kb.submit {
		return ka.submit < kb.submit
	}
	if ka.seq != kb.seq {
		return ka.seq < kb.seq
	}
	return q.s.Jobs[a].ID < q.s.Jobs[b].ID
}
