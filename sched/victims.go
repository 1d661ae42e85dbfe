package sched

// victimLists holds a pass's victim lists and answers which of their
// candidates a victimRule allows. It owns the sorted list (list, with
// its sort keys), the list's skip pointers (next, see victimRule.next)
// and victimFacts (facts), the index that answers nodeSearch for priority
// and fair-share pools (index, heldPos), and the preemption budget counts
// (preempts per project, allocProject per allocation), which account
// moves as victims are evicted or restored. It reads the snapshot, the
// planning state, the policies' counters (fair share, quota, multifactor
// priorities), the evicted and final marks, and whether the preemption's
// statement is empty (usable), the last ones through the pass; it
// writes only the counters, in account, and the state's dirty-node
// tracking.
type victimLists struct {
	p *pass
	// s and st are the pass's snapshot and planning state.
	s    *Snapshot
	st   *state
	list []int32
	keys []victimKey // sortVictims' scratch
	// keyPos is each listed allocation's place in keys.
	keyPos []int32
	// next holds the skip pointers over list (victimRule.next).
	next []int32
	// facts holds the list's victimFacts (victim_facts.go).
	facts []victimFacts
	// index answers nodeSearch for priority pools (preempt_index.go).
	index   victimIndex
	heldPos []int32
	// preempts is per project the preemptions planned this pass.
	preempts []int32
	// allocProject is each allocation's project, or -1 out of range, so
	// that accounting for thousands of tentative victims reads no job.
	allocProject []int32
}

func (vl *victimLists) allows(rule *victimRule, a int32) bool {
	al := &vl.s.Allocs[a]
	vj := &vl.s.Jobs[al.Job]
	if vl.p.sc.evicted[a] || vl.gone(a) || vl.budgetSpent(vj) {
		return false
	}
	switch rule.kind {
	case victimsByPriority:
		if vj.Priority <= rule.prio {
			return false
		}
		if rule.preemption || al.Backfilled {
			return true
		}
		q, _ := qosOf(vl.s, vj)
		return rule.qosPreempt && q < rule.qos
	case victimsByQOS:
		q, _ := qosOf(vl.s, vj)
		return q < rule.qos && vl.p.sc.mf.prio[al.Job] < rule.mfPrio
	case victimsAboveShare:
		return vl.p.sc.fs.canGive(int32(al.Job), int32(Slots(al.Nodes)))
	case victimsOwnProject:
		return int32(vj.Project) == rule.project && !vj.Interactive
	case victimsReclaim:
		if vj.Borrow {
			// Borrowing work makes way for its own project's quota work,
			// and gives back what it borrowed from others.
			return int32(vj.Project) == rule.project || vl.p.sc.quota.borrowing(int32(vj.Project))
		}
		return !vj.Interactive && int32(vj.Project) != rule.project &&
			vl.p.sc.quota.reclaimable(vl.s, int32(vj.Project), rule.project, int32(Slots(al.Nodes)))
	}
	return false
}

// blockClosed reports whether no task of a's project (a's block in a
// list that keeps each project's tasks together) may be a victim under
// the rule: the project's preemption budget is spent, or, when
// reclaiming, the project could not give even one slot. Only such
// project-wide refusals may skip a block; a task refused for itself (too
// young, not preemptible) leaves its siblings eligible.
func (vl *victimLists) blockClosed(rule *victimRule, a int32) bool {
	vj := &vl.s.Jobs[vl.s.Allocs[a].Job]
	if vl.budgetSpent(vj) {
		return true
	}
	if rule.kind != victimsReclaim {
		return false
	}
	if vj.Borrow {
		return int32(vj.Project) != rule.project && !vl.p.sc.quota.borrowing(int32(vj.Project))
	}
	return int32(vj.Project) == rule.project || !vl.p.sc.quota.reclaimable(vl.s, int32(vj.Project), rule.project, 1)
}

// budgetSpent reports whether the job's project may have no more tasks
// preempted this hour, counting the preemptions this pass has planned.
func (vl *victimLists) budgetSpent(j *Job) bool { return vl.projectSpent(j.Project) }

// projectSpent is budgetSpent for a project index; out of range means no
// budget.
func (vl *victimLists) projectSpent(project int) bool {
	if project < 0 || project >= len(vl.s.Projects) {
		return false
	}
	pr := &vl.s.Projects[project]
	return pr.PreemptBudget > 0 && pr.Preempted+int(vl.preempts[project]) >= pr.PreemptBudget
}

// account moves a victim's slots out of (sign -1) or back into (+1) the
// counters its rule checks, so that a statement evicting several victims
// checks each against the counts left by the previous ones.
func (vl *victimLists) account(rule *victimRule, a int32, sign int32) {
	al := &vl.s.Allocs[a]
	if pr := vl.allocProject[a]; pr >= 0 {
		vl.preempts[pr] -= sign
	}
	switch rule.kind {
	case victimsAboveShare:
		vl.p.sc.fs.took(int32(al.Job), sign*int32(Slots(al.Nodes)))
	case victimsOwnProject, victimsReclaim:
		vj := &vl.s.Jobs[al.Job]
		q := &vl.p.sc.quota
		if vj.Borrow {
			q.add(vl.s, q.borrowed, int32(vj.Project), sign*int32(Slots(al.Nodes)))
		} else {
			q.add(vl.s, q.alloc, int32(vj.Project), sign*int32(Slots(al.Nodes)))
		}
	}
}

