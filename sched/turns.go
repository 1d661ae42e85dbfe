package sched

// turns numbers each pool's pending jobs in the order its order stage
// offered them (Pending.Turn), so that a caller showing a queue shows the
// core's own order rather than one it derives again. It only reports:
// nothing in a pass reads a Turn.
type turns struct {
	// at is each job's index in Plan.Pending, valid where
	// Scheduler.pending is set.
	at []int32
	// offered marks the jobs a dynamic order has offered in this pass;
	// offers lists the pool's, at their first turn.
	offered []bool
	offers  []int32
}

// reset sizes the per-job scratch for a pass over n jobs.
func (t *turns) reset(n int) {
	t.at = resizeKeep(t.at, n) // read only where pending is set
	t.offered = resize(t.offered, n)
	t.offers = t.offers[:0]
}

// offer records that a dynamic order gave j a turn; only the first
// counts.
func (t *turns) offer(j int32) {
	if !t.offered[j] {
		t.offered[j] = true
		t.offers = append(t.offers, j)
	}
}

// numberTurns gives the pool's pending entries, those from pendMark on, their
// Turn: first the jobs of offered, in its order, then the zero-slot jobs
// in theirs (they are tried after the walk), then the entries of jobs
// never offered, in the order their reasons were recorded.
func (p *pass) numberTurns(pendMark int, offered, zero []int32) {
	pend := p.plan.Pending[pendMark:]
	if len(pend) == 0 {
		return
	}
	t := 0
	for _, list := range [...][]int32{offered, zero} {
		for _, j := range list {
			if !p.sc.pending[j] {
				continue
			}
			if pe := &p.plan.Pending[p.sc.turns.at[j]]; pe.Turn == 0 {
				t++
				pe.Turn = t
			}
		}
	}
	for i := range pend {
		if pend[i].Turn == 0 {
			t++
			pend[i].Turn = t
		}
	}
}
