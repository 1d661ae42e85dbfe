package sched

import "slices"

// fsQueue is a heap of jobs ordered by num[j] / (demand[j] × weight),
// lowest first, ties by submission order.
//
// Each entry carries a copy of everything less compares: on a queue of
// 100,000 jobs, reading the counters and the jobs (large structs all over
// memory) at every comparison was most of the heap's cost. Whoever
// changes num[j] for a job in the heap changes its entry's copy too.
type fsQueue struct {
	s      *Snapshot
	num    []int32
	demand []int32
	items  []fsItem
	// pos is each job's index in items, or -1; only tracked while
	// allocating, when evictions change keys of jobs inside the heap.
	pos   []int32
	track bool
	// share, when set (while allocating), puts jobs below their share
	// ahead of jobs at or above it: otherwise a victim at its share could
	// retake the slots just freed for the job that preempted it.
	share []int32
	// lists hold, while allocating, the jobs that hold no slots, outside
	// the heap (fsqueue_lists.go); listed counts those still in them.
	lists  [2]fsList
	listed int
}

// fsItem is one job in the heap with its keys.
type fsItem struct {
	j                  int32
	num, demand, share int32 // share: only read when fsQueue.share is set
	weight             float64
	submit, seq        int64
}

func (q *fsQueue) reset(s *Snapshot, num, demand []int32) {
	// At most every job is pushed: one allocation on a cold pass.
	q.s, q.num, q.demand, q.items = s, num, demand, slices.Grow(q.items[:0], len(s.Jobs))
	q.track = false
	q.share = nil
	q.lists[0].reset()
	q.lists[1].reset()
	q.listed = 0
}

// push adds job j before init.
func (q *fsQueue) push(j int32) { q.items = append(q.items, fsItem{j: j}) }

// top is the job that comes first.
func (q *fsQueue) top() int32 {
	if q.listed > 0 {
		return q.topListed()
	}
	return q.items[0].j
}

// init copies the keys of the pushed jobs and orders the heap.
func (q *fsQueue) init() {
	for i := range q.items {
		it := &q.items[i]
		job := &q.s.Jobs[it.j]
		it.num, it.demand = q.num[it.j], q.demand[it.j]
		if q.share != nil {
			it.share = q.share[it.j]
		}
		it.weight, it.submit, it.seq = job.Weight, job.Submit, job.Seq
	}
	for i := (len(q.items) - 2) / 4; i >= 0; i-- {
		q.down(i, len(q.items))
	}
}

// remove takes job j out of the queue.
func (q *fsQueue) remove(j int32) {
	if q.pos[j] == posListed {
		q.pos[j] = -1
		q.listed--
		return
	}
	i := int(q.pos[j])
	last := len(q.items) - 1
	q.swap(i, last)
	q.pos[j] = -1
	q.items = q.items[:last]
	if i < last {
		q.fix(i)
	}
}

// trackPositions starts keeping pos up to date for the current items.
func (q *fsQueue) trackPositions(n int) {
	q.ensurePos(n)
	q.track = true
	for i := range q.items {
		q.pos[q.items[i].j] = int32(i)
	}
}

// ensurePos sizes pos for n jobs, none in the queue.
func (q *fsQueue) ensurePos(n int) {
	if len(q.pos) < n {
		q.pos = make([]int32, n)
		for i := range q.pos {
			q.pos[i] = -1
		}
	}
}

func (q *fsQueue) clearPos() {
	for i := range q.items {
		q.pos[q.items[i].j] = -1
	}
	for k := range q.lists {
		for _, it := range q.lists[k].items {
			q.pos[it.j] = -1
		}
	}
	q.listed = 0
	q.track = false
}

func (q *fsQueue) swap(i, k int) {
	q.items[i], q.items[k] = q.items[k], q.items[i]
	if q.track {
		q.pos[q.items[i].j] = int32(i)
		q.pos[q.items[k].j] = int32(k)
	}
}

// fix restores heap order after the key at i changed either way.
func (q *fsQueue) fix(i int) {
	q.down(q.up(i), len(q.items))
}

func (q *fsQueue) Len() int { return len(q.items) + q.listed }

func (q *fsQueue) fixTop() { q.down(0, len(q.items)) }

func (q *fsQueue) popTop() {
	last := len(q.items) - 1
	q.swap(0, last)
	if q.track {
		q.pos[q.items[last].j] = -1
	}
	q.items = q.items[:last]
	q.down(0, last)
}

func (q *fsQueue) less(i, k int) bool { return q.lessItem(&q.items[i], &q.items[k]) }

func (q *fsQueue) lessItem(a, b *fsItem) bool {
	if q.share != nil {
		ua, ub := a.num < a.share, b.num < b.share
		if ua != ub {
			return ua
		}
	}
	// Compare num/(demand·weight) by cross-multiplying.
	l := float64(a.num) * float64(b.demand) * b.weight
	r := float64(b.num) * float64(a.demand) * a.weight
	if l != r {
		return l < r
	}
	// lessFIFO, reading the jobs only for the ID of a full tie.
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	if a.seq != b.seq {
		return a.seq < b.seq
	}
	return q.s.Jobs[a.j].ID < q.s.Jobs[b.j].ID
}

// The heap is 4-ary: half as deep as a binary one over 100,000 jobs, so a
// sift touches half as many entries (cache lines, on a heap of 4 MB). Its
// order is total (submission sequences differ), so the job on top, the
// only one read, is the same whatever the heap's shape.

// down restores heap order below position i of a heap of n entries.
func (q *fsQueue) down(i, n int) {
	for {
		first := 4*i + 1
		if first >= n {
			return
		}
		m := first
		for c := first + 1; c < first+4 && c < n; c++ {
			if q.less(c, m) {
				m = c
			}
		}
		if !q.less(m, i) {
			return
		}
		q.swap(i, m)
		i = m
	}
}

// up moves the entry at i up while it precedes its parent, and returns
// where it stopped.
func (q *fsQueue) up(i int) int {
	for i > 0 {
		parent := (i - 1) / 4
		if !q.less(i, parent) {
			break
		}
		q.swap(i, parent)
		i = parent
	}
	return i
}
