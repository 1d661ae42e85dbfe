package sched

import "math"

// While a fair-share pool allocates, its heap held every waiting job, and
// on a full cluster nearly every one comes to the top only to fail and be
// taken out: a removal from a heap of 100,000 entries each, most of a
// pass after a small change. Most of those jobs hold no slots (num 0), and
// among jobs at 0 the heap's order is plain submission order within each
// class (below their share, or not): 0 × demand × weight is 0 for every
// job, so the deprivations tie. So those jobs wait in two lists in
// submission order instead (lists[0] below their share, lists[1] the
// others), and the queue's top is the first of the heap's top and the
// lists' heads under the heap's own comparison: the same job the heap
// would give, since the order is total. A listed job leaves its list when
// it is taken out (marked, skipped at the head) or when its count moves
// (placed, or evicted from): it then goes into the heap with its new key.
// The lists are used only when every weight is finite (0 × ∞ is NaN) and
// the jobs' submission order has no tie (fairShare.order, firstRound's).

// posListed marks a job waiting in one of the lists; posWanted, while the
// queue is built, a job that goes into it.
const (
	posListed = -2
	posWanted = -3
)

// fsList is one list of jobs at 0 in submission order, with the keys the
// heap compares; at is where its live entries start.
type fsList struct {
	items []fsItem
	at    int
}

func (l *fsList) reset() { l.items, l.at = l.items[:0], 0 }

// build fills the queue for allocation with wanted, the jobs marked
// posWanted in pos (the others -1): into the lists the jobs at 0 when
// order (wanted's jobs among others, in strict submission order) may be
// used, else and for the rest into the heap. share must be set.
func (q *fsQueue) build(live []int32, order []int32, useOrder bool) {
	for _, j := range live {
		if q.pos[j] == posWanted && math.IsInf(q.s.Jobs[j].Weight, 1) {
			useOrder = false
		}
	}
	if useOrder {
		for _, j := range order {
			if q.pos[j] != posWanted || q.num[j] != 0 {
				continue
			}
			job := &q.s.Jobs[j]
			it := fsItem{j: j, demand: q.demand[j], share: q.share[j], weight: job.Weight, submit: job.Submit, seq: job.Seq}
			k := 1
			if it.num < it.share {
				k = 0
			}
			q.lists[k].items = append(q.lists[k].items, it)
			q.pos[j] = posListed
			q.listed++
		}
	}
	for _, j := range live {
		if q.pos[j] == posWanted {
			q.pos[j] = -1
			q.push(j)
		}
	}
	q.init()
	q.track = true
	for i := range q.items {
		q.pos[q.items[i].j] = int32(i)
	}
}

// topListed is top when some job is listed.
func (q *fsQueue) topListed() int32 {
	var best *fsItem
	if len(q.items) > 0 {
		best = &q.items[0]
	}
	for k := range q.lists {
		l := &q.lists[k]
		for l.at < len(l.items) && q.pos[l.items[l.at].j] != posListed {
			l.at++
		}
		if l.at < len(l.items) {
			if c := &l.items[l.at]; best == nil || q.lessItem(c, best) {
				best = c
			}
		}
	}
	return best.j
}

// moved re-ranks job j, whose count num[j] moved by delta (already
// applied to num): in the heap, its entry moves; a listed job goes into
// the heap.
func (q *fsQueue) moved(j, delta int32) {
	switch i := q.pos[j]; {
	case i >= 0:
		q.items[i].num += delta
		q.fix(int(i))
	case i == posListed:
		q.listed--
		job := &q.s.Jobs[j]
		q.items = append(q.items, fsItem{j: j, num: q.num[j], demand: q.demand[j], share: q.share[j],
			weight: job.Weight, submit: job.Submit, seq: job.Seq})
		last := len(q.items) - 1
		q.pos[j] = int32(last)
		q.fix(last)
	}
}
