package sched

// The preempt stages (preemptStage): each builds its victim list once per
// pool and reaches the preemption code through pass.preempt alone, with a
// victimRule that names its rule and guards.

// noPreempt never preempts.
type noPreempt struct{}

func (noPreempt) begin(*pass, int)                {}
func (noPreempt) end(*pass)                       {}
func (noPreempt) try(*pass, int32, int32) outcome { return failed }

// priorityPreempt evicts less important preemptible tasks (a larger
// Job.Priority), or with backfill only backfilled ones, or those of a
// lower QOS for a job whose QOS preempts.
type priorityPreempt struct {
	pool    int
	victims []int32
	facts   []victimFacts
	indexed bool
}

func (s *priorityPreempt) begin(p *pass, pool int) {
	pl := &p.s.Pools[pool]
	s.pool, s.victims, s.facts, s.indexed = pool, nil, nil, false
	if pl.Preemption || pl.Backfill || p.sc.mf.qosPreempt {
		s.victims = p.vic.victimOrder(pool)
		s.facts = p.vic.facts
		if pl.Preemption {
			p.vic.indexVictims(s.facts, victimsByPriority)
			s.indexed = true
		}
	}
}

func (s *priorityPreempt) end(p *pass) {
	if s.indexed {
		p.vic.index.stop(p)
	}
}

func (s *priorityPreempt) try(p *pass, j, _ int32) outcome {
	if s.victims == nil {
		return failed
	}
	job := &p.s.Jobs[j]
	qp, qosPre := qosOf(p.s, job)
	rule := victimRule{kind: victimsByPriority, prio: job.Priority, preemption: p.s.Pools[s.pool].Preemption,
		qos: qp, qosPreempt: qosPre, next: p.vic.next, facts: s.facts}
	return p.pre.preempt(j, s.victims, &rule)
}

// qosPreempt is the multifactor rule: with the pool's preemption, or a
// QOS that preempts, evict tasks of a lower QOS and lower computed
// priority. The victim list is built on first need.
type qosPreempt struct {
	pool    int
	victims []int32
}

func (s *qosPreempt) begin(_ *pass, pool int) { s.pool, s.victims = pool, nil }
func (s *qosPreempt) end(*pass)               {}

func (s *qosPreempt) try(p *pass, j, _ int32) outcome {
	qp, qosPre := qosOf(p.s, &p.s.Jobs[j])
	if !p.s.Pools[s.pool].Preemption && !qosPre {
		return failed
	}
	if s.victims == nil {
		s.victims = p.sc.mf.victims(p, s.pool)
	}
	rule := victimRule{kind: victimsByQOS, qos: qp, mfPrio: p.sc.mf.prio[j], next: p.vic.next}
	return p.pre.preempt(j, s.victims, &rule)
}

// sharePreempt is the fair-share rule: a job below its share may evict
// preemptible tasks of jobs that stay at or above theirs, furthest above
// first.
type sharePreempt struct {
	on      bool // the pool's preemption
	victims []int32
	fails   shareFails // failed searches (sharefails.go)
	shrink  []int32    // grown elastic victims (fairshare_shrink.go)
}

func (s *sharePreempt) begin(p *pass, pool int) {
	s.on = p.s.Pools[pool].Preemption
	s.victims = p.sc.fs.victims(p, pool)
	s.fails.begin(p.st)
	s.shrink = s.shrink[:0]
	if s.on {
		p.vic.indexVictims(p.vic.facts, victimsAboveShare)
		s.shrink = grownElastic(p, s.victims, s.shrink)
	}
}

func (s *sharePreempt) end(p *pass) {
	if s.on {
		p.vic.index.stop(p)
	}
}

func (s *sharePreempt) try(p *pass, j, slots int32) outcome {
	f := &p.sc.fs
	if !s.on || f.alloc[j]+slots > f.share[j] {
		return failed
	}
	if !p.lic.licensesFit(j) {
		return failed // as preempt: the search depends on the job here alone
	}
	r := p.request(j, true)
	if s.fails.known(p.st, &r) {
		return s.shrinkFor(p, j)
	}
	before := p.st.changes
	rule := victimRule{kind: victimsAboveShare, next: p.vic.next, facts: p.vic.facts}
	o := p.pre.preempt(j, s.victims, &rule)
	if o == failed {
		s.fails.failed(p.st, before, &r)
		o = s.shrinkFor(p, j) // after the memo: a shrink moves the state
	}
	return o
}

