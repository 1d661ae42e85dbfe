package master

import (
	"slices"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// Queue positions in quota pools. The core serves a quota pool in rounds
// (sched's quota_rounds.go): the most deprived project places one
// workload at a time, every project first up to its quota, then past it
// on the slots left; work that may only run within quota and does not fit
// it waits, and borrowing work goes last. A position by priority alone
// would put a job of a project over its quota before one of a project
// under it that the core serves first. This ranking only reports: the
// core's order is its own.

// quotaEntry is what quota rounds rank a waiting job by.
type quotaEntry struct {
	j                  *jobRead
	project            int // index in the configuration's projects, -1 if unknown
	borrow, guaranteed bool
	need               int // slots its waiting tasks ask for
}

// quotaQueue orders the waiting jobs of quota pool pool as the rounds
// serve them, counting what each project holds in the pool now (running
// holds every job of the pool that holds GPUs): within quota, the most
// deprived project (least held for its quota) first, one job a round;
// then the preemptible work past quota the same way; then work that may
// only run within quota and does not fit it; then borrowing work, by
// priority and submission. Within a project, as the core sorts it:
// interactive work first, then other work that cannot be preempted, then
// by priority and submission. Shares past quota and placement are the
// core's alone: where they decide, the ranking is the quota's.
func quotaQueue(cfg *config.Config, waiting, running []*jobRead) []*jobRead {
	projIndex := make(map[string]int, len(cfg.Projects))
	for i, p := range cfg.Projects {
		projIndex[p.Name] = i
	}
	n := len(cfg.Projects)
	alloc, fixed := make([]int, n), make([]int, n)
	entryOf := func(j *jobRead) quotaEntry {
		e := quotaEntry{j: j, project: -1,
			borrow: lifecycle.Borrows(j.rec.PriorityClass == string(jobfile.ClassLow), true)}
		if i, ok := projIndex[j.rec.Project]; ok {
			e.project = i
		}
		interactive := lifecycle.InteractiveKind(sched.Kind(j.rec.Kind))
		e.guaranteed = !e.borrow && (interactive || !j.rec.Preemptible)
		e.need = j.rec.Slots * max(j.queued, 1)
		return e
	}
	for _, j := range running {
		if e := entryOf(j); e.project >= 0 && !e.borrow {
			alloc[e.project] += j.used
			if e.guaranteed {
				fixed[e.project] += j.used
			}
		}
	}
	byProject := make([][]quotaEntry, n)
	var borrow, held, unknown []quotaEntry
	for _, j := range waiting {
		switch e := entryOf(j); {
		case e.borrow:
			borrow = append(borrow, e)
		case e.project < 0:
			unknown = append(unknown, e)
		default:
			byProject[e.project] = append(byProject[e.project], e)
		}
	}
	for _, q := range byProject {
		slices.SortFunc(q, projectOrder)
	}
	out := make([]*jobRead, 0, len(waiting))
	quota := func(p int) int { return cfg.Projects[p].Quota }
	// Within quota: a project leaves the phase at its first preemptible
	// job past its quota; guaranteed work past it waits, held.
	next := make([]int, n)
	out = quotaRounds(byProject, next, alloc, quota, out, func(p int, e quotaEntry) (take, stop bool) {
		if e.guaranteed {
			if fixed[p]+e.need > quota(p) {
				held = append(held, e)
				return false, false
			}
			fixed[p] += e.need
			return true, false
		}
		return alloc[p]+e.need <= quota(p), alloc[p]+e.need > quota(p)
	})
	out = quotaRounds(byProject, next, alloc, quota, out, func(int, quotaEntry) (bool, bool) { return true, false })
	slices.SortStableFunc(borrow, func(a, b quotaEntry) int {
		return queueOrder(sched.PolicyPriority)(a.j.facts(), b.j.facts())
	})
	for _, list := range [][]quotaEntry{held, unknown, borrow} {
		for _, e := range list {
			out = append(out, e.j)
		}
	}
	return out
}

// quotaRounds serves the projects' queues from next on, the most deprived
// project first, one job a round, while admit takes their jobs: a job it
// does not take is skipped, and stop ends its project's phase.
func quotaRounds(byProject [][]quotaEntry, next, alloc []int, quota func(int) int, out []*jobRead,
	admit func(p int, e quotaEntry) (take, stop bool)) []*jobRead {
	active := make([]bool, len(byProject))
	for p := range byProject {
		active[p] = next[p] < len(byProject[p])
	}
	for {
		p := -1
		for k := range byProject {
			if active[k] && (p < 0 || moreDeprived(alloc[k], quota(k), alloc[p], quota(p))) {
				p = k
			}
		}
		if p < 0 {
			return out
		}
		e := byProject[p][next[p]]
		take, stop := admit(p, e)
		if stop {
			active[p] = false
			continue
		}
		next[p]++
		if take {
			out = append(out, e.j)
			alloc[p] += e.need
		}
		active[p] = next[p] < len(byProject[p])
	}
}

// moreDeprived ranks projects as the core's deprivation heap does: the
// least held for its quota first, a project with no quota last, then the
// least held; ties go to the project listed first (the caller's order).
func moreDeprived(aa, qa, ab, qb int) bool {
	switch {
	case qa == 0 && qb != 0:
		return false
	case qb == 0 && qa != 0:
		return true
	case qa != 0 && aa*qb != ab*qa:
		return aa*qb < ab*qa
	}
	return aa < ab
}

// projectOrder sorts one project's waiting jobs as sched's quotaOrder
// does: interactive first, then other work that cannot be preempted,
// then by priority and submission.
func projectOrder(a, b quotaEntry) int {
	ia := lifecycle.InteractiveKind(sched.Kind(a.j.rec.Kind))
	ib := lifecycle.InteractiveKind(sched.Kind(b.j.rec.Kind))
	switch {
	case ia != ib:
		return boolFirst(ia)
	case a.j.rec.Preemptible != b.j.rec.Preemptible:
		return boolFirst(!a.j.rec.Preemptible)
	}
	return queueOrder(sched.PolicyPriority)(a.j.facts(), b.j.facts())
}

// boolFirst is -1 when the first of two that differ is the true one.
func boolFirst(first bool) int {
	if first {
		return -1
	}
	return 1
}
