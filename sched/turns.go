package sched

// turns numbers each pool's pending jobs in the order its order stage
// offered them (Pending.Turn), so that a caller showing a queue shows the
// core's own order rather than one it derives again. It only reports:
// nothing in a pass reads a Turn.
//
// addPending gives each entry, while it is being written, the turn it
// has if the pool's entries come in the order their jobs were offered,
// as a static order's walk records them; numberTurns checks that order
// on the compact list of the entries' jobs and numbers the entries again
// only when it does not hold. A pass over 100,000 pending jobs thus does
// not read its entries (11 MB) a second time.
type turns struct {
	// of is, per job, 0 until a dynamic order offers it, -1 from then,
	// and its turn once turnsByJob has given it one.
	of []int32
	// offers lists the pool's jobs at their first turn (dynamic orders).
	offers []int32
	// jobs is the job of each entry of Plan.Pending; mark is where the
	// pool's entries start.
	jobs []int32
	mark int
}

// reset sizes the per-job scratch for a pass over n jobs.
func (t *turns) reset(n int) {
	t.of = resize(t.of, n)
	t.offers = t.offers[:0]
	t.jobs = t.jobs[:0]
}

// begin starts a pool whose entries start at pendMark.
func (t *turns) begin(pendMark int) {
	t.offers = t.offers[:0]
	t.mark = pendMark
}

// add notes the entry pe, about to be appended as entry at of the plan,
// and gives it the turn it has if the entries come in offer order.
func (t *turns) add(pe *Pending, at int) {
	t.jobs = append(t.jobs, int32(pe.Job))
	pe.Turn = int32(at - t.mark + 1)
}

// offer records that a dynamic order gave j a turn; only the first
// counts.
func (t *turns) offer(j int32) {
	if t.of[j] == 0 {
		t.of[j] = -1
		t.offers = append(t.offers, j)
	}
}

// numberTurns makes the Turns of the pool's pending entries, those from
// pendMark on: first the jobs of offered, in its order, then the
// zero-slot jobs in theirs (they are tried after the walk), then the
// entries of jobs never offered, in the order their reasons were
// recorded.
func (p *pass) numberTurns(pendMark int, offered, zero []int32) {
	pend := p.plan.Pending[pendMark:]
	if len(pend) == 0 || p.inOfferOrder(p.sc.turns.jobs[pendMark:], offered, zero) {
		return // the turns addPending gave hold
	}
	p.turnsByJob(pend, offered, zero)
}

// turnsByJob numbers entries in any order.
func (p *pass) turnsByJob(pend []Pending, offered, zero []int32) {
	of, t := p.sc.turns.of, int32(0)
	for _, list := range [...][]int32{offered, zero} {
		for _, j := range list {
			if p.sc.pending[j] && of[j] <= 0 {
				t++
				of[j] = t
			}
		}
	}
	for i := range pend {
		n := of[pend[i].Job]
		if n <= 0 {
			t++
			n = t
		}
		pend[i].Turn = n
	}
}

// inOfferOrder reports whether jobs, the jobs of the pool's entries in
// their order, come in the order of offered and then zero; false at the
// first one out of that order or never offered.
func (p *pass) inOfferOrder(jobs, offered, zero []int32) bool {
	lists := [2][]int32{offered, zero}
	l, k := 0, 0
	for _, j := range jobs {
		for {
			for l < len(lists) && k == len(lists[l]) {
				l, k = l+1, 0
			}
			if l == len(lists) {
				return false
			}
			o := lists[l][k]
			k++
			if o == j {
				break
			}
			if p.sc.pending[o] {
				return false // a pending job offered before j has its entry after j's
			}
		}
	}
	return true
}
