package master

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// The quota pool's part of a counterfactual: which quota or limit binds,
// what would lift it, and which running work the quota rule could reclaim.

// quotaBinding is what of a quota pool holds a job back.
type quotaBinding int

const (
	bindNone   quotaBinding = iota
	bindLimit               // its project or a parent would pass its limit
	bindWithin              // guaranteed work past its project's quota
	bindOver                // preemptible work past its quota: idle slots only
)

// quotaHeld is what each project holds in one quota pool, counted as the
// core's quota stage counts it (sched's quotaPass.count): the pool's
// allocations, each toward its job's project and every parent; borrowing
// work toward the limit only, guaranteed work (interactive or not
// preemptible) toward fixed too, and allocations being preempted (their
// GPUs held until their checkpoints land) toward the limit only, as
// draining.
type quotaHeld struct {
	alloc, fixed, borrowed, draining []int
}

func heldInPool(s *sched.Snapshot, pool int) quotaHeld {
	n := len(s.Projects)
	h := quotaHeld{alloc: make([]int, n), fixed: make([]int, n), borrowed: make([]int, n), draining: make([]int, n)}
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		j := &s.Jobs[a.Job]
		if j.Pool != pool || j.Project < 0 || j.Project >= n {
			continue
		}
		slots := sched.Slots(a.Nodes)
		for p := j.Project; p >= 0 && p < n; p = s.Projects[p].Parent {
			switch {
			case a.Preempting:
				h.draining[p] += slots
			case j.Borrow:
				h.borrowed[p] += slots
			default:
				h.alloc[p] += slots
				if j.Interactive || !j.Preemptible {
					h.fixed[p] += slots
				}
			}
		}
	}
	return h
}

// guaranteed says whether work may only run within its project's quota.
func guaranteed(e *sched.Job) bool { return !e.Borrow && (e.Interactive || !e.Preemptible) }

// quotaBind says which quota or limit keeps the job's project from taking
// need more slots of its quota pool, and how; "" and bindNone when none
// does, or the pool is not a quota pool. Quotas and limits are per pool:
// only the pool's own allocations count (heldInPool). Work that may only
// run within quota counts against the quota only with its own kind, and
// is told where it could borrow idle slots if it were preemptible
// (quotaWithin). The snapshot between schedulings is what the last plan
// left: a quota pool's passes go on until one starts and changes nothing
// (lifecycle.OneShot is false for it), so its idle slots are counted as
// they stand (sched.Snapshot.BorrowIdle).
func (f *cfFacts) quotaBind(ji, need int) (string, quotaBinding, int) {
	s := f.s
	e := &s.Jobs[ji]
	if e.Pool < 0 || e.Pool >= len(s.Pools) || s.Pools[e.Pool].Policy != sched.PolicyQuota ||
		e.Project < 0 || e.Project >= len(s.Projects) {
		return "", bindNone, -1
	}
	h := heldInPool(s, e.Pool)
	// The limit caps everything a project and each parent holds,
	// borrowing work and work being preempted included (withinLimit).
	for p := e.Project; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
		pr := &s.Projects[p]
		if used := h.alloc[p] + h.borrowed[p] + h.draining[p]; pr.Limit > 0 && used+need > pr.Limit {
			whose := "Its project " + pr.Name
			if p != e.Project {
				whose = "Its project's parent " + pr.Name
			}
			draining := ""
			if d := h.draining[p]; d > 0 {
				draining = fmt.Sprintf(" (%d of them held by work being preempted until its checkpoint lands)", d)
			}
			return fmt.Sprintf("%s holds %d of its limit of %d in pool %s%s; this job needs %d more, %d over the limit.",
				whose, used, pr.Limit, s.Pools[e.Pool].Name, draining, need, used+need-pr.Limit), bindLimit, p
		}
	}
	p := &s.Projects[e.Project]
	switch {
	case e.Borrow:
		// Nothing of its project binds, but a Run:ai or OSMO user asks
		// why its GPUs were taken back and whether they will be again.
		return fmt.Sprintf("It is LOW-class work, which counts toward no quota: it borrows idle slots of pool %s and is the first reclaimed when a project under its quota needs them.",
			s.Pools[e.Pool].Name), bindOver, e.Project
	case guaranteed(e) && h.fixed[e.Project]+need > p.Quota:
		return quotaWithin(p, h.fixed[e.Project], need, s.BorrowIdle(ji, need)), bindWithin, e.Project
	case !guaranteed(e) && h.alloc[e.Project]+need > p.Quota:
		return fmt.Sprintf("Its project %s holds %d of its quota of %d in pool %s; with this job's %d it would be %d over quota, so it runs only on idle slots (and may be reclaimed).",
			p.Name, h.alloc[e.Project], p.Quota, s.Pools[e.Pool].Name, need, h.alloc[e.Project]+need-p.Quota), bindOver, e.Project
	}
	return reclaimBlocked(s, e, h), bindNone, -1
}

