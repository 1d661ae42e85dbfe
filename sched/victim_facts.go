package sched

import "slices"

// The victim scans (nextCand, nodeSearch) walk a pool's victim list in
// order, but the allocations and jobs it names lie all over memory: at
// 40,000 running tasks and 100,000 jobs nearly every look was a cache
// miss, and those misses were most of a preempting pass. So each list is
// copied once per pass into an array of victimFacts in the same order,
// and the scans read that. Everything copied is fixed for the pass; what
// changes (evicted, final, the rule's counters) is still read where it
// lives, so the answers are exactly those of allows, gone and pastRule.

// victimFacts is what the scans need to know about one candidate.
type victimFacts struct {
	lost    int64 // slot-seconds of work its eviction loses (bidVictim's cost)
	alloc   int32
	job     int32
	project int32 // -1 when out of range: no preemption budget applies
	node    int32 // the only node it holds, or -1 when it lists several
	group   int32 // node's group in the pass's state, or -1 with node
	slots   int32 // slots held
	prio    int32
	qos     int32
	// stale: gone for the whole pass (draining, not preemptible, younger
	// than its pool's minimum run time); see gone.
	stale      bool
	backfilled bool
	// borrow and interactive are the job's, for the quota rules.
	borrow, interactive bool
}

// victimFactsOf fills the victim lists' facts array for the victim list v.
func (vl *victimLists) victimFactsOf(v []int32) []victimFacts {
	fs := slices.Grow(vl.facts[:0], len(v))
	for _, a := range v {
		al := &vl.s.Allocs[a]
		j := &vl.s.Jobs[al.Job]
		q, _ := qosOf(vl.s, j)
		f := victimFacts{lost: al.Lost(vl.s.Now) * int64(Slots(al.Nodes)), alloc: a, job: int32(al.Job),
			project: -1, node: -1, group: -1, slots: int32(Slots(al.Nodes)), prio: int32(j.Priority), qos: int32(q),
			stale: vl.gone(a), backfilled: al.Backfilled, borrow: j.Borrow, interactive: j.Interactive}
		if j.Project >= 0 && j.Project < len(vl.s.Projects) {
			f.project = int32(j.Project)
		}
		if len(al.Nodes) == 1 {
			f.node = al.Nodes[0].Node
			f.group = vl.st.nodeGroup[f.node]
		}
		fs = append(fs, f)
	}
	vl.facts = fs
	return fs
}

// goneAt is gone for the candidate at position i of a list.
func (vl *victimLists) goneAt(cands []int32, facts []victimFacts, i int) bool {
	if facts != nil {
		return facts[i].stale || vl.p.sc.final[facts[i].alloc]
	}
	return vl.gone(cands[i])
}

// allowsFact is allows for a candidate described by its facts.
func (vl *victimLists) allowsFact(rule *victimRule, f *victimFacts) bool {
	if vl.p.sc.evicted[f.alloc] || f.stale || vl.p.sc.final[f.alloc] || vl.projectSpent(int(f.project)) {
		return false
	}
	switch rule.kind {
	case victimsByPriority:
		if int(f.prio) <= rule.prio {
			return false
		}
		if rule.preemption || f.backfilled {
			return true
		}
		return rule.qosPreempt && int(f.qos) < rule.qos
	case victimsByQOS:
		return int(f.qos) < rule.qos && vl.p.sc.mf.prio[f.job] < rule.mfPrio
	case victimsAboveShare:
		return vl.p.sc.fs.canGive(f.job, f.slots)
	case victimsReclaim:
		// As allows; a quota pool's jobs have projects in range, so
		// f.project is the job's.
		if f.borrow {
			return f.project == rule.project || vl.p.sc.quota.borrowing(f.project)
		}
		return !f.interactive && f.project != rule.project &&
			vl.p.sc.quota.reclaimable(vl.s, f.project, rule.project, f.slots)
	}
	return vl.allows(rule, f.alloc)
}

// pastFact is pastRule for a candidate described by its facts.
func pastFact(rule *victimRule, f *victimFacts) bool {
	switch rule.kind {
	case victimsByPriority:
		return int(f.prio) <= rule.prio
	case victimsByQOS:
		return int(f.qos) >= rule.qos
	}
	return false
}

// classFact is victimClass for a candidate described by its facts.
func (vl *victimLists) classFact(rule *victimRule, f *victimFacts) int32 {
	switch rule.kind {
	case victimsByPriority:
		return -f.prio
	case victimsByQOS:
		return f.qos
	case victimsReclaim:
		if f.borrow { // as victimClass
			return 0
		}
		return 1
	}
	return 0
}

// nextFact is nextCand over a list with facts (rule.facts and rule.next
// both set).
func (vl *victimLists) nextFact(cands []int32, i int, r *request, rule *victimRule) int {
	for i < len(cands) {
		if i = vl.live(rule.next, cands, rule.facts, i); i == len(cands) {
			break
		}
		f := &rule.facts[i]
		if pastFact(rule, f) {
			return len(cands)
		}
		if vl.allowsFact(rule, f) && (r.gpu == "" || vl.helps(f.alloc, r)) {
			return i
		}
		if rule.blockEnd != nil && vl.blockClosed(rule, f.alloc) {
			i = int(rule.blockEnd[i])
		} else {
			i++
		}
	}
	return len(cands)
}
