package sched

import "slices"

// Elastic growth in a pool walked in order of importance: priority (the
// 1-99 number) and multifactor (the computed priority). Spare-slot
// growth (expand) waits until no slot job of the pool waits for slots;
// in such a pool LOW or low-priority jobs nearly always do, so a shrunk
// elastic task of a more important job never grew while they took every
// slot it freed. Run:ai and KAI count an elastic job's growth as part of
// its demand at its priority; so here a task's growth is tried during
// the walk, just before the first job strictly less important than its
// own job gets its turn (growAhead): after every job at least as
// important had its turn, and only while none of those was left waiting
// for slots (the reasons of blocksExpansion), so that growth never takes
// slots an equal or more important job wants. It is the same growth as
// on spare slots, one per task per pass, on free slots only (it preempts
// nothing), never for a task that is interactive, draining or younger
// than min_run_time, with one difference: where the doubling does not
// fit, the task grows to the largest size short of it that does. On
// spare slots a freed slot stays free until the doubling fits; here the
// less important jobs take each slot as it frees, so a task that waited
// for its whole doubling would never grow while they ran one-slot work.
// A more important job preempts the grown task as it would any other.
// What is not grown during the walk (nothing less important waits) still
// grows at its end on spare slots, doubling only.

// ahead is growAhead's state for the pool being walked.
type ahead struct {
	pool int
	// mf: the pool is ordered by multifactor priority, not Job.Priority.
	mf      bool
	scanned int  // plan.Pending entries already checked for blockers
	blocked bool // a job of the pool was left waiting for slots
	built   bool // growable holds the pool's candidates
	k       int  // growable[:k] have had their try
}

// beginPool resets the walk's growth state for pool, whose pending
// entries start at pendMark.
func (e *elasticPass) beginPool(pool, pendMark int) {
	e.ahead = ahead{pool: pool, scanned: pendMark, mf: e.s.Pools[pool].Policy == PolicyMultifactor}
	e.growable = e.growable[:0]
}

// growAhead grows, before job j takes its turn, the pool's elastic
// tasks of jobs strictly more important than j (rank), unless a job
// that had its turn is left waiting for slots.
func (e *elasticPass) growAhead(j int32) {
	h := &e.ahead
	if h.blocked || h.built && h.k == len(e.growable) {
		return // most pools have no task to grow
	}
	for ; h.scanned < len(e.p.plan.Pending); h.scanned++ {
		pe := &e.p.plan.Pending[h.scanned]
		if e.s.Jobs[pe.Job].Slots > 0 && blocksExpansion(pe.Reason) {
			h.blocked = true
			return
		}
	}
	if !h.built {
		e.candidates(h.pool)
		h.built = true
		slices.SortFunc(e.growable, func(a, b int32) int {
			if c := cmpDesc(e.rank(int32(e.s.Allocs[a].Job)), e.rank(int32(e.s.Allocs[b].Job))); c != 0 {
				return c
			}
			return e.older(a, b)
		})
	}
	turn := e.rank(j)
	for ; h.k < len(e.growable); h.k++ {
		a := e.growable[h.k]
		if e.rank(int32(e.s.Allocs[a].Job)) <= turn {
			return
		}
		if e.canGrow(a) {
			e.grow(a, true)
		}
	}
}

// rank is how important job j is in the walk's order, higher first: its
// multifactor priority in a multifactor pool, else its 1-99 priority
// negated (lower numbers are more important there).
func (e *elasticPass) rank(j int32) float64 {
	if e.ahead.mf {
		return e.p.sc.mf.prio[j]
	}
	return -float64(e.s.Jobs[j].Priority)
}

// candidates keeps in growable the pool's running tasks that may grow:
// all of them at the first call of the pool's pass, later those of the
// earlier list that still may (a task only loses the right during a
// pass: evicted, resized, or grown once).
func (e *elasticPass) candidates(pool int) {
	if !e.ahead.built || e.ahead.pool != pool {
		e.growable = e.growable[:0]
		for _, a := range e.p.sc.poolRuns[pool] {
			if e.canGrow(a) {
				e.growable = append(e.growable, a)
			}
		}
		return
	}
	e.growable = slices.DeleteFunc(e.growable, func(a int32) bool { return !e.canGrow(a) })
}

// older orders allocations oldest first, then by index.
func (e *elasticPass) older(a, b int32) int {
	if c := cmp64(e.s.Allocs[a].Start, e.s.Allocs[b].Start); c != 0 {
		return c
	}
	return int(a - b)
}

// GrowthBlockedBy reports whether job w of pool pl, left waiting for
// reason r, keeps the running elastic tasks of job e (of the same pool)
// from growing: it waits for slots (Reason.BlocksGrowth) and, in a pool
// that grows tasks ahead of strictly less important jobs (GrowsAhead),
// is at least as important as e. In a multifactor pool importance is
// the multifactor priority, higher first, which the caller gives as
// eMF and wMF (PriorityFactors); other pools ignore them.
func GrowthBlockedBy(pl *Pool, e, w *Job, r Reason, eMF, wMF float64) bool {
	if !blocksExpansion(r) {
		return false
	}
	switch pl.Policy {
	case PolicyPriority:
		return w.Priority <= e.Priority
	case PolicyMultifactor:
		return wMF >= eMF
	}
	return true
}

// GrowsAhead reports whether a pool of policy pl grows its elastic tasks
// before strictly less important jobs start (elastic_ahead.go): the
// pools walked in order of importance, priority and multifactor.
func GrowsAhead(pl Policy) bool { return pl == PolicyPriority || pl == PolicyMultifactor }