// limitNever is the counterfactual of job ji of a quota pool whose task
// is larger than its project's limit, or a parent's (sched's
// LimitBelow): it can never start, whatever ends, until an admin raises
// that limit; nil when no limit binds so. Trial 2026-11-29e E6: such a
// job was told that the pool's order would serve another job first, as
// if an end could start it. A function of f, as cfFacts has its 40
// methods.
func limitNever(f *cfFacts, ji int) *api.Counterfactual {
	s := f.s
	pr := s.LimitBelow(ji)
	if pr < 0 {
		return nil
	}
	e := &s.Jobs[ji]
	need := e.SmallestTask()
	name := e.ID
	if rec := f.rec(ji); rec != nil {
		name = jobLabel(*rec)
	}
	whose := "its project " + s.Projects[pr].Name
	if pr != e.Project {
		whose = "its project's parent " + s.Projects[pr].Name
	}
	msg := fmt.Sprintf("job %s can never start: a task of %s is over %s's limit of %d in pool %s (the most the project may hold there, "+
		"borrowing LOW work included), so no job's end would start it; an admin must raise the limit (projects[].limit in the configuration, then allot config reload)",
		name, slotWord(need), whose, s.Projects[pr].Limit, s.Pools[e.Pool].Name)
	return &api.Counterfactual{Never: msg, Message: "It cannot start: " + msg + "."}
}

// reclaimBlocked explains, for a job within its project's quota, why
// reclaim frees nothing for it where another project holds more than its
// quota: every preemptible task of such a project is larger than its
// excess, so taking one would put the project below its quota, and none
// is an elastic task that could shrink enough (sched's quota_shrink.go):
// an elastic one that could shrink some is named, with what it would
// free (trial k E). "" when no project is over its quota, or one has a
// task reclaim may take.
func reclaimBlocked(s *sched.Snapshot, e *sched.Job, h quotaHeld) string {
	need := e.SmallestTask()
	if e.Borrow || h.alloc[e.Project]+need > s.Projects[e.Project].Quota {
		return "" // reclaim serves a project only up to its quota
	}
	excess := make([]int, len(s.Projects))
	smallest := make([]int, len(s.Projects))
	for v := range s.Projects {
		excess[v] = h.alloc[v] - s.Projects[v].Quota
	}
	var partial []string
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		j := &s.Jobs[a.Job]
		v := j.Project
		if j.Pool != e.Pool || v < 0 || v >= len(s.Projects) || v == e.Project || excess[v] <= 0 ||
			a.Preempting || j.Borrow || j.Interactive || !j.Preemptible {
			continue
		}
		slots := sched.Slots(a.Nodes)
		// A shrink gives back at most down to min_slots and the
		// project's quota (sched's quota_shrink.go).
		giveable := 0
		if j.MinSlots > 0 && len(a.Nodes) == 1 {
			giveable = min(slots-j.MinSlots, excess[v])
		}
		if slots <= excess[v] || giveable >= need {
			return "" // reclaim may take or shrink it
		}
		if giveable > 0 {
			partial = append(partial, partialShrink(j, slots, giveable, need))
		}
		if smallest[v] == 0 || slots < smallest[v] {
			smallest[v] = slots
		}
	}
	var parts []string
	for v := range s.Projects {
		if smallest[v] > 0 {
			parts = append(parts, fmt.Sprintf("project %s is %d over its quota of %d, but only in tasks of %d or more slots",
				s.Projects[v].Name, excess[v], s.Projects[v].Quota, smallest[v]))
		}
	}
	if len(parts) == 0 {
		return oversubscribed(s, e, h, excess)
	}
	enough := " (a task shrinks only if elastic, down to its min_slots and its project's quota)."
	if len(partial) > 0 {
		enough = ": " + strings.Join(partial, "; ") + "."
	}
	return "Reclaim frees nothing for it: " + strings.Join(parts, "; ") +
		", which reclaim may not take (the project would fall below its quota) nor shrink far enough" + enough
}

