package sched

// The gates: what the jobs queued behind a blocked job do (gateStage).

// openGate blocks nothing: a job that cannot start drops out of the order
// (fair share, quota) and the others go on.
type openGate struct{}

func (openGate) begin(*pass, int, []int32) bool { return false }
func (openGate) stop(*pass) bool                { return false }
func (openGate) admit(*pass, int32) bool        { return true }
func (openGate) block(*pass, int32, []int32) bool {
	return false
}

// behindGate is head-of-line blocking: the first job that cannot start
// records why, and every job after it waits behind it.
type behindGate struct {
	omit bool // honour Scheduler.OmitBehind
	head int32
}

func (g *behindGate) begin(*pass, int, []int32) bool { g.head = -1; return false }
func (g *behindGate) stop(p *pass) bool              { return g.head >= 0 && g.omit && p.sc.OmitBehind }

func (g *behindGate) admit(p *pass, j int32) bool {
	if g.head < 0 {
		return true
	}
	if p.hasWaiting(j) {
		p.behind(j, g.head, ReasonBehind)
	}
	return false
}

func (g *behindGate) block(p *pass, j int32, _ []int32) bool {
	p.addPending(p.failReason(j))
	g.head = j
	return false
}

// serialGate runs one job at a time: the earliest job that holds slots,
// or else the first job in the queue with waiting tasks, is the only one
// that may start tasks; the others wait behind it.
type serialGate struct{ active int32 }

func (g *serialGate) begin(p *pass, pool int, _ []int32) bool {
	g.active = -1
	for _, a := range p.sc.poolRuns[pool] {
		j := int32(p.s.Allocs[a].Job)
		if p.s.Jobs[j].Slots == 0 {
			continue
		}
		if g.active < 0 || lessFIFO(&p.s.Jobs[j], &p.s.Jobs[g.active]) < 0 {
			g.active = j
		}
	}
	return false
}

func (g *serialGate) stop(*pass) bool { return false }

func (g *serialGate) admit(p *pass, j int32) bool {
	if g.active < 0 && p.hasWaiting(j) {
		g.active = j
	}
	if j == g.active {
		return true
	}
	if p.hasWaiting(j) {
		p.behind(j, g.active, ReasonSerial)
	}
	return false
}

func (g *serialGate) block(p *pass, j int32, _ []int32) bool {
	p.addPending(p.failReason(j))
	return false
}

// idleGate is priority backfill: behind a blocked job, preemptible jobs
// of lower priority may start on slots idle now, as backfill that the
// blocked job may evict later (idleGate.backfill); the others wait behind it.
type idleGate struct{ head int32 }

func (g *idleGate) begin(*pass, int, []int32) bool { g.head = -1; return false }
func (g *idleGate) stop(*pass) bool                { return false }

func (g *idleGate) admit(p *pass, j int32) bool {
	if g.head < 0 {
		return true
	}
	if job := &p.s.Jobs[j]; job.Preemptible && job.Priority > p.s.Jobs[g.head].Priority {
		g.backfill(p, j, g.head)
	} else if p.hasWaiting(j) {
		p.behind(j, g.head, ReasonBehind)
	}
	return false
}

func (g *idleGate) block(p *pass, j int32, _ []int32) bool {
	p.addPending(p.failReason(j))
	g.head = j
	return false
}

// noRoom is why j, which may be backfilled past the blocked head, found
// no idle slots for a task: the room reason (no_capacity, fragmented).
// Saying behind would claim it may not pass the head, which it may.
// Backfill takes only idle slots, so draining ones do not count as free.
func (g *idleGate) noRoom(p *pass, j int32) Pending {
	pe := p.failReason(j)
	if pe.Reason != ReasonNoCapacity && pe.Reason != ReasonFragmented {
		return pe
	}
	job := &p.s.Jobs[j]
	free := 0
	for n := range p.s.Nodes {
		if nd := &p.s.Nodes[n]; nd.Pool == job.Pool && (job.GPU == "" || nd.GPU == job.GPU) {
			free += int(p.st.free[n])
		}
	}
	if free < pe.Need {
		pe.Reason = ReasonNoCapacity
	}
	pe.Free = free
	return pe
}

// easyGate is EASY backfilling (Mu'alem and Feitelson): the first job
// that cannot start becomes the head, with a reservation at the shadow
// time, the earliest moment the running tasks' time limits guarantee room
// for it (reserveHead). Any later job may start now if it ends by the
// shadow time or leaves room for the head then (easyGate.backfill).
// Reservations are placement-aware: on single-slot nodes this is exactly
// the textbook count rule.
type easyGate struct {
	// omit honours Scheduler.OmitBehind once no slot is left to backfill.
	omit       bool
	pool       int
	head       int32
	shadowAt   int64
	firstStart int
}

func (g *easyGate) begin(p *pass, pool int, _ []int32) bool {
	g.pool, g.head, g.shadowAt, g.firstStart = pool, -1, Never, len(p.plan.Starts)
	return false
}

func (g *easyGate) stop(p *pass) bool {
	return g.head >= 0 && g.omit && p.sc.OmitBehind && p.st.groupsAvail(g.pool) == 0
}

func (g *easyGate) admit(p *pass, j int32) bool {
	if g.head < 0 {
		return true
	}
	g.backfill(p, j, g.head, g.shadowAt)
	return false
}

func (g *easyGate) block(p *pass, j int32, _ []int32) bool {
	g.head = j
	g.shadowAt = g.reserveHead(p, g.pool, j, g.firstStart)
	g.headPending(p, j, g.pool, g.shadowAt)
	return false
}

// conservativeGate is conservative backfilling (pass.conservative): from
// the first job that cannot start on (or, with whole, from the queue's
// start) every job holds a reservation, and starts now only when its
// reservation is now.
type conservativeGate struct {
	whole      bool
	pool       int
	firstStart int
	// unreserved is the first job of the run that got no reservation
	// (a task it waits for has no time limit), or -1: a job without a
	// time limit does not pass it (untimedBehind).
	unreserved int32
}

func (g *conservativeGate) begin(p *pass, pool int, queue []int32) bool {
	g.pool, g.firstStart = pool, len(p.plan.Starts)
	if g.whole {
		g.run(p, pool, queue, g.firstStart)
	}
	return g.whole
}

func (g *conservativeGate) stop(*pass) bool         { return false }
func (g *conservativeGate) admit(*pass, int32) bool { return true }

func (g *conservativeGate) block(p *pass, _ int32, rest []int32) bool {
	g.run(p, g.pool, rest, g.firstStart)
	return true
}