// reclaimPreempt is the quota rule: guaranteed work within quota first
// shrinks a grown elastic task of its own project's preemptible work, or
// else evicts that work (quota_shrink.go); then a project below its
// quota and fair share reclaims from borrowing work and from projects
// over their quota, never pushing one below it (quotaPass.reclaimable),
// and where no whole task may go, shrinks a grown elastic one
// (quota_shrink.go).
type reclaimPreempt struct {
	victims []int32
	shrink  []int32 // grown elastic victims
}

func (s *reclaimPreempt) begin(p *pass, pool int) {
	q := &p.sc.quota
	s.victims = p.sc.quota.victims(p, pool)
	q.next = resize(q.next, len(s.victims))
	s.shrink = grownElastic(p, s.victims, s.shrink)
}

func (s *reclaimPreempt) end(*pass) {}

func (s *reclaimPreempt) try(p *pass, j, slots int32) outcome {
	q := &p.sc.quota
	pr := q.cur
	if q.limitNeed > 0 {
		return s.displace(p, j, slots)
	}
	o := failed
	if q.guaranteed(p.s, j) && q.blockStop[pr] > q.blockStart[pr] {
		if o = s.shrinkOwn(p, j, pr, 0); o == failed {
			own := s.victims[q.blockStart[pr]:q.blockStop[pr]]
			o = p.pre.preempt(j, own, &victimRule{kind: victimsOwnProject, project: pr})
		}
	}
	room := min(q.quota[pr], q.share[pr])
	if o == failed && q.alloc[pr]+slots <= room && (q.failReclaim[pr] == 0 || slots < q.failReclaim[pr]) {
		o = p.pre.preempt(j, s.victims, &victimRule{kind: victimsReclaim, project: pr,
			blockEnd: q.blockEnd, next: q.next, facts: p.vic.facts})
		if o == failed {
			o = s.shrinkFor(p, j, pr)
		}
		if o == failed {
			q.failReclaim[pr] = slots
		}
	}
	return o
}

// displace places a task of j that is over its project's limit by
// preempting at least q.limitNeed slots of the project's own preemptible
// work (its borrowing work first, as reclaim takes it), and only that:
// another project's work never makes room past a limit, and idle slots
// do not lower the project's total, so the victims are taken even where
// the task could be placed without them. The victims' slots count until
// their checkpoints land, so the task is held until then (pass.hold).
// Where the project runs a grown elastic task, its borrowing work goes
// first, then that task gives back at least what the limit asks
// (shrinkOwn), and only then may whole tasks of the project go.
func (s *reclaimPreempt) displace(p *pass, j, slots int32) outcome {
	q := &p.sc.quota
	pr := q.cur
	rule := victimRule{kind: victimsOwnProject, project: pr}
	o := failed
	if s.grownOwn(p, pr) {
		if lend := s.victims[q.lendStart[pr]:q.lendStop[pr]]; len(lend) > 0 {
			o = p.pre.preemptFreeing(j, lend, &rule, q.limitNeed)
		}
		if o == failed {
			o = s.shrinkOwn(p, j, pr, q.limitNeed)
		}
	}
	q.own = append(q.own[:0], s.victims[q.lendStart[pr]:q.lendStop[pr]]...)
	q.own = append(q.own, s.victims[q.blockStart[pr]:q.blockStop[pr]]...)
	if o == failed && len(q.own) > 0 {
		o = p.pre.preemptFreeing(j, q.own, &rule, q.limitNeed)
	}
	if o == failed {
		p.addPending(Pending{Job: int(j), Reason: ReasonLimit, Blocker: -1, Need: int(slots),
			Free: int(q.quota[pr] - q.fixed[pr]), At: -1})
	}
	return o
}
