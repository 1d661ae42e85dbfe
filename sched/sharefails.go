package sched

import "slices"

// On a fair-share pool that is full, or whose free slots are the wrong
// shape, the share order offers every job below its share in turn, and
// each one's preemption search (sharePreempt.try) walks the victim list
// and fails: every candidate's job would drop below its own share, or the
// candidates that may go do not free the right nodes. Hundreds of jobs
// ask the same few questions (a pool, a GPU type, a size), and each search
// walks thousands of candidates. shareFails keeps the requests whose
// search failed and answers a repeated one at once, while the answer
// cannot have changed.
//
// Why the answer is the same: the search (nodeSearch or evictInOrder, the
// gang replay included) reads the request (pool, GPU type, size,
// placement rule, topology), the pool's victim list and facts, the
// planning state's free and draining slots, the candidates' evicted and
// final marks, their jobs' allocations and shares (canGive) and the
// projects' preemption counts, and nothing else of the requesting job: a
// job may preempt only while below its share, so none of its own tasks
// could go, and its licenses are checked before the memo. Within a pass
// every change of what the search reads moves state.changes: evict and
// restore drain and undrain the victim's slots as they move its job's
// allocation and its project's count, a start takes slots before its
// job's allocation grows (shareOrder.placed), and moves and resizes take
// slots before their tasks are marked final; the victim list and the
// shares are fixed from the pool's begin on. So a request that failed
// while state.changes was c fails again while it is still c. A failed
// search rolls back every eviction it tried, which leaves the state as it
// was but moves the count, so the list is carried over such a search.
// The gang replay's choice (victimJobsIdle) reads the share heap, which
// moves without the state; the replay and the loop give the same answer
// (TestVictimIndexChangesNothing). TestShareFailsPlanAsFresh compares
// plans with and without the memo.

// shareFails lists the requests whose search failed while state.changes
// was at.
type shareFails struct {
	st   *state
	at   uint64
	reqs []request
	// off searches every time: the tests' reference.
	off bool
	// hits counts the searches answered, for the tests.
	hits int
}

// begin forgets every request: a pool's victims are new.
func (sf *shareFails) begin(st *state) {
	sf.st, sf.at, sf.reqs = st, st.changes, sf.reqs[:0]
}

// known reports whether r failed on a state where it must fail again.
func (sf *shareFails) known(st *state, r *request) bool {
	if sf.off || sf.st != st {
		return false
	}
	if sf.at != st.changes {
		sf.at, sf.reqs = st.changes, sf.reqs[:0]
		return false
	}
	if slices.Contains(sf.reqs, *r) {
		sf.hits++
		return true
	}
	return false
}

// failed records r, whose search began when st.changes was before and
// failed, rolling back what it tried.
func (sf *shareFails) failed(st *state, before uint64, r *request) {
	if sf.off || sf.st != st {
		return
	}
	if sf.at != before {
		sf.reqs = sf.reqs[:0]
	}
	sf.at = st.changes
	if len(sf.reqs) < findMemoMax {
		sf.reqs = append(sf.reqs, *r)
	}
}
