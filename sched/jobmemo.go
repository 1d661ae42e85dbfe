package sched

import (
	"slices"
	"sort"
	"strings"
)

// Between two passes of a live master or a simulation most of a long
// queue does not change: a few jobs are submitted, a few end. A pass
// still re-checked every job (validateJob), re-sorted every queue and
// asked every job whether any node could ever hold it (impossible). The
// jobMemo keeps those answers from the previous pass for every job whose
// Job.Rev the caller kept, so that a pass redoes them only for the jobs
// that are new or changed, and merges those into the kept queue order.
//
// What is kept, and why it is still right:
//   - a job's validation, while what validateJob compares it with
//     (worldSig) is unchanged;
//   - whether the job can ever fit (with the no_nodes or gpu_type reason),
//     for jobs without licenses, while the node index was not rebuilt:
//     the answer depends only on the job and the node layout;
//   - each static queue order (FIFO, priority, quota), whose keys are
//     fields of the jobs alone, when the previous sort had no tie (ties
//     could be broken differently by a fresh sort).

// jobFacts is what a pass learned about one job.
type jobFacts struct {
	valid bool
	fit   uint8 // fitUnknown, fitSome or fitNever
	// reason, need and free are impossible's Pending for fitNever.
	reason     Reason
	need, free int32
}

const (
	fitUnknown uint8 = iota
	fitSome
	fitNever
)

// orderKind names a static queue order.
type orderKind uint8

const (
	orderNone orderKind = iota
	orderFIFO
	orderPriority
	orderQuota
)

// jobMemo is the Scheduler's memory of the previous pass's jobs. Arrays
// named prev are indexed by the previous pass's job indices, cur by this
// pass's; end swaps them.
type jobMemo struct {
	prevRevs, curRevs   []uint64
	prevFacts, curFacts []jobFacts
	// prevOrder[pool] is the pool's sorted queue in the previous pass
	// (its job indices), with prevKind its order; orderNone when none.
	prevOrder, curOrder [][]int32
	prevKind, curKind   []orderKind
	prevMax, curMax     uint64 // the largest Rev seen
	prevWorld, curWorld worldSig
	builds              uint64 // base.builds when prev's fit answers were made
	// oldOf[i] is job i's index in the previous pass when its Rev
	// matched, else -1; newOf is the inverse.
	oldOf, newOf []int32
	byRev        map[uint64]int32 // previous Revs, built only when needed
	// on: some job has a Rev (else the memo is idle); worldSame:
	// validations carry over.
	on, worldSame      bool
	fresh, merged, out []int32 // sortQueue's scratch
	keys               []queueKey
}

// worldSig is what validateJob reads besides the job.
type worldSig struct {
	pools                  []poolSig
	projects, qos, license int
	accountParents         []int
}

type poolSig struct {
	policy    Policy
	fairShare bool // a positive fair-share weight
	mode      FairShareMode
}

// memoMinJobs is the shortest job list the memo keeps answers for; tests
// lower it to exercise the memo on small snapshots.
var memoMinJobs = 512

// lookahead is how far match looks for a job's previous index past the
// last match before asking the map: as far as a run of removed jobs it
// expects.
const lookahead = 16

// begin matches the snapshot's jobs with the previous pass's by Rev and
// carries over what may be.
func (m *jobMemo) begin(s *Snapshot) {
	m.curKind = resize(m.curKind, len(s.Pools))
	for i := range m.curKind {
		m.curKind[i] = orderNone
	}
	m.curOrder = resizeLists(m.curOrder, len(s.Pools))
	m.curMax = 0
	// Without Revs there is nothing to keep: the memo stays out of the
	// pass (and its arrays unallocated). A caller that gives Revs gives
	// them to every job, so the first and last job tell: reading every
	// job's Rev to find out would cost a walk over 100,000 jobs on a pass
	// that keeps nothing. A short queue is cheap to sort and check again,
	// cheaper than matching it (a simulator's FIFO window, for one). Whether
	// the memo is on never changes a plan.
	n := len(s.Jobs)
	if m.on = n >= memoMinJobs && (s.Jobs[0].Rev != 0 || s.Jobs[n-1].Rev != 0); !m.on {
		return
	}
	m.curWorld.set(s)
	m.worldSame = m.prevWorld.equal(&m.curWorld)
	m.oldOf = resize(m.oldOf, n)
	m.newOf = resize(m.newOf, len(m.prevRevs))
	for i := range m.newOf {
		m.newOf[i] = -1
	}
	m.curRevs = resize(m.curRevs, n)
	m.curFacts = resize(m.curFacts, n)
	clear(m.byRev)
	o := 0 // where the next match is expected in the previous list
	for i := range s.Jobs {
		r := s.Jobs[i].Rev
		m.curRevs[i], m.oldOf[i] = r, -1
		m.curMax = max(m.curMax, r)
		k := m.find(r, o)
		if k < 0 {
			m.curFacts[i] = jobFacts{}
			continue
		}
		m.oldOf[i], m.newOf[k] = int32(k), int32(i)
		m.curFacts[i] = m.prevFacts[k]
		if !m.worldSame {
			m.curFacts[i].valid = false
		}
		o = k + 1
	}
}

