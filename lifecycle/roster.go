package lifecycle

import "github.com/allot-sched/allot/sched"

// Roster is the list of submitted jobs still queued or running, in
// submission order, kept side by side with their sched.Job entries so that
// a scheduling pass can use the entries as the snapshot's jobs directly.
//
// Rebuilding the snapshot's jobs for every pass costs O(queue) struct
// copies, which dominated long FCFS queues. The Roster instead keeps the
// entries up to date as jobs change (the driver updates them in place
// through Entry, Revise and Reserve: the Cluster in its transitions, the
// master at its builds, master/roster.go) and removes finished
// jobs lazily, shifting whichever side of the list is shorter: under FCFS
// the jobs that finish are the oldest, so removing them moves only the
// few entries in front of them.
//
// Both arrays are windows [off, off+n) of buffers that are reused: a window
// that reaches the end of its buffer slides back to the start when at least
// half the buffer is free in front, and the buffers only grow (allocate)
// when the live list itself outgrows them.
type Roster struct {
	ids  []int32     // buffer of job record indices
	jobs []sched.Job // buffer of snapshot entries, parallel to ids
	off  int
	n    int
	// pos[ji] is job record ji's absolute position in the buffers.
	pos []int32
	// dead counts finished jobs not yet removed; lo and hi bound their
	// positions.
	dead   int
	lo, hi int
	// rev is the last sched.Job.Rev given (Revise); NoRevs leaves the
	// entries without one, so that the core recomputes every job (tests
	// compare the two).
	rev    uint64
	NoRevs bool
}

// Revise gives a snapshot entry a new Rev after it changed, so that the
// core keeps its answers for the unchanged jobs only (sched.Job.Rev).
// Every change to an entry a driver hands the core must call it: it is
// the one rule of both drivers (the Cluster's and the master's).
func (r *Roster) Revise(en *sched.Job) {
	if r.NoRevs {
		return
	}
	r.rev++
	en.Rev = r.rev
}

// Reset empties the roster, keeping its buffers and its Revs, for a
// driver that puts its jobs back in another order or with other entries.
func (r *Roster) Reset() {
	for _, ji := range r.List() {
		r.pos[ji] = -1
	}
	clear(r.Entries())
	r.off, r.n, r.dead = 0, 0, 0
}

// add appends job record ji with its snapshot entry.
func (r *Roster) Add(ji int32, entry sched.Job) {
	if r.off+r.n == len(r.ids) {
		r.makeRoom()
	}
	at := r.off + r.n
	r.ids[at], r.jobs[at] = ji, entry
	for int(ji) >= len(r.pos) {
		r.pos = append(r.pos, -1)
	}
	r.pos[ji] = int32(at)
	r.n++
}

// makeRoom slides the window to the start of the buffers, or grows them.
func (r *Roster) makeRoom() {
	ids, jobs := r.ids, r.jobs
	if r.off == 0 || r.off < len(r.ids)/2 {
		size := 2*len(r.ids) + 64
		ids, jobs = make([]int32, size), make([]sched.Job, size)
	}
	copy(ids, r.ids[r.off:r.off+r.n])
	copy(jobs, r.jobs[r.off:r.off+r.n])
	clear(jobs[r.n:]) // drop references to names of finished jobs
	r.ids, r.jobs = ids, jobs
	r.lo -= r.off
	r.hi -= r.off
	r.off = 0
	for i, ji := range r.ids[:r.n] {
		r.pos[ji] = int32(i)
	}
}

// entry is job record ji's snapshot entry, for updates in place.
func (r *Roster) Entry(ji int32) *sched.Job { return &r.jobs[r.pos[ji]] }

// index is job record ji's index in the snapshot.
func (r *Roster) Index(ji int32) int { return int(r.pos[ji]) - r.off }

// list is the live list, in submission order; it may still hold finished
// jobs until the next compact.
func (r *Roster) List() []int32 { return r.ids[r.off : r.off+r.n] }

// entries is the snapshot's job list, parallel to list.
func (r *Roster) Entries() []sched.Job { return r.jobs[r.off : r.off+r.n] }

// finished marks job record ji for removal at the next compact.
func (r *Roster) Finished(ji int32) {
	p := int(r.pos[ji])
	if r.dead == 0 {
		r.lo, r.hi = p, p
	}
	r.dead++
	r.lo, r.hi = min(r.lo, p), max(r.hi, p)
}

// compact removes the finished jobs, shifting the shorter side, and calls
// gone for each removed record. alive tells live records from finished
// ones.
func (r *Roster) Compact(alive func(int32) bool, gone func(int32)) {
	if r.dead == 0 {
		return
	}
	end := r.off + r.n
	if r.hi-r.off < end-r.lo {
		// Fewer entries in front of the last finished job: move them back.
		w := r.hi
		for i := r.hi; i >= r.off; i-- {
			w = r.keep(i, w, alive, gone, -1)
		}
		r.n -= w + 1 - r.off
		r.off = w + 1
	} else {
		w := r.lo
		for i := r.lo; i < end; i++ {
			w = r.keep(i, w, alive, gone, 1)
		}
		r.n = w - r.off
	}
	r.dead = 0
}

// keep moves entry i to position w if its job is alive and returns the
// next free position in direction dir; a finished job is dropped.
func (r *Roster) keep(i, w int, alive func(int32) bool, gone func(int32), dir int) int {
	ji := r.ids[i]
	if !alive(ji) {
		r.pos[ji] = -1
		gone(ji)
		return w
	}
	if w != i {
		r.ids[w], r.jobs[w] = ji, r.jobs[i]
		r.pos[ji] = int32(w)
	}
	return w + dir
}
