package sched

import "slices"

// profile is a pool's free-slot count over time, a step function: free[i]
// holds on [at[i], at[i+1]), and the last step lasts forever.
type profile struct {
	at   []int64
	free []int64
	ends []release
	// The steps of the last reservation, valid while hit: putting a job
	// back where it was lifted from (the usual case when compressing)
	// then skips both binary searches.
	hit             bool
	lastAt, lastEnd int64
	lastI, lastJ    int
}

// run is conservative backfilling (Mu'alem and Feitelson) over jobs, in
// queue order: every queued job holds a reservation at the earliest time the
// availability profile has room for it for its whole time limit, and a job
// starts now only when its reservation is now. Reservations carried from
// the previous pass (Job.Reserved, with Job.ReservedNodes) all enter the
// profile first; then each job, in the order of those reservations, is
// lifted out and put back at its earliest start, which compresses the
// schedule when tasks end early and never moves a reservation later, since
// every other promise stays in the profile. Jobs with no reservation yet
// are placed after all the promised ones, in queue order. On pools of
// single-slot nodes the profile counts slots (the textbook setting); on
// larger or mixed nodes it is kept per node (nodeprofile.go), and a
// reservation is a placement. Jobs that need licenses also need them free
// in one profile per license for their whole time limit. Tasks the pool
// started this pass before the queue was handed over (from firstStart on)
// come back at their limits.
func (g *conservativeGate) run(p *pass, pool int, jobs []int32, firstStart int) {
	g.buildProfile(p, pool, firstStart)
	p.lic.buildLicenseProfiles(jobs)
	p.nprof.buildNodeProfile(pool)
	reserved, last, depth := 0, int32(-1), conservativeDepth
	g.unreserved = -1
	if p.sc.nprof.on {
		depth = conservativeNodeDepth
	}
	for _, j := range g.compressionOrder(p, jobs) {
		if reserved >= depth && p.hasWaiting(j) && !p.impossible(j) {
			// Past the reservation depth jobs keep their place in the
			// queue but neither reserve nor start (as Slurm's
			// bf_max_job_test): planning each against a long schedule
			// costs a pass time that grows with the queue squared.
			p.behind(j, last, ReasonBehind)
			continue
		}
		mark := len(p.plan.Pending)
		g.place(p, j)
		for _, pe := range p.plan.Pending[mark:] {
			if pe.Job == int(j) && pe.Reason == ReasonReserved {
				reserved, last = reserved+1, j
				if pe.At == Never && g.unreserved < 0 {
					g.unreserved = j
				}
			}
		}
	}
}

// conservativeDepth caps how many jobs a conservative pass gives a
// reservation in the future on a counted pool, and conservativeNodeDepth
// on a pool that reserves per node, where each reservation searches the
// nodes' profiles (about 1 ms at 10,000 nodes). A trace queue rarely
// reaches the first (SDSC-SP2's longest is 376 jobs); without the second
// a 100,000-job queue on 10,000 multi-GPU nodes takes 16 s per pass
// instead of 0.15 s. Slurm's bf_max_job_test is the same kind of cap.
const (
	conservativeDepth     = 1000
	conservativeNodeDepth = 100
)

// promise is a reservation carried into this pass.
type promise struct {
	job int32
	at  int64
}

// compressionOrder enters every promise into the profiles and returns the
// jobs in the order they are placed again: promised jobs by their promised
// start (ties in queue order), then the others in queue order.
func (g *conservativeGate) compressionOrder(p *pass, jobs []int32) []int32 {
	proms := p.sc.proms[:0]
	p.sc.promisedNow = resize(p.sc.promisedNow, len(p.s.Jobs))
	for _, j := range jobs {
		at, dur, need, ok := g.promised(p, j)
		if !ok || (p.sc.nprof.on && !p.nprof.promiseNodes(j, at, dur, int32(need))) {
			continue
		}
		p.lic.reserveAll(j, at, dur, need, 1)
		p.sc.promisedNow[j] = true
		proms = append(proms, promise{job: j, at: at})
	}
	slices.SortStableFunc(proms, func(a, b promise) int { return cmp64(a.at, b.at) })
	p.sc.proms = proms
	order := p.sc.order[:0]
	for _, pr := range proms {
		order = append(order, pr.job)
	}
	for _, j := range jobs {
		if !p.sc.promisedNow[j] {
			order = append(order, j)
		}
	}
	p.sc.order = order
	return order
}