// oversubscribed explains, for a job within its project's quota in a
// full pool where no project holds more than its quota, that reclaim has
// nothing to take because the quotas add up to more than the pool's
// slots (trial r R6: "0 are free" alone read as a broken quota); "" when
// some project is over its quota or the quotas fit the pool.
func oversubscribed(s *sched.Snapshot, e *sched.Job, h quotaHeld, excess []int) string {
	if slices.ContainsFunc(excess, func(x int) bool { return x > 0 }) {
		return ""
	}
	quotas, slots := 0, 0
	for v := range s.Projects {
		if s.Projects[v].Parent < 0 {
			quotas += s.Projects[v].Quota
		}
	}
	for i := range s.Nodes {
		if s.Nodes[i].Pool == e.Pool {
			slots += max(s.Nodes[i].Slots, s.Nodes[i].OwnSlots)
		}
	}
	used := 0
	for ai := range s.Allocs {
		if s.Jobs[s.Allocs[ai].Job].Pool == e.Pool {
			used += sched.Slots(s.Allocs[ai].Nodes)
		}
	}
	need := e.SmallestTask()
	if quotas <= slots || slots-used >= need {
		return ""
	}
	var holders []string
	for v := range s.Projects {
		if v != e.Project && h.alloc[v] > 0 {
			holders = append(holders, fmt.Sprintf("%s holds %d of its %d", s.Projects[v].Name, h.alloc[v], s.Projects[v].Quota))
		}
	}
	held := ""
	if len(holders) > 0 {
		held = " (" + strings.Join(holders, "; ") + ")"
	}
	p := &s.Projects[e.Project]
	return fmt.Sprintf("Its project %s is within its quota (holds %d of %d), but reclaim frees nothing for it: no project holds more than its quota in pool %s%s. "+
		"The quotas there add up to %d slots, more than the pool's %d, so a project within its quota may wait until other work within quota ends.",
		p.Name, h.alloc[e.Project], p.Quota, s.Pools[e.Pool].Name, held, quotas, slots)
}

// partialShrink says of elastic job j, whose task of slots may give back
// only giveable of the need slots a job waits for, how far it may
// shrink and what binds it: "job 9 may shrink only to 3 slots
// (min_slots), freeing 1 of the 2 it needs", or "(its project's quota)".
func partialShrink(j *sched.Job, slots, giveable, need int) string {
	binds := "min_slots"
	if slots-giveable > j.MinSlots {
		binds = "its project's quota"
	}
	return fmt.Sprintf("job %s may shrink only to %s (%s), freeing %d of the %d it needs",
		j.ID, slotWord(slots-giveable), binds, giveable, need)
}

