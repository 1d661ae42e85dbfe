package sched

import "slices"

// Drained nodes (Node.Drained) run their tasks on and take no new work:
// a driver shrinks one to what its tasks hold (lifecycle.CapDrained) and
// applies no preemption of a task with a part on it. So nothing there
// frees a slot a waiting job could use: a task that ends takes its slots
// with it (releasable, shrinkDrained, the node profile), a preempting
// task's slots are not draining (subtractAllocs), no task there is a
// victim (gone: the drivers would not preempt it), and a job that only the
// drained nodes' slots could hold waits for a resume (failReason), unless
// it is too big for the pool even with them resumed (FeasibleResumed).
// Nor does anything get a new placement there: consolidation has no free
// slot there to move a task to or make room in, and an elastic task grows
// only off one (fitsJob; regrow leaves its slots there held and drains
// them into nothing), so one that cannot double elsewhere stays as it is
// (TestDrainedNoNewPlacement).

// anyDrained reports whether a node of the pass's snapshot is drained,
// looked up once, by the first pass part that asks.
func (p *pass) anyDrained() bool {
	if p.drained == 0 {
		p.drained = 1
		for i := range p.s.Nodes {
			if p.s.Nodes[i].Drained {
				p.drained = 2
				break
			}
		}
	}
	return p.drained == 2
}

// onDrained reports whether allocation a has a part on a drained node:
// the drivers would not preempt it, and what it frees there is gone.
func (p *pass) onDrained(a int32) bool {
	if !p.anyDrained() {
		return false
	}
	for _, ns := range p.s.Allocs[a].Nodes {
		if p.s.Nodes[ns.Node].Drained {
			return true
		}
	}
	return false
}

// drainedSlots sums, over the drained nodes a task of r could use, the
// slots they have now (what their tasks hold, gone once those end) and
// the slots they would have resumed (Node.OwnSlots, at least those).
func (p *pass) drainedSlots(r *request) (held, own int) {
	if !p.anyDrained() {
		return 0, 0
	}
	for _, gi := range p.st.poolGroups[r.pool] {
		g := &p.st.groups[gi]
		if !p.st.matches(g, r) {
			continue
		}
		for _, n := range g.nodes {
			if nd := &p.s.Nodes[n]; nd.Drained {
				held += nd.Slots
				own += max(nd.OwnSlots, nd.Slots)
			}
		}
	}
	return held, own
}

// FeasibleResumed is Feasible with every drained node resumed, at its
// own slots: a job it rejects can never run in its pool as it is, drain
// or no drain, and is not told to wait for a resume.
func FeasibleResumed(s *Snapshot, job *Job) error {
	first := slices.IndexFunc(s.Nodes, func(n Node) bool { return n.Drained && n.OwnSlots > n.Slots })
	if first < 0 {
		return Feasible(s, job)
	}
	resumed := *s
	resumed.Nodes = slices.Clone(s.Nodes)
	for i := first; i < len(resumed.Nodes); i++ {
		if n := &resumed.Nodes[i]; n.Drained {
			n.Slots, n.Drained = max(n.OwnSlots, n.Slots), false
		}
	}
	return Feasible(&resumed, job)
}