// victimOrder returns the pool's running tasks in the order they are
// offered as victims: least important first, then by the work they would
// lose (see lessLost).
func (vl *victimLists) victimOrder(pool int) []int32 {
	now := vl.s.Now
	v := vl.sortVictims(pool, func(a int32, al *Alloc) victimKey {
		return victimKey{major: -int64(vl.s.Jobs[al.Job].Priority), lost: al.Lost(now), start: al.Start, a: a}
	})
	vl.next = resize(vl.next, len(v))
	vl.victimFactsOf(v)
	return v
}

// lessLost orders victims of equal standing: least work lost since the
// last checkpoint first, then newest first, then by allocation index.
// Without checkpoints the work lost is the run time, so this is newest
// first.
func (vl *victimLists) lessLost(a, b int32) int {
	aa, ab := &vl.s.Allocs[a], &vl.s.Allocs[b]
	if la, lb := aa.Lost(vl.s.Now), ab.Lost(vl.s.Now); la != lb {
		return cmp64(la, lb)
	}
	if aa.Start != ab.Start {
		return cmp64(ab.Start, aa.Start)
	}
	return int(b - a)
}

// live returns the first position at or after i whose candidate is not
// gone, compressing the skip pointers in next on the way (next[i] > i is
// a known jump; anything else means "try i+1"). facts, when not nil, are
// the list's victimFacts.
func (vl *victimLists) live(next []int32, cands []int32, facts []victimFacts, i int) int {
	end := i
	for end < len(cands) && vl.goneAt(cands, facts, end) {
		if n := int(next[end]); n > end {
			end = n
		} else {
			end++
		}
	}
	for i < end {
		n := int(next[i])
		next[i] = int32(end)
		if n > i {
			i = n
		} else {
			i++
		}
	}
	return end
}

// gone reports a candidate that can never be a victim this pass: already
// draining, evicted by a committed statement, not preemptible, younger
// than its pool's minimum run time, or with a part on a drained node (the
// drivers skip its preemption; what it frees there is gone). A tentative
// eviction is not gone: a rollback may restore it, and skip pointers must
// not jump over it.
func (vl *victimLists) gone(a int32) bool {
	al := &vl.s.Allocs[a]
	if al.Preempting || vl.p.sc.final[a] {
		return true
	}
	j := &vl.s.Jobs[al.Job]
	if !j.Preemptible {
		return true
	}
	min := vl.s.Pools[j.Pool].MinRunTime
	return min > 0 && vl.s.Now-al.Start < min || vl.p.onDrained(a)
}

// helps reports whether evicting a frees slots the request could use.
func (vl *victimLists) helps(a int32, r *request) bool {
	if r.gpu == "" {
		return true
	}
	for _, ns := range vl.s.Allocs[a].Nodes {
		if vl.s.Nodes[ns.Node].GPU == r.gpu {
			return true
		}
	}
	return false
}

// victimClass ranks a victim's importance under the rule: a node whose
// most important victim ranks lower is chosen first, whatever the work
// lost. Priority and QOS rules rank by the victim's priority or QOS;
// reclaim takes borrowing work before counted work.
func (vl *victimLists) victimClass(rule *victimRule, a int32) int32 {
	vj := &vl.s.Jobs[vl.s.Allocs[a].Job]
	switch rule.kind {
	case victimsByPriority:
		return -int32(vj.Priority)
	case victimsByQOS:
		q, _ := qosOf(vl.s, vj)
		return int32(q)
	case victimsReclaim:
		if vj.Borrow {
			return 0
		}
		return 1
	}
	return 0
}

// pastRule reports a candidate past which no later one can qualify: the
// priority and QOS victim lists are sorted least important first, so once
// a candidate is as important as the waiting job, so are all after it.
// Without this, every job that fails to preempt would scan the whole list.
func (vl *victimLists) pastRule(rule *victimRule, a int32) bool {
	vj := &vl.s.Jobs[vl.s.Allocs[a].Job]
	switch rule.kind {
	case victimsByPriority:
		return vj.Priority <= rule.prio
	case victimsByQOS:
		q, _ := qosOf(vl.s, vj)
		return q >= rule.qos
	}
	return false
}

// nextCand returns the first position at or after i whose candidate the
// rule allows and whose eviction helps the request, or len(cands). It
// uses the rule's skip pointers and project blocks when it has them.
func (vl *victimLists) nextCand(cands []int32, i int, r *request, rule *victimRule) int {
	if rule.facts != nil {
		return vl.nextFact(cands, i, r, rule)
	}
	for i < len(cands) {
		if rule.next != nil {
			if i = vl.live(rule.next, cands, nil, i); i == len(cands) {
				break
			}
		}
		a := cands[i]
		if vl.pastRule(rule, a) {
			return len(cands)
		}
		if vl.allows(rule, a) && vl.helps(a, r) {
			return i
		}
		if rule.blockEnd != nil && vl.blockClosed(rule, a) {
			i = int(rule.blockEnd[i])
		} else {
			i++
		}
	}
	return len(cands)
}
