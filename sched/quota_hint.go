package sched

import "fmt"

// The over_quota reason's advice. Work that may only run within quota
// (interactive or not preemptible) waits there even when the pool has
// idle slots, which preemptible work of the same project could borrow
// past its quota (the over-quota phase of quota rounds). A user who does
// not know that sees no way forward, so the reason says so, where it
// would help.

// BorrowIdle returns how many slots of job j's pool are idle (on nodes
// that take new work, of its GPU type if it names one) when the job,
// made preemptible, could borrow need of them past its project's quota
// now; 0 when it could not: it is preemptible already, its pool is not a
// quota pool, fewer than need slots are idle, or need more would take
// its project or a parent past its limit. The idle slots are the
// snapshot's, before its pass placed anything: the advice is what the
// job could try, not a promise.
func (s *Snapshot) BorrowIdle(j, need int) int {
	if j < 0 || j >= len(s.Jobs) {
		return 0
	}
	job := &s.Jobs[j]
	if job.Preemptible || job.Borrow || job.Pool < 0 || job.Pool >= len(s.Pools) ||
		s.Pools[job.Pool].Policy != PolicyQuota || !s.limitRoom(job.Pool, job.Project, need) {
		return 0
	}
	if idle := s.idleSlots(job); idle >= need && idle > 0 {
		return idle
	}
	return 0
}

// idleSlots counts the free slots of job's pool on nodes that take new
// work and have its GPU type. A node's slots held by a task being
// preempted are not idle yet.
func (s *Snapshot) idleSlots(job *Job) int {
	free := make([]int, len(s.Nodes))
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool == job.Pool && !n.Drained && (job.GPU == "" || n.GPU == job.GPU) {
			free[i] = n.Slots
		}
	}
	for ai := range s.Allocs {
		for _, ns := range s.Allocs[ai].Nodes {
			if ns.Node >= 0 && int(ns.Node) < len(free) {
				free[ns.Node] -= int(ns.Slots)
			}
		}
	}
	idle := 0
	for _, f := range free {
		idle += max(f, 0)
	}
	return idle
}

// limitRoom reports whether project pr and each of its parents could
// hold need more slots of pool within their limits, counting the pool's
// running tasks not being preempted, as quota rounds do (withinLimit).
func (s *Snapshot) limitRoom(pool, pr, need int) bool {
	if pr < 0 || pr >= len(s.Projects) {
		return false
	}
	held := make([]int, len(s.Projects))
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		if a.Preempting || a.Job < 0 || a.Job >= len(s.Jobs) || s.Jobs[a.Job].Pool != pool {
			continue
		}
		for p := s.Jobs[a.Job].Project; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
			held[p] += Slots(a.Nodes)
		}
	}
	for p := pr; p >= 0 && p < len(s.Projects); p = s.Projects[p].Parent {
		if l := s.Projects[p].Limit; l > 0 && held[p]+need > l {
			return false
		}
	}
	return true
}

// borrowHint is the over_quota message's advice, or "" where borrowing
// is not possible (BorrowIdle).
func (p Pending) borrowHint(s *Snapshot) string {
	return BorrowHint(s.BorrowIdle(p.Job, p.Need))
}

// BorrowHint is the over_quota message's advice for a job that could
// borrow idle slots if preemptible (BorrowIdle), or "" for none. Callers
// that render the message from less than the pass's snapshot (the
// master's views) keep idle and add this themselves.
func BorrowHint(idle int) string {
	if idle <= 0 {
		return ""
	}
	return fmt.Sprintf("; submitted preemptible (resources: preemptible: true) it could borrow idle slots past its quota (%d idle in the pool), and be preempted when they are reclaimed", idle)
}
