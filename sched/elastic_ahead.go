package sched

import "slices"

// Elastic growth in a priority-ordered pool. Spare-slot growth (expand)
// waits until no slot job of the pool waits for slots; in a priority
// pool LOW jobs nearly always do, so a shrunk NORMAL elastic task never
// grew while LOW work took every slot it freed. Run:ai and KAI count an
// elastic job's growth as part of its demand at its priority; so here a
// task's doubling is tried during the walk, just before the first job
// strictly less important than its own job gets its turn (growAhead):
// after every job at least as important had its turn, and only while none
// of those was left waiting for slots (the reasons of blocksExpansion),
// so that growth never takes slots an equal or more important job wants.
// It is the same doubling as on spare slots: one per task per pass, on
// free slots only (it preempts nothing), never for a task that is
// interactive, draining or younger than min_run_time; a more important
// job preempts the grown task as it would any other. What is not grown
// during the walk (nothing less important waits) still grows at its end
// on spare slots.

// ahead is growAhead's state for the pool being walked.
type ahead struct {
	pool    int
	scanned int  // plan.Pending entries already checked for blockers
	blocked bool // a job of the pool was left waiting for slots
	built   bool // growable holds the pool's candidates
	k       int  // growable[:k] have had their try
}

// beginPool resets the walk's growth state for pool, whose pending
// entries start at pendMark.
func (e *elasticPass) beginPool(pool, pendMark int) {
	e.ahead = ahead{pool: pool, scanned: pendMark}
	e.growable = e.growable[:0]
}

// growAhead grows, before a job of priority prio takes its turn, the
// pool's elastic tasks of jobs strictly more important, unless a job
// that had its turn is left waiting for slots.
func (e *elasticPass) growAhead(prio int) {
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
			if c := e.s.Jobs[e.s.Allocs[a].Job].Priority - e.s.Jobs[e.s.Allocs[b].Job].Priority; c != 0 {
				return c
			}
			return e.older(a, b)
		})
	}
	for ; h.k < len(e.growable); h.k++ {
		a := e.growable[h.k]
		if e.s.Jobs[e.s.Allocs[a].Job].Priority >= prio {
			return
		}
		if e.canGrow(a) {
			e.grow(a)
		}
	}
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
// from growing: it waits for slots (Reason.BlocksGrowth) and, in a
// priority pool, is at least as important as e, since growth there comes
// before the starts of strictly less important jobs.
func GrowthBlockedBy(pl *Pool, e, w *Job, r Reason) bool {
	return blocksExpansion(r) && (pl.Policy != PolicyPriority || w.Priority <= e.Priority)
}
