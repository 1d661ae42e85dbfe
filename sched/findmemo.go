package sched

// A long queue asks the same placement question many times on a cluster
// that has not moved: behind a blocked head (FIFO with EASY backfill, the
// priority policy's backfill of idle slots) tens of thousands of one-GPU
// jobs each search the nodes for a free slot, and on a full cluster each
// search fails. find is a function of the planning state and the request
// alone, so a request that failed on the state as it is now fails again:
// findMemo keeps the failed requests until the state next changes (any
// slot taken, drained or released bumps state.changes), and a repeated
// question is answered without the search. This is exact, not a
// heuristic: nothing is reused across a change of the state.

// findMemo lists the requests that found no placement on st while its
// change count was at.
type findMemo struct {
	st   *state
	at   uint64
	reqs []request
}

// findMemoMax bounds the list: requests differ in GPU type, size and
// placement rule, so a queue has few distinct ones; past the bound a
// request is simply searched.
const findMemoMax = 32

// find is p.st.find, answering at once a request that failed on the same
// state.
func (p *pass) find(r *request, out []NodeSlots) ([]NodeSlots, bool) {
	fm := &p.sc.finds
	if fm.st != p.st || fm.at != p.st.changes {
		fm.st, fm.at, fm.reqs = p.st, p.st.changes, fm.reqs[:0]
	}
	for i := range fm.reqs {
		if fm.reqs[i] == *r {
			return out, false
		}
	}
	nodes, ok := p.st.find(r, out)
	if !ok && len(fm.reqs) < findMemoMax {
		fm.reqs = append(fm.reqs, *r)
	}
	return nodes, ok
}
