package master

import (
	"cmp"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// jobRoster keeps the snapshot's jobs as the simulator's Cluster does: a
// lifecycle.Roster of the jobs in the snapshot, in submission (id) order,
// whose entries are the snapshot's jobs themselves, updated in place
// when a job changes (its waiting count at the build, its reservation
// when a plan carries one, its entry after a PATCH) and each change
// given a new Rev by the Roster's rule; finished jobs leave it lazily.
// jobs maps its records back to the mirror.
//
// The core reads the entries while mu is released (stale.go), so only
// the pass writes the roster: handlers note what they changed in touched
// (an admitted job, a PATCH), which the next build applies. A job left
// out of the snapshot (mjob.entryOK false) is not on the roster; the
// reservation it carries waits in kept, as a restored one does until its
// job's entry is made. A change of the configuration or of the account
// tree (Master.cfgGen), which recomputes every entry anyway, rebuilds
// the roster in id order, as does the rare change a lazy roster cannot
// take: a job admitted behind a later one, or a PATCH that takes a job
// into or out of the snapshot.
type jobRoster struct {
	lifecycle.Roster
	// jobs is the mirror's job of each record in use.
	jobs []*mjob
	// free are records of jobs that left the roster, for reuse.
	free []int32
	// gen is the configuration generation the roster was built at; 0
	// before the first build.
	gen int
	// touched are the jobs admitted or PATCHed since the last build.
	touched []*mjob
	// kept holds the carried reservation of jobs not on the roster.
	kept map[*mjob]keptReservation
	// old and oldRes are rebuildRoster's scratch.
	old    []sched.Job
	oldRes []keptReservation
	// carried are the reservations the last plan carried, for the
	// entries at the next build (carriedReservations.keep).
	carried []carried
	// carriedOf[ri] is 1 + the index in carried of record ri's, 0 for
	// none: a plan may carry a job's twice (pending, then started).
	carriedOf []int32
	// outside are the jobs left out of the snapshot at their last entry
	// (heldOutside, outside.go).
	outside map[*mjob]struct{}
}

// carry notes reservation at, on nodes (copied), for record ri, for the
// next build; a later one for the same record replaces it.
func (r *jobRoster) carry(ri int32, at int64, nodes []sched.NodeSlots) {
	for int(ri) >= len(r.carriedOf) {
		r.carriedOf = append(r.carriedOf, 0)
	}
	c := carried{ri: ri, at: at, nodes: slices.Clone(nodes)}
	if k := r.carriedOf[ri]; k > 0 {
		r.carried[k-1] = c
		return
	}
	r.carried = append(r.carried, c)
	r.carriedOf[ri] = int32(len(r.carried))
}

// carried is a reservation carried for the job of roster record ri.
type carried struct {
	ri    int32
	at    int64
	nodes []sched.NodeSlots
}

// keptReservation is a reservation carried for a job not on the roster.
type keptReservation struct {
	at    int64
	nodes []sched.NodeSlots
}

// at is the job of snapshot index i.
func (r *jobRoster) at(i int) *mjob { return r.jobs[r.List()[i]] }

// index is job j's snapshot index, -1 when it is not in the snapshot.
func (r *jobRoster) index(j *mjob) int {
	if !j.rostered || r.jobs[j.ri] != j {
		return -1
	}
	return r.Index(j.ri)
}

// size is the number of jobs in the snapshot.
func (r *jobRoster) size() int { return len(r.List()) }

// touch notes that job j was admitted or changed, for the next build.
// Callers hold mu.
func (r *jobRoster) touch(j *mjob) { r.touched = append(r.touched, j) }

// add puts job j on the roster with entry e, under a new Rev unless e
// has one.
func (r *jobRoster) add(j *mjob, e sched.Job) {
	ri := int32(len(r.jobs))
	if n := len(r.free); n > 0 {
		ri, r.free = r.free[n-1], r.free[:n-1]
		r.jobs[ri] = j
	} else {
		r.jobs = append(r.jobs, j)
	}
	j.ri, j.rostered = ri, true
	if k, ok := r.kept[j]; ok {
		e.Reserved, e.ReservedNodes = k.at, k.nodes
		delete(r.kept, j)
	}
	r.Add(ri, e)
	if e.Rev == 0 { // new or made again: an entry kept keeps its Rev
		r.Revise(r.Entry(ri))
	}
}

// reservation is job j's carried reservation: the last plan's when it
// carried one the entry has yet to take, else its entry's, or kept's.
func (r *jobRoster) reservation(j *mjob) (int64, []sched.NodeSlots) {
	if r.index(j) >= 0 {
		if int(j.ri) < len(r.carriedOf) && r.carriedOf[j.ri] > 0 {
			c := r.carried[r.carriedOf[j.ri]-1]
			return c.at, c.nodes
		}
		e := r.Entry(j.ri)
		return e.Reserved, e.ReservedNodes
	}
	k := r.kept[j]
	return k.at, k.nodes
}

// keep carries reservation at, nodes for job j until it is on the roster.
func (r *jobRoster) keep(j *mjob, at int64, nodes []sched.NodeSlots) {
	if at == 0 && len(nodes) == 0 {
		delete(r.kept, j)
		return
	}
	if r.kept == nil {
		r.kept = map[*mjob]keptReservation{}
	}
	r.kept[j] = keptReservation{at: at, nodes: nodes}
}

// syncRoster brings the roster up to date with the mirror before a
// build: it gives the entries the reservations carried since the last
// one, drops the jobs that left the mirror, applies the touched
// jobs, and rebuilds it when the configuration changed. Callers hold
// passMu and mu.
func (pl *planner) syncRoster() {
	r := &pl.roster
	r.applyCarried()
	if pl.m.goneJobs > 0 {
		for _, ri := range r.List() {
			if r.jobs[ri].gone {
				r.Finished(ri)
			}
		}
		r.Compact(func(ri int32) bool { return !r.jobs[ri].gone }, func(ri int32) {
			r.jobs[ri].rostered = false
			r.jobs[ri] = nil
			r.free = append(r.free, ri)
		})
		for j := range r.kept {
			if j.gone {
				delete(r.kept, j)
			}
		}
	}
	pl.compactOrder()
	if r.gen != pl.m.cfgGen || !pl.applyTouched() {
		pl.rebuildRoster()
	}
	r.touched = r.touched[:0]
}

// applyTouched applies the touched jobs to the roster: a new or PATCHed
// entry replaces the job's in place, keeping its reservation, and an
// admitted job joins the end. It reports false, having changed what it
// could, when the roster must be rebuilt instead.
func (pl *planner) applyTouched() bool {
	r := &pl.roster
	slices.SortFunc(r.touched, func(a, b *mjob) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
	r.touched = slices.Compact(r.touched)
	for _, j := range r.touched {
		if j.gone || j.entryGen == pl.m.cfgGen {
			continue
		}
		e, ok := pl.entryOf(j)
		switch i := r.index(j); {
		case ok && i >= 0:
			old := r.Entry(j.ri)
			e.Reserved, e.ReservedNodes = old.Reserved, old.ReservedNodes
			*old = e
			r.Revise(old)
		case !ok && i < 0:
		case ok && (r.size() == 0 || r.at(r.size()-1).rec.ID < j.rec.ID):
			r.add(j, e)
		default:
			j.entryGen = 0 // the rebuild makes it again
			return false
		}
	}
	return true
}

// rebuildRoster puts every job of the mirror that belongs in the
// snapshot back on the roster in id order, with its entry made again
// where the configuration changed, each keeping its reservation.
func (pl *planner) rebuildRoster() {
	r := &pl.roster
	// A rebuild for an admission or a PATCH keeps most entries whole; one
	// for a change of the configuration makes them all again, keeping
	// only their reservations.
	whole := r.gen == pl.m.cfgGen
	r.gen = pl.m.cfgGen
	r.old = r.old[:0]
	r.oldRes = r.oldRes[:0]
	if whole {
		r.old = slices.Grow(r.old, len(r.jobs))[:len(r.jobs)]
	} else {
		r.oldRes = slices.Grow(r.oldRes, len(r.jobs))[:len(r.jobs)]
	}
	for i, ri := range r.List() {
		if e := &r.Entries()[i]; whole {
			r.old[ri] = *e
		} else {
			r.oldRes[ri] = keptReservation{at: e.Reserved, nodes: e.ReservedNodes}
		}
	}
	r.Reset()
	r.jobs, r.free = r.jobs[:0], r.free[:0]
	for _, j := range pl.m.order {
		had := j.rostered
		var prev keptReservation
		if had {
			j.rostered = false
			if whole && j.entryGen == pl.m.cfgGen {
				r.add(j, r.old[j.ri])
				continue
			}
			if whole {
				prev = keptReservation{at: r.old[j.ri].Reserved, nodes: r.old[j.ri].ReservedNodes}
			} else {
				prev = r.oldRes[j.ri]
			}
		}
		if !had && j.entryGen == pl.m.cfgGen && !j.entryOK {
			continue
		}
		e, ok := pl.entryOf(j)
		if had {
			if !ok {
				r.keep(j, prev.at, prev.nodes)
				continue
			}
			e.Reserved, e.ReservedNodes = prev.at, prev.nodes
		}
		if ok {
			r.add(j, e)
		}
	}
	clear(r.old) // drop the old entries' references
	clear(r.oldRes)
}

// entryOf makes job j's entry at the configuration now (snapJob), noting
// its pending reason for the read view and whether it grows.
func (pl *planner) entryOf(j *mjob) (sched.Job, bool) {
	e, ok := pl.snapJob(j)
	j.entryOK, j.entryGen = ok, pl.m.cfgGen
	pl.roster.noteOutside(j, ok)
	pl.m.pub.notePendingOf(j)
	pl.grew = pl.grew || (ok && lifecycle.Grows(&e))
	return e, ok
}

// setWaiting sets the waiting count of snapshot entry i.
func (r *jobRoster) setWaiting(i, waiting int) {
	e := &r.Entries()[i]
	if e.Waiting != waiting {
		e.Waiting = waiting
		r.Revise(e)
	}
}

// applyCarried gives the entries the reservations carried since the last
// build. The roster has not changed since: only a build changes it.
func (r *jobRoster) applyCarried() {
	for _, c := range r.carried {
		r.Reserve(r.Index(c.ri), c.at, c.nodes)
		r.carriedOf[c.ri] = 0
	}
	clear(r.carried) // drop the nodes
	r.carried = r.carried[:0]
}