// find returns the previous index of the job with Rev r, or -1: first
// near o, then, for a Rev not newer than every previous one, in the map.
func (m *jobMemo) find(r uint64, o int) int {
	if r == 0 || r > m.prevMax {
		return -1 // 0 is never kept; a larger Rev is new
	}
	for k := o; k < len(m.prevRevs) && k < o+lookahead; k++ {
		if m.prevRevs[k] == r {
			if m.newOf[k] >= 0 {
				return -1 // a Rev given twice: keep nothing for the second
			}
			return k
		}
	}
	if m.byRev == nil {
		m.byRev = make(map[uint64]int32, len(m.prevRevs))
	}
	if len(m.byRev) == 0 {
		for k, pr := range m.prevRevs {
			if pr != 0 {
				m.byRev[pr] = int32(k)
			}
		}
	}
	if k, ok := m.byRev[r]; ok && m.newOf[k] < 0 {
		return int(k)
	}
	return -1
}

// nodes tells the memo the node index's build count after update: fit
// answers carry over only from a pass on the same build.
func (m *jobMemo) nodes(builds uint64) {
	same := builds == m.builds
	m.builds = builds
	if !same && m.on {
		for i := range m.curFacts {
			m.curFacts[i].fit = fitUnknown
		}
	}
}

// end makes this pass's answers the previous ones for the next pass.
func (m *jobMemo) end() {
	if !m.on {
		m.drop()
		return
	}
	m.prevRevs, m.curRevs = m.curRevs, m.prevRevs
	m.prevFacts, m.curFacts = m.curFacts, m.prevFacts
	m.prevMax = m.curMax
	m.prevWorld, m.curWorld = m.curWorld, m.prevWorld
	m.prevOrder, m.curOrder = m.curOrder, m.prevOrder
	m.prevKind, m.curKind = m.curKind, m.prevKind
}

// drop forgets everything, as after a failed pass.
func (m *jobMemo) drop() {
	m.prevRevs = m.prevRevs[:0]
	m.prevMax = 0
	m.prevWorld.pools = nil
	for i := range m.prevKind {
		m.prevKind[i] = orderNone
	}
	clear(m.byRev)
}

// jobNewOf maps the previous pass's job indices to this pass's (-1:
// gone or changed), or is nil when the memo is off.
func (m *jobMemo) jobNewOf() []int32 {
	if !m.on {
		return nil
	}
	return m.newOf
}

// validated reports whether job i was validated in the previous pass
// against the same world; note records that it is valid now.
func (m *jobMemo) validated(i int) bool { return m.on && m.curFacts[i].valid }

func (m *jobMemo) note(i int) {
	if m.on {
		m.curFacts[i].valid = true
	}
}

func (w *worldSig) set(s *Snapshot) {
	w.pools = w.pools[:0]
	for i := range s.Pools {
		mf := &s.Pools[i].Multifactor
		w.pools = append(w.pools, poolSig{policy: s.Pools[i].Policy, fairShare: mf.FairShare != 0, mode: mf.FairShareMode})
	}
	w.projects, w.qos, w.license = len(s.Projects), len(s.QOS), len(s.Licenses)
	w.accountParents = w.accountParents[:0]
	for i := range s.Accounts {
		w.accountParents = append(w.accountParents, s.Accounts[i].Parent)
	}
}

func (w *worldSig) equal(o *worldSig) bool {
	return w.pools != nil && o.pools != nil && slices.Equal(w.pools, o.pools) && w.projects == o.projects &&
		w.qos == o.qos && w.license == o.license && slices.Equal(w.accountParents, o.accountParents)
}

// orderCmp is the comparison of a static queue order.
func (p *pass) orderCmp(kind orderKind) func(a, b int32) int {
	switch kind {
	case orderPriority:
		return func(a, b int32) int {
			ja, jb := &p.s.Jobs[a], &p.s.Jobs[b]
			if ja.Priority != jb.Priority {
				return ja.Priority - jb.Priority
			}
			return lessFIFO(ja, jb)
		}
	case orderQuota:
		return p.quotaOrder
	}
	return func(a, b int32) int { return lessFIFO(&p.s.Jobs[a], &p.s.Jobs[b]) }
}

