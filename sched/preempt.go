package sched

// preemptor is the preemption search: it evicts victims tentatively in a
// statement (stmt), rolls back or trims the statement, and commits what
// stays (preempt). It owns the statement and the scratch of the searches:
// nodeSearch's bids (nscan), the indexed search's heap stack, a gang's
// replay (gscan, gangPos, taken) and minimize's per-node need. It reads
// the snapshot, and the candidates' verdicts through the pass's victim
// lists (vic); it writes the planning state's drains, the Scheduler's
// evicted and final marks (telling consolidation, whose kept facts
// depend on them), the plan's preemptions, and commits through the pass.
type preemptor struct {
	p *pass
	// s and st are the pass's snapshot and planning state.
	s    *Snapshot
	st   *state
	vic  *victimLists
	stmt []int32
	// need is minimize's per-node scratch, all zero between uses.
	need      []int32
	nscan     nodeScan
	heapStack []int32
	// gscan, gangPos and taken are gangReplay's (preempt_gang.go).
	gscan   gangScan
	gangPos []int32
	taken   []int32
}

// victimRule says which running tasks may be preempted for a waiting job.
type victimRule struct {
	kind victimKind
	// prio is the waiting job's priority: priority victims must be less
	// important (a larger number).
	prio int
	// preemption is the pool's setting; without it only backfilled tasks
	// may be evicted.
	preemption bool
	// project is the waiting job's project, for quota rules.
	project int32
	// qos is the waiting job's QOS priority, and qosPreempt whether its
	// QOS may preempt: victims of a lower QOS then qualify even without
	// the pool's preemption.
	qos        int
	qosPreempt bool
	// mfPrio is the waiting job's multifactor priority.
	mfPrio float64
	// blockEnd, when set, gives for each candidate the end of its
	// project's run in the list, so a project that may give no more is
	// skipped whole. next, when set, skips over candidates that are gone
	// for the rest of the pass (see live), so that repeated calls over one
	// long list stay linear overall; it belongs to the list (victimLists.next,
	// or the quota pass's), not to one job's rule.
	blockEnd []int32
	next     []int32
	// facts, when set, is the list's victimFacts (victim_facts.go); it
	// needs next.
	facts []victimFacts
}

type victimKind uint8

const (
	victimsByPriority victimKind = iota + 1
	victimsAboveShare
	// victimsOwnProject: unattended work of the waiting job's project,
	// for interactive work getting its quota.
	victimsOwnProject
	// victimsReclaim: borrowing work, and over-quota work of other
	// projects that stay at or above their quota.
	victimsReclaim
	// victimsByQOS: in multifactor pools, tasks of a lower QOS and a lower
	// computed priority. QOS rather than priority decides, so that fair
	// share moving priorities around never makes two jobs preempt each
	// other in turn.
	victimsByQOS
)

// preempt tries to make one task of j fit by preempting tasks from cands
// (in victim order) that the rule allows. It works like a statement: each
// victim is evicted tentatively, and if the task still cannot fit every
// eviction is rolled back. Victims the final placement does not need are
// restored, so only preemptions that make the task fit remain.
func (pm *preemptor) preempt(j int32, cands []int32, rule *victimRule) outcome {
	return pm.preemptFreeing(j, cands, rule, 0)
}

// preemptFreeing is preempt that also fails, rolling back, unless the
// victims it keeps hold at least need slots: a task over its project's
// limit may start only once that much of the project's own work is gone.
// When the placement needs fewer victims (it found idle slots), more
// candidates are taken, in victim order, until need is freed: a limit
// caps the project's total, which an idle slot does not lower.
func (pm *preemptor) preemptFreeing(j int32, cands []int32, rule *victimRule, need int32) outcome {
	if !pm.p.lic.licensesFit(j) {
		return failed // evicting frees no license until the victim stops
	}
	mark := len(pm.stmt)
	r := pm.p.request(j, true)
	var nodes []NodeSlots
	var found bool
	if pm.st.oneNode(&r) {
		nodes, found = pm.nodeSearch(&r, cands, rule)
	} else {
		nodes, found = pm.evictInOrder(&r, cands, rule)
	}
	if !found {
		pm.rollback(mark, rule)
		return failed
	}
	pm.p.sc.scratch = nodes[:0]
	pm.minimize(mark, nodes, rule)
	if need > 0 && !pm.freeMore(mark, cands, rule, need) {
		pm.rollback(mark, rule)
		return failed
	}
	for _, a := range pm.stmt[mark:] {
		pm.setFinal(a)
		pm.p.plan.Preemptions = append(pm.p.plan.Preemptions, Preemption{Alloc: int(a), For: int(j)})
		pm.p.sc.run[pm.s.Allocs[a].Job]--
	}
	pm.stmt = pm.stmt[:mark]
	return pm.p.commit(j, nodes, false)
}

