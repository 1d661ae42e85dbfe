package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
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
// re-placements, as lifecycle.Decide orders them. A restarted master
// reads the order back from the event log (restoreLaunches).

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

// restorePlaces gives the restored jobs what the scheduling passes
// ordered and carried before the restart: their tasks' places in launch
// and resume order, and the reservations carried between passes.
func (r *restorer) restorePlaces(ctx context.Context) error {
	if err := r.restoreLaunches(ctx); err != nil {
		return err
	}
	pl := r.m.planner
	return pl.reserved.restore(ctx, r.m, &pl.roster)
}

// restoreLaunches gives the tasks of the restored jobs the places they
// had before the restart, so that a restart changes no decision: the
// launch of each open attempt, the placement a move or resize drains and
// each task's last preemption, in the order the previous masters stamped
// them. That order is the event log's: a master stamps a launch,
// preemption, move or resize as it applies it, in the order it stores
// their transitions (persistTasks), and a live job's events are all kept
// (pruning forgets ended jobs only). So each stamp is the sequence number
// of its transition's event: a launch is the last start from queued (a
// move or resize restarting the task keeps its place), a preemption the
// last transition to preempting, which for a move or resize in flight is
// also the drained placement's launch. The attempt a move or resize
// restarted continues the one launched then (mattempt.continues), which
// the time limit and the snapshot's starts count from. Each task's
// requeues (mtask.Retries) are its transitions to queued.
func (r *restorer) restoreLaunches(ctx context.Context) error {
	m := r.m
	last := m.planner.view.launches
	for _, j := range m.order {
		if !needsStamps(j) {
			continue
		}
		evs, err := m.st.Events(ctx, store.EventFilter{JobID: j.rec.ID})
		if err != nil {
			return fmt.Errorf("restore the launch order of job %d: %w", j.rec.ID, err)
		}
		launched := make([]time.Time, len(j.tasks))
		moved := make([]bool, len(j.tasks))
		for _, t := range j.tasks {
			t.Retries = 0
		}
		for _, e := range evs {
			if e.Index < 0 || e.Index >= len(j.tasks) || j.tasks[e.Index].rec.Index != e.Index {
				continue
			}
			t := j.tasks[e.Index]
			switch {
			case e.To == string(store.TaskStarting) && e.From == string(store.TaskQueued):
				t.launch, launched[e.Index], moved[e.Index] = e.Seq, e.At, false
			case e.To == string(store.TaskStarting):
				moved[e.Index] = true
			case e.To == string(store.TaskPreempting):
				t.preempted = e.Seq
			case e.To == string(store.TaskQueued):
				t.Retries++ // a task is created queued with no event of its own
				if e.From != string(store.TaskPreempting) {
					t.preempted = e.Seq // as setTask orders it
				}
			}
			last = max(last, e.Seq)
		}
		for _, t := range j.tasks {
			if t.att != nil && moved[t.rec.Index] {
				t.att.continueFrom(launched[t.rec.Index])
			}
		}
	}
	m.planner.view.launches = last
	return nil
}

// needsStamps says whether a restored job has a task whose place in
// launch or resume order counts: one that holds an attempt, or has run
// and may resume (and the requeues its exit actions count, mtask.Retries).
func needsStamps(j *mjob) bool {
	for _, t := range j.tasks {
		if t.att != nil || t.rec.Restarts > 0 {
			return true
		}
	}
	return false
}

// nextLaunch numbers the next launch. Callers hold mu.
func (pl *planner) nextLaunch() int64 {
	pl.view.launches++
	return pl.view.launches
}

// launchOf is the place of an allocation in launch order: its attempt's
// launch, which a task that a move or resize re-placed keeps for its new
// placement, and for the placement that drains meanwhile the move's or
// resize's own stamp, its task's preempted, as the simulator appends the
// drain record to its running list when it applies the move
// (lifecycle.Tasks.Replace). Nothing stamps preempted again while the
// move or resize is in flight: nothing is planned of the task
// (lifecycle.Replannable), and it leaves preempting, which ends the move
// or resize, before a requeue stamps it.
func launchOf(r allocRef) int64 {
	if r.t.Replacement.Replacing() && !r.next {
		return r.t.preempted
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