// place lifts j's promise, if any, out of the profiles and
// places its waiting tasks again at their earliest starts.
func (g *conservativeGate) place(p *pass, j int32) {
	if p.impossible(j) {
		return
	}
	np := &p.sc.nprof
	dur := jobDuration(&p.s.Jobs[j])
	if p.sc.promisedNow[j] {
		// As promised entered it (compressionOrder): lift it out to
		// place it again.
		at, need := max(p.s.Jobs[j].Reserved, p.s.Now), int64(p.elastic.minSize(j))
		p.lic.reserveAll(j, at, dur, need, -1)
		if np.on {
			np.lifted, np.liftedAt = p.nprof.unhold(j), at
		}
	}
	if g.unreserved >= 0 && dur == Never && p.wants(j) {
		np.lifted = nil
		g.untimedBehind(p, j)
		p.finish(j)
		return
	}
	for p.wants(j) {
		need := int64(p.elastic.size(j))
		at := g.earliestFor(p, j, int32(need), dur)
		np.lifted = nil // only the first task re-places the promise
		if at != p.s.Now && p.elastic.shrink(j) {
			continue // a smaller elastic task may start now
		}
		if at == Never {
			p.addPending(Pending{Job: int(j), Reason: ReasonReserved, Blocker: -1, Need: int(need), At: Never, Queued: true})
			break
		}
		p.lic.reserveAll(j, at, dur, need, 1)
		if np.on {
			p.nprof.hold(j, at, dur)
		}
		if at > p.s.Now {
			g.reservedPending(p, j, need, at)
			break
		}
		if !g.startReserved(p, j) {
			if p.elastic.shrink(j) {
				p.lic.reserveAll(j, at, dur, need, -1)
				if np.on {
					p.nprof.unhold(j)
				}
				continue
			}
			pe := p.failReason(j)
			pe.At = at
			p.addPending(pe)
			break
		}
	}
	p.finish(j)
}

// untimedBehind gives a reason to j, which has no time limit and comes
// after a job that got no reservation (g.unreserved): as under EASY
// (easyGate.backfill), it may not start, since it could hold that job's
// slots for ever, nor reserve, since its start would then be refused.
// A job with a time limit passes it: it holds it back at most by its
// limit once it could start, and from then it has a reservation. j
// waits would_delay when it fits now, behind the job when it could
// start later, and as before with no reservation when it never could.
func (g *conservativeGate) untimedBehind(p *pass, j int32) {
	need := int32(p.elastic.minSize(j))
	switch at := g.earliestFor(p, j, need, Never); at {
	case p.s.Now:
		wouldDelay(p, j, g.unreserved, true)
	case Never:
		p.addPending(Pending{Job: int(j), Reason: ReasonReserved, Blocker: -1, Need: int(need), At: Never, Queued: true})
	default:
		p.behind(j, g.unreserved, ReasonBehind)
	}
}

// earliestFor is the earliest start of one task of j: by the count and
// license profiles, and on the nodes too when the pool keeps them.
func (g *conservativeGate) earliestFor(p *pass, j int32, need int32, dur int64) int64 {
	if p.sc.nprof.on {
		return p.nprof.earliestNodes(j, need, dur)
	}
	return p.lic.earliestAll(j, int64(need), dur)
}

// startReserved starts a task whose reservation is now: on the nodes the
// node profile reserved, or by the ordinary placement on a counted pool.
func (g *conservativeGate) startReserved(p *pass, j int32) bool {
	np := &p.sc.nprof
	if !np.on {
		return p.tryPlace(j, false) != failed
	}
	h := &np.held[j]
	nodes := np.resv[h.lo:h.hi]
	for _, ns := range nodes {
		if p.st.avail(ns.Node) < ns.Slots || !p.lic.licensesFit(j) {
			return false // cannot happen: the profile starts from the state
		}
	}
	p.commit(j, nodes, false)
	return true
}

// reservedPending records a conservative reservation, with its nodes when
// the pool keeps a node profile so that the caller can carry them
// (Job.ReservedNodes).
func (g *conservativeGate) reservedPending(p *pass, j int32, need, at int64) {
	pe := Pending{Job: int(j), Reason: ReasonReserved, Blocker: -1, Need: int(need), At: at, Queued: true}
	if np := &p.sc.nprof; np.on {
		h := &np.held[j]
		lo := len(p.sc.arena)
		p.sc.arena = append(p.sc.arena, np.resv[h.lo:h.hi]...)
		pe.Nodes = p.sc.arena[lo:len(p.sc.arena):len(p.sc.arena)]
	}
	p.addPending(pe)
}

