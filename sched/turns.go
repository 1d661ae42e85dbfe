package sched

// turns numbers each pool's pending jobs in the order its order stage
// offered them (Pending.Turn), so that a caller showing a queue shows the
// core's own order rather than one it derives again. It only reports:
// nothing in a pass reads a Turn.
type turns struct {
	// of is, per job, 0 until a dynamic order offers it, -1 from then,
	// and its turn once numberTurns has given it one.
	of []int32
	// offers lists the pool's jobs at their first turn (dynamic orders).
	offers []int32
}

// reset sizes the per-job scratch for a pass over n jobs.
func (t *turns) reset(n int) {
	t.of = resize(t.of, n)
	t.offers = t.offers[:0]
}

// offer records that a dynamic order gave j a turn; only the first
// counts.
func (t *turns) offer(j int32) {
	if t.of[j] == 0 {
		t.of[j] = -1
		t.offers = append(t.offers, j)
	}
}

// numberTurns gives the pool's pending entries, those from pendMark on,
// their Turn: first the jobs of offered, in its order, then the
// zero-slot jobs in theirs (they are tried after the walk), then the
// entries of jobs never offered, in the order their reasons were
// recorded. The turns go through the per-job array, so that the plan's
// entries are written once, in order.
func (p *pass) numberTurns(pendMark int, offered, zero []int32) {
	pend := p.plan.Pending[pendMark:]
	if len(pend) == 0 || p.turnsInOrder(pend, offered, zero) {
		return
	}
	p.turnsByJob(pend, offered, zero)
}

// turnsByJob is numberTurns for entries in any order.
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

// turnsInOrder numbers pend 1..n, and reports true, when its entries come
// in the order of their jobs in offered and then zero, as a static
// order's walk mostly records them: two sequential reads, where the
// general numbering reads and writes by job index. It reports false, the
// entries to be numbered again, at the first entry out of that order or
// of a job never offered.
func (p *pass) turnsInOrder(pend []Pending, offered, zero []int32) bool {
	lists := [2][]int32{offered, zero}
	l, k := 0, 0
	for i := range pend {
		j := int32(pend[i].Job)
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
		pend[i].Turn = int32(i + 1)
	}
	return true
}
