package sched

import "math"

// fairShare holds per-job numbers for a weighted fair-share pool, indexed
// by job. Slots are the unit throughout.
type fairShare struct {
	alloc  []int32 // slots held (not draining) plus slots planned this pass
	share  []int32 // the job's fair share of the pool
	demand []int32 // slots the job wants running at once
	q      fsQueue
	order  []int32 // waterFill's jobs in submission order
	// ordered: order holds the fill's jobs in strict submission order.
	ordered bool
}

func (f *fairShare) canGive(j, slots int32) bool { return f.alloc[j]-slots >= f.share[j] }

// took changes a job's allocation, as when one of its tasks is evicted
// tentatively, and re-sorts the job if it waits in the allocation heap.
func (f *fairShare) took(j, delta int32) {
	f.alloc[j] += delta
	if f.q.track {
		f.q.moved(j, delta)
	}
}

// shareOrder is the fair-share order: it divides the pool in proportion
// to demand × weight, capped at demand, handing out whole tasks to the
// most deprived job first (ties by submission order, waterFill), and then
// runs the same water-filling against the real nodes: the most deprived
// job places a task next, and is ranked again after it. With the
// sharePreempt stage, a job below its share may preempt preemptible tasks
// of jobs that stay at or above theirs.
type shareOrder struct{ jobs []int32 }

func (o *shareOrder) begin(p *pass, pool int, jobs []int32) {
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
	f.waterFill(p, pool, live, total)
	q := &f.q
	q.reset(p.s, f.alloc, f.demand)
	q.share = f.share
	q.ensurePos(len(p.s.Jobs))
	for _, j := range live {
		if p.wants(j) && p.s.Jobs[j].Weight > 0 {
			q.pos[j] = posWanted
		}
	}
	q.build(live, f.order, f.ordered)
	o.jobs = jobs
}

func (o *shareOrder) next(p *pass) int32 {
	if q := &p.sc.fs.q; q.Len() > 0 {
		j := q.top()
		p.sc.turns.offer(j)
		return j
	}
	return -1
}

// placed ranks j again. A victim whose allocation dropped may have moved
// above j, so j is found by position rather than assumed to be on top.
func (o *shareOrder) placed(p *pass, j, slots int32) bool {
	f := &p.sc.fs
	q := &f.q
	f.alloc[j] += slots
	if p.wants(j) {
		q.moved(j, slots)
	} else {
		q.remove(j)
	}
	return false
}

func (o *shareOrder) failed(p *pass, j int32) {
	p.sc.fs.q.remove(j)
	p.sc.fs.fail(p, j)
}

func (o *shareOrder) done(*pass, int32) {}
func (o *shareOrder) rest() []int32     { return nil }

func (o *shareOrder) offered(p *pass) []int32 { return p.sc.turns.offers }

func (o *shareOrder) end(p *pass) {
	p.sc.fs.q.clearPos()
	for _, j := range o.jobs {
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

// waterFill computes shares without looking at placement: the most
// deprived job (share / (demand × weight), then submission) takes its
// next task's slots (an elastic job's next min_slots, fillStep), until no
// job's next step fits in what is left or under its demand.
//
// Every job starts at share 0, where the deprivation of all jobs ties and
// submission order decides; a job that took a task ranks after every job
// still at 0. So the fill first walks the jobs once in submission order
// (firstRound), giving each its first task if it fits, and only the jobs
// that could take a second task go into the heap: a job whose next task
// is over its demand, or larger than what is left (which only shrinks),
// would be dropped when it came to the top, changing nothing. On a queue
// longer than the pool, the heap is then empty or nearly so.
func (f *fairShare) waterFill(p *pass, pool int, jobs []int32, capacity int32) {
	q := &f.q
	q.reset(p.s, f.share, f.demand)
	left, ok := f.firstRound(p, pool, jobs, capacity)
	if !ok {
		left = capacity
		for _, j := range jobs {
			if f.demand[j] > 0 && p.s.Jobs[j].Weight > 0 {
				q.push(j)
			}
		}
	}
	q.init()
	for q.Len() > 0 {
		j := q.top()
		step := fillStep(&p.s.Jobs[j], f.share[j], f.demand[j])
		if step == 0 || f.share[j]+step > f.demand[j] || step > left {
			q.popTop()
			continue
		}
		f.share[j] += step
		q.items[0].num += step
		left -= step
		q.fixTop()
	}
}

// firstRound gives each job of jobs with a demand its first task, in
// submission order, while it fits, pushes into the heap the jobs that may
// take more, and returns what is left. It reports false, having changed
// nothing, when the round is not the heap's: two jobs tie on submission
// (the heap would break the tie by its shape) or a weight is infinite
// (0 × ∞ makes the heap's comparison of two jobs at 0 NaN).
func (f *fairShare) firstRound(p *pass, pool int, jobs []int32, capacity int32) (int32, bool) {
	f.ordered = false
	order := f.order[:0]
	for _, j := range jobs {
		if w := p.s.Jobs[j].Weight; f.demand[j] > 0 && w > 0 {
			if math.IsInf(w, 1) {
				f.order = order
				return 0, false
			}
			order = append(order, j)
		}
	}
	f.order = order
	cmp := func(a, b int32) int { return lessFIFO(&p.s.Jobs[a], &p.s.Jobs[b]) }
	p.sc.orders.sort(pool*listKinds+listFSFirst, order, len(p.s.Jobs), p.sc.memo.jobNewOf(), cmp, nil)
	for i := 1; i < len(order); i++ {
		if cmp(order[i-1], order[i]) >= 0 {
			return 0, false
		}
	}
	f.ordered = true
	left := capacity
	for _, j := range order {
		if step := fillStep(&p.s.Jobs[j], 0, f.demand[j]); step <= f.demand[j] && step <= left {
			f.share[j] = step
			left -= step
		}
	}
	for _, j := range order {
		if step := fillStep(&p.s.Jobs[j], f.share[j], f.demand[j]); f.share[j] > 0 && step > 0 && f.share[j]+step <= f.demand[j] && step <= left {
			f.q.push(j)
		}
	}
	return left, true
}

func (f *fairShare) fail(p *pass, j int32) {
	// A job holding nothing whose share came to nothing (the jobs ahead
	// took the pool's slots at their task sizes) does not hold its share:
	// it waits for room.
	if f.alloc[j] > 0 && f.alloc[j] >= f.share[j] && p.lic.licensesFit(j) {
		job := &p.s.Jobs[j]
		p.addPending(Pending{Job: int(j), Reason: ReasonAboveShare, Blocker: -1,
			Need: job.Slots, Free: p.st.groupsAvail(job.Pool), At: -1})
		return
	}
	p.addPending(p.failReason(j))
}

// victims orders the pool's tasks as victims: jobs furthest above
// their share first, newest task first.
func (f *fairShare) victims(p *pass, pool int) []int32 {
	v := p.vic.sortVictims(pool, func(a int32, al *Alloc) victimKey {
		return victimKey{major: -int64(f.alloc[al.Job] - f.share[al.Job]), start: al.Start, a: a}
	})
	p.vic.next = resize(p.vic.next, len(v))
	p.vic.victimFactsOf(v)
	return v
}