// promised returns the reservation a job carries from the previous pass,
// never earlier than now.
func (g *conservativeGate) promised(p *pass, j int32) (at, dur, need int64, ok bool) {
	job := &p.s.Jobs[j]
	if job.Reserved <= 0 || job.Reserved == Never || job.Slots == 0 || !p.wants(j) || p.impossible(j) {
		return 0, 0, 0, false
	}
	// An elastic job reserves for its smallest task: it only waits
	// once every size failed.
	return max(job.Reserved, p.s.Now), jobDuration(job), int64(p.elastic.minSize(j)), true
}

func jobDuration(job *Job) int64 {
	if job.TimeLimit > 0 {
		return job.TimeLimit
	}
	return Never
}

// buildProfile starts from the slots available now and adds each running
// task's slots back at the end of its time limit, and those of the tasks
// this plan started in the pool from firstStart on.
func (g *conservativeGate) buildProfile(p *pass, pool int, firstStart int) {
	pr := &p.sc.profile
	pr.hit = false
	pr.at = append(pr.at[:0], p.s.Now)
	pr.free = append(pr.free[:0], int64(p.st.groupsAvail(pool)))
	ends := pr.ends[:0]
	for _, a := range p.sc.poolRuns[pool] {
		al := &p.s.Allocs[a]
		if al.Preempting || p.sc.evicted[a] {
			continue
		}
		if nodes, ok := p.elastic.resizedTo(a); ok {
			// Grown ahead: it restarts now on its new placement (reserveHead).
			if lim := p.s.Jobs[al.Job].TimeLimit; lim > 0 {
				ends = append(ends, release{at: p.s.Now + lim, nodes: nodes})
			}
			continue
		}
		if end := al.End(p.s.Jobs); end != Never {
			ends = append(ends, release{at: max(end, p.s.Now), nodes: al.Nodes, from: a + 1})
		}
	}
	for _, st := range p.plan.Starts[firstStart:] {
		if lim := p.s.Jobs[st.Job].TimeLimit; lim > 0 {
			ends = append(ends, release{at: p.s.Now + lim, nodes: st.Nodes})
		}
	}
	p.sc.orders.sortReleases(pool*listKinds+listProfile, ends, len(p.s.Allocs), p.sc.allocs.newOf)
	pr.ends = ends
	for _, e := range ends {
		n := int64(p.s.releasable(e.nodes))
		last := len(pr.at) - 1
		if pr.at[last] == e.at {
			pr.free[last] += n
			continue
		}
		pr.at = append(pr.at, e.at)
		pr.free = append(pr.free, pr.free[last]+n)
	}
}

// earliest finds the first time >= now at which need slots stay free for
// dur seconds, or Never.
func (pr *profile) earliest(now, need, dur int64) int64 {
	n := len(pr.at)
	for s := 0; s < n; {
		if pr.free[s] < need {
			s++
			continue
		}
		start := pr.at[s]
		end := addTime(start, dur)
		ok := true
		for k := s + 1; k < n && pr.at[k] < end; k++ {
			if pr.free[k] < need {
				ok = false
				s = k + 1
				break
			}
		}
		if ok {
			return max(start, now)
		}
	}
	return Never
}

// reserve takes need slots from [at, at+dur).
func (pr *profile) reserve(at, dur, need int64) {
	end := addTime(at, dur)
	var i, j int
	if pr.hit && pr.lastAt == at && pr.lastEnd == end {
		// A job lifted out and put back where it was: the same steps.
		i, j = pr.lastI, pr.lastJ
	} else {
		i = pr.split(at)
		j = len(pr.at)
		if end != Never {
			j = pr.split(end)
		}
		pr.hit, pr.lastAt, pr.lastEnd, pr.lastI, pr.lastJ = true, at, end, i, j
	}
	for k := i; k < j; k++ {
		pr.free[k] -= need
	}
}

// split makes t a breakpoint and returns its index.
func (pr *profile) split(t int64) int {
	i, found := slices.BinarySearch(pr.at, t)
	if found {
		return i
	}
	// t lies inside step i-1 (t is never before the first breakpoint).
	pr.hit = false // indices after i move
	pr.at = slices.Insert(pr.at, i, t)
	pr.free = slices.Insert(pr.free, i, pr.free[i-1])
	return i
}

func addTime(t, d int64) int64 {
	if d == Never || t > Never-d {
		return Never
	}
	return t + d
}