// projectCounterfactual is the counterfactual of a job that its project's
// limit, or its quota for guaranteed work, holds back (bindLimit,
// bindWithin): no other project's job ending would start it, only its
// own project's (project pr and its sub-projects) work in the pool ending,
// enough of it to make room, or the limit or quota raised. Nil when none
// of that work runs.
func (f *cfFacts) projectCounterfactual(e *sched.Job, need int, bind quotaBinding, pr int, why string) *api.Counterfactual {
	s := f.s
	h := heldInPool(s, e.Pool)
	p := &s.Projects[pr]
	// Work being preempted frees its slots on its own once its
	// checkpoint lands: only the rest of the excess needs work to end.
	excess := h.alloc[pr] + h.borrowed[pr] + need - p.Limit
	what := "limit"
	if bind == bindWithin {
		excess, what = h.fixed[pr]+need-p.Quota, "quota"
	}
	if excess <= 0 {
		return &api.Counterfactual{Quota: why, Message: fmt.Sprintf(
			"It could start once project %s's work being preempted in pool %s has checkpointed and let go of its %d slot(s). %s",
			p.Name, s.Pools[e.Pool].Name, h.draining[pr], why)}
	}
	// The project's jobs in the pool that count, by what each holds.
	held, allocs := map[int]int{}, map[int][]int{}
	var jobs []int
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		j := &s.Jobs[a.Job]
		if a.Preempting || j.Pool != e.Pool || !underProject(s, j.Project, pr) ||
			(bind == bindWithin && !guaranteed(j)) {
			continue
		}
		if _, ok := held[a.Job]; !ok {
			jobs = append(jobs, a.Job)
		}
		held[a.Job] += sched.Slots(a.Nodes)
		allocs[a.Job] = append(allocs[a.Job], ai)
	}
	if len(jobs) == 0 {
		return nil
	}
	// The fewest jobs that free enough: soonest to end first, then the
	// largest, then in the snapshot's order.
	end := func(ji int) int64 { return jobEnd(s, ji) }
	slices.SortStableFunc(jobs, func(a, b int) int {
		if c := cmp.Compare(end(a), end(b)); c != 0 {
			return c
		}
		return cmp.Compare(held[b], held[a])
	})
	cf := &api.Counterfactual{Quota: why}
	ask := &aheadAsk{project: pr, bind: bind, what: what}
	freed := 0
	var until int64
	bounded := true
	for _, ji := range jobs {
		if freed >= excess {
			break
		}
		freed += held[ji]
		ask.ends = append(ask.ends, allocs[ji]...)
		ref := f.jobRef(ji, nil)
		ref.Slots = held[ji]
		if t := end(ji); t != sched.Never {
			at := time.Unix(t, 0).UTC()
			ref.EndsAt = &at
			until = max(until, t)
		} else {
			bounded = false
		}
		cf.MustEnd = append(cf.MustEnd, ref)
	}
	if bounded && until > 0 {
		t := time.Unix(max(until, s.Now), 0).UTC()
		cf.NotBefore = &t
	}
	f.ask = ask
	cf.Message = fmt.Sprintf("Only project %s's own work in pool %s ending would start it, not other projects': it could start once %s, or once the project's %s is raised. %s",
		p.Name, s.Pools[e.Pool].Name, mustEndPhrase(cf.MustEnd), what, why)
	return cf
}

// underProject says whether project p is pr or one of its sub-projects.
func underProject(s *sched.Snapshot, p, pr int) bool {
	for ; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
		if p == pr {
			return true
		}
	}
	return false
}

// jobEnd is the last end of the time limits of job ji's allocations, or
// sched.Never.
func jobEnd(s *sched.Snapshot, ji int) int64 {
	var t int64
	for ai := range s.Allocs {
		if a := &s.Allocs[ai]; a.Job == ji {
			t = max(t, a.End(s.Jobs))
		}
	}
	return t
}

// quotaCouldPreempt says whether the quota rule (sched's reclaimPreempt)
// could take allocation ai for job e: never work that is not
// preemptible, nor for borrowing work; for guaranteed work its own
// project's preemptible work; for a project that stays within its quota
// with e, borrowing work and work of projects that stay at or above
// their quota without it (reclaimable). The core also caps the reclaim
// at the project's fair share, which the snapshot does not hold: the
// quota stands for it.
func (f *cfFacts) quotaCouldPreempt(e *sched.Job, ai int) bool {
	s := f.s
	a := &s.Allocs[ai]
	v := &s.Jobs[a.Job]
	if !v.Preemptible || e.Borrow || e.Project < 0 || e.Project >= len(s.Projects) {
		return false
	}
	if guaranteed(e) && v.Project == e.Project && !v.Borrow {
		return true
	}
	h := heldInPool(s, e.Pool)
	need := e.SmallestTask()
	if h.alloc[e.Project]+need > s.Projects[e.Project].Quota {
		return false
	}
	if v.Borrow {
		return true
	}
	slots := sched.Slots(a.Nodes)
	for p := v.Project; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
		if underProject(s, e.Project, p) {
			return true
		}
		if h.alloc[p]-slots < s.Projects[p].Quota {
			return false
		}
	}
	return true
}