// freeMore evicts candidates the rule allows, in victim order, until the
// statement's victims from mark on hold at least need slots, and reports
// whether they do.
func (pm *preemptor) freeMore(mark int, cands []int32, rule *victimRule, need int32) bool {
	freed := pm.freed(mark)
	for i := 0; i < len(cands) && freed < need; i++ {
		if a := cands[i]; pm.vic.allows(rule, a) {
			pm.evict(a, rule)
			freed += int32(Slots(pm.s.Allocs[a].Nodes))
		}
	}
	return freed >= need
}

// freed is what the statement's victims from mark on hold.
func (pm *preemptor) freed(mark int) int32 {
	n := int32(0)
	for _, a := range pm.stmt[mark:] {
		n += int32(Slots(pm.s.Allocs[a].Nodes))
	}
	return n
}

// setFinal marks a as evicted (or moved, or resized) for the rest of the
// pass; victimIndex must then look at its nodes again.
func (pm *preemptor) setFinal(a int32) {
	pm.p.sc.final[a] = true
	pm.p.cons.forget(a)
	if pm.st.track {
		for _, ns := range pm.s.Allocs[a].Nodes {
			pm.st.noteDirty(ns.Node)
		}
	}
}

func (pm *preemptor) evict(a int32, rule *victimRule) {
	pm.vic.account(rule, a, -1)
	pm.p.sc.evicted[a] = true
	pm.p.cons.forget(a)
	pm.stmt = append(pm.stmt, a)
	for _, ns := range pm.s.Allocs[a].Nodes {
		if ns.Slots > 0 {
			pm.st.addDrain(ns.Node, ns.Slots)
		}
	}
}

func (pm *preemptor) restore(a int32, rule *victimRule) {
	pm.vic.account(rule, a, +1)
	pm.p.sc.evicted[a] = false
	pm.p.cons.forget(a)
	for _, ns := range pm.s.Allocs[a].Nodes {
		if ns.Slots > 0 {
			pm.st.removeDrain(ns.Node, ns.Slots)
		}
	}
}

func (pm *preemptor) rollback(mark int, rule *victimRule) {
	for i := len(pm.stmt) - 1; i >= mark; i-- {
		pm.restore(pm.stmt[i], rule)
	}
	pm.stmt = pm.stmt[:mark]
}

// minimize restores, most important first, every tentative victim whose
// slots the placement can do without.
func (pm *preemptor) minimize(mark int, nodes []NodeSlots, rule *victimRule) {
	keep := pm.stmt[:mark]
	victims := pm.stmt[mark:]
	// A gang may leave thousands of tentative victims, so the placement's
	// need per node is tallied once rather than summed for each victim.
	// need stays all zero between calls (only the placement's entries are
	// set, and cleared below), so it is not cleared per call.
	if len(pm.need) != len(pm.s.Nodes) {
		pm.need = make([]int32, len(pm.s.Nodes))
	}
	need := pm.need
	for _, x := range nodes {
		need[x.Node] += x.Slots
	}
	for i := len(victims) - 1; i >= 0; i-- {
		a := victims[i]
		if pm.spare(a, need) {
			pm.restore(a, rule)
			victims[i] = -1
		}
	}
	for _, x := range nodes {
		need[x.Node] = 0
	}
	for _, a := range victims {
		if a >= 0 {
			keep = append(keep, a)
		}
	}
	pm.stmt = keep
}

// spare reports whether the placement, needing need[n] slots on node n,
// still fits if a keeps its slots.
func (pm *preemptor) spare(a int32, need []int32) bool {
	for _, ns := range pm.s.Allocs[a].Nodes {
		if pm.st.avail(ns.Node)-ns.Slots < need[ns.Node] {
			return false
		}
	}
	return true
}
