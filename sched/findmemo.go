package sched

// A long queue asks the same placement question many times on a cluster
// that has not moved, or has only filled: behind a blocked head (FIFO with
// EASY backfill, the priority policy's backfill of idle slots) tens of
// thousands of one-GPU jobs each search the nodes for a free slot, and on
// a full cluster each search fails. findMemo keeps the failed requests and
// answers a repeated one without the search, while the answer cannot have
// changed:
//
//   - any request, while the state is the same: find is a function of
//     the planning state and the request alone, and state.changes counts
//     every change of the state's slots;
//   - a one-node request (no matching group has nodes smaller than the
//     task, so find never tries a gang), while no slot was given back:
//     such a request fits iff some matching node has that many free slots
//     (available ones, with useDrain), and while state.grew stays, slots
//     are only taken. (With every node at least the task's size, a mixed
//     gang could only use a node that holds the task alone.)
//
// This is exact, not a heuristic: the answer is the one the search gives.

// findMemo lists the requests that found no placement on st: reqs while
// its change count was at, mono (one-node requests) while its grew count
// was grewAt.
type findMemo struct {
	st         *state
	at, grewAt uint64
	reqs, mono []request
}

// findMemoMax bounds each list: requests differ in GPU type, size and
// placement rule, so a queue has few distinct ones; past the bound a
// request is simply searched.
const findMemoMax = 32

// find is st.find, answering at once a request that failed on a state
// where it must fail again.
func (fm *findMemo) find(st *state, r *request, out []NodeSlots) ([]NodeSlots, bool) {
	if fm.st != st {
		fm.st, fm.at, fm.grewAt, fm.reqs, fm.mono = st, st.changes, st.grew, fm.reqs[:0], fm.mono[:0]
	}
	if fm.at != st.changes {
		fm.at, fm.reqs = st.changes, fm.reqs[:0]
	}
	if fm.grewAt != st.grew {
		fm.grewAt, fm.mono = st.grew, fm.mono[:0]
	}
	for _, list := range [2][]request{fm.mono, fm.reqs} {
		for i := range list {
			if list[i] == *r {
				return out, false
			}
		}
	}
	nodes, ok := st.find(r, out)
	if !ok {
		if st.oneNodeOnly(r) {
			if len(fm.mono) < findMemoMax {
				fm.mono = append(fm.mono, *r)
			}
		} else if len(fm.reqs) < findMemoMax {
			fm.reqs = append(fm.reqs, *r)
		}
	}
	return nodes, ok
}

// oneNodeOnly reports whether every matching group of the request's pool
// has nodes of at least the task's size (groups of empty nodes aside).
func (st *state) oneNodeOnly(r *request) bool {
	for _, gi := range st.poolGroups[r.pool] {
		if g := &st.groups[gi]; g.size > 0 && g.size < r.slots && st.matches(g, r) {
			return false
		}
	}
	return true
}
