package master

import (
	"cmp"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
)

// The order of a snapshot's allocations. The core breaks some ties by it
// (among equal candidates to preempt, the earlier allocation first), so
// the master lists them in the order the simulator does, which is
// lifecycle.Tasks' running list: attempts in the order they were
// launched, a task that a move or resize re-placed keeping its place, and
// the placement it drains listed as launched when the move was applied.
// The master listed them by job and task: the replay test
// (master/replay_test.go) found a quota pool reclaiming from another task
// of the same priority and start than the simulator did. Apply launches
// in the order the core's plan lists them, after its preemptions and
// re-placements, as lifecycle.Decide orders them. After a restart the
// attempts still open are numbered by job and task (the launch order is
// not stored), and the placements moves drain after them.

// resumesBefore says whether queued task t resumes before b, by the rule
// the simulator resumes them by (lifecycle.ResumesBefore): tasks that ran
// before first, the last preempted first, then by index. The simulator
// resumes a job's preempted tasks last landed first (lifecycle.Job.Launch)
// and lands them in the order they were preempted, as its checkpoint
// cost is the pool's; the master stamps a task when it applies the
// preemption, which gives the same order without depending on the order
// the agents report the landings in. It resumed the lowest index first:
// the replay test's fair-share workload found another trial resuming
// than in the simulator, with other work left.
func resumesBefore(t, b *mtask) bool {
	return lifecycle.ResumesBefore(queuedOf(t), queuedOf(b))
}

// queuedOf is queued task t as lifecycle.ResumesBefore sees it.
func queuedOf(t *mtask) lifecycle.Queued {
	return lifecycle.Queued{Ran: t.rec.Restarts > 0, Preempted: t.preempted, Index: t.rec.Index}
}

// restoreLaunches numbers the attempts open at a restart by job and
// task, and the placements their moves drain after them. Callers hold
// mu or have the master to themselves.
func (m *Master) restoreLaunches() {
	for _, j := range m.order {
		for _, t := range j.tasks {
			if t.att != nil {
				t.launch = m.planner.nextLaunch()
			}
		}
	}
	for _, j := range m.order {
		for _, t := range j.tasks {
			if t.next != nil {
				t.drainLaunch = m.planner.nextLaunch()
			}
		}
	}
}

// nextLaunch numbers the next launch. Callers hold mu.
func (pl *planner) nextLaunch() int64 {
	pl.view.launches++
	return pl.view.launches
}

// launchOf is the place of an allocation in launch order.
func launchOf(r allocRef) int64 {
	if r.t.next != nil && !r.next {
		return r.t.drainLaunch
	}
	return r.t.launch
}

// orderAllocs sorts the snapshot's allocations (and their references)
// into launch order; a snapshot built in that order already is left as
// it is. Callers hold mu.
func (pl *planner) orderAllocs() {
	s, v := &pl.snap, &pl.view
	sorted := true
	for i := 1; i < len(v.allocs) && sorted; i++ {
		sorted = launchOf(v.allocs[i-1]) <= launchOf(v.allocs[i])
	}
	if sorted {
		return
	}
	v.perm = v.perm[:0]
	for i := range v.allocs {
		v.perm = append(v.perm, i)
	}
	slices.SortStableFunc(v.perm, func(a, b int) int { return cmp.Compare(launchOf(v.allocs[a]), launchOf(v.allocs[b])) })
	v.sortedAllocs, v.sortedRefs = v.sortedAllocs[:0], v.sortedRefs[:0]
	for _, p := range v.perm {
		v.sortedAllocs = append(v.sortedAllocs, s.Allocs[p])
		v.sortedRefs = append(v.sortedRefs, v.allocs[p])
	}
	copy(s.Allocs, v.sortedAllocs)
	copy(v.allocs, v.sortedRefs)
}