// sortQueue sorts a pool's queue (its jobs in index order) by kind. When
// the previous pass sorted the pool the same way, without ties, it keeps
// that order for the jobs it matched and merges in the others, sorted:
// the result is the one sort would give, since the order is total.
func (p *pass) sortQueue(pool int, jobs []int32, kind orderKind) {
	m := &p.sc.memo
	cmp := p.orderCmp(kind)
	if !m.on {
		p.sortByKeys(jobs, kind) // no job has a Rev: nothing to keep
		return
	}
	if !p.mergeQueue(pool, jobs, kind, cmp) {
		p.sortByKeys(jobs, kind)
		for i := 1; i < len(jobs); i++ {
			if cmp(jobs[i-1], jobs[i]) == 0 {
				return // a tie: a later sort could break it otherwise
			}
		}
	}
	m.curKind[pool] = kind
	m.curOrder[pool] = append(m.curOrder[pool][:0], jobs...)
}

// mergeQueue builds jobs from the previous order and the new or changed
// jobs, or reports that it cannot.
func (p *pass) mergeQueue(pool int, jobs []int32, kind orderKind, cmp func(a, b int32) int) bool {
	m := &p.sc.memo
	if pool >= len(m.prevKind) || m.prevKind[pool] != kind {
		return false
	}
	fresh := m.fresh[:0]
	for _, j := range jobs {
		if m.oldOf[j] < 0 {
			fresh = append(fresh, j)
		}
	}
	m.fresh = fresh
	kept := m.merged[:0]
	for _, o := range m.prevOrder[pool] {
		if n := m.newOf[o]; n >= 0 {
			kept = append(kept, n)
		}
	}
	m.merged = kept
	if len(kept)+len(fresh) != len(jobs) {
		return false // a matched job moved between pools: cannot be, but sort
	}
	slices.SortFunc(fresh, cmp)
	out, at := m.out[:0], 0
	for i, j := range fresh {
		if i > 0 && cmp(fresh[i-1], j) == 0 {
			return false
		}
		// The first kept job after j; at only grows.
		k := at + sort.Search(len(kept)-at, func(x int) bool { return cmp(kept[at+x], j) >= 0 })
		if k < len(kept) && cmp(kept[k], j) == 0 {
			return false
		}
		out = append(append(out, kept[at:k]...), j)
		at = k
	}
	out = append(out, kept[at:]...)
	m.out = out
	copy(jobs, out)
	return true
}

// queueKey is a job's place in a static queue order: a, b, c, d
// ascending, then the job's ID. Sorting these instead of job indices
// reads each job once rather than at every comparison (a cache miss on a
// queue of 100,000). The keys start in the jobs' order and compare as
// orderCmp does, so the sort makes the same moves: the same result, ties
// included.
type queueKey struct {
	a, b, c, d int64
	j          int32
}

// sortByKeys sorts jobs as slices.SortFunc(jobs, p.orderCmp(kind)) does.
// A queue already in strictly increasing order (FIFO queues usually are:
// callers list jobs by submission) is left as it is, the one order a
// sort can give it; the check stops at the first job out of order.
func (p *pass) sortByKeys(jobs []int32, kind orderKind) {
	cmp := p.orderCmp(kind)
	sorted := true
	for i := 1; i < len(jobs) && sorted; i++ {
		sorted = cmp(jobs[i-1], jobs[i]) < 0
	}
	if sorted {
		return
	}
	keys := slices.Grow(p.sc.memo.keys[:0], len(jobs)) // one allocation on a cold pass
	for _, j := range jobs {
		job := &p.s.Jobs[j]
		k := queueKey{c: job.Submit, d: job.Seq, j: j}
		switch kind {
		case orderPriority:
			k.b = int64(job.Priority)
		case orderQuota:
			// quotaOrder: project, borrowing last, interactive first,
			// guaranteed before preemptible, then priority and FIFO.
			k.a = int64(job.Project)<<3 | int64(b2i(job.Borrow))<<2 | int64(b2i(!job.Interactive))<<1 |
				int64(b2i(job.Preemptible))
			k.b = int64(job.Priority)
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y queueKey) int {
		switch {
		case x.a != y.a:
			return cmp64(x.a, y.a)
		case x.b != y.b:
			return cmp64(x.b, y.b)
		case x.c != y.c:
			return cmp64(x.c, y.c)
		case x.d != y.d:
			return cmp64(x.d, y.d)
		}
		return strings.Compare(p.s.Jobs[x.j].ID, p.s.Jobs[y.j].ID)
	})
	for i := range keys {
		jobs[i] = keys[i].j
	}
	p.sc.memo.keys = keys
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
