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

// Time limits. A task's time limit counts from the start of its attempt
// (a move or resize continues it: mattempt.first), and the master kills
// a running or starting task that reached it (lifecycle.PastLimit, the
// simulator's rule too). It kills at the limit itself: the loop keeps a
// timer at the earliest deadline (next), so that a limit of 15 s stops
// a task 15 s after it started, not up to a tick later, and in the
// second the simulator's limit ends it, whose whole seconds allot
// history check compares (a check on the tick only killed up to a second
// late, and the replay's end fell a second earlier). The tick checks
// too, and tries again a kill that could not be stored.

// timeLimits kills the tasks past their time limits. It scans the tasks
// with an open attempt (Master.open), not every job: a large queue
// waits, and only what runs can reach a limit. Its fields are guarded by
// Master.mu.
type timeLimits struct {
	m *Master
	// checked is when the last check ran: a deadline not after it whose
	// task still runs is one whose kill could not be stored (or the store
	// is down), which the timer tries again a tick later, not at once.
	checked time.Time
	// began is when the master started: a limit that fell before it was
	// applied late, which its reason says (lateNote).
	began time.Time
}

// deadline is when task t's time limit kills it: the first start of its
// attempt plus the limit, or when it last started, where a move's or
// resize's checkpoint ran past the limit (it is killed as it runs again,
// as the simulator's Task.Due ends it); false for a task not running or
// starting, or a job with no limit.
func deadline(t *mtask) (time.Time, bool) {
	if t.rec.State != store.TaskRunning && t.rec.State != store.TaskStarting {
		return time.Time{}, false
	}
	return deadlineOf(t)
}

// next is when the loop's timer checks the limits next: the earliest
// deadline, but a tick after the last check where that check was due
// to kill it already (checked); false for none. Callers hold mu.
func (tl *timeLimits) next(tick time.Duration) (time.Time, bool) {
	var due time.Time
	found := false
	for t := range tl.m.open {
		if at, ok := deadline(t); ok && (!found || at.Before(due)) {
			due, found = at, true
		}
	}
	if found && !due.After(tl.checked) {
		due = tl.checked.Add(tick)
	}
	return due, found
}

// arm sets the loop's timer to the next check (next), or stops it where
// no task has a limit to reach. The loop calls it after each pass, tick
// or check, which are what start tasks or end them.
func (tl *timeLimits) arm(timer *time.Timer) {
	m := tl.m
	// It reads the mirror only: mu alone, nothing admitted or published.
	m.mu.Lock()
	due, ok := tl.next(m.opt.Tick)
	now := m.now()
	m.mu.Unlock()
	if !ok {
		timer.Stop()
		return
	}
	timer.Reset(max(due.Sub(now), 0))
}

// fire runs on the loop's timer: it kills the tasks whose limit has come
// and runs a pass, as the tick does after its check. With the store down
// it leaves them to the tick, which probes the store first.
func (tl *timeLimits) fire(ctx context.Context) {
	m := tl.m
	m.lock()
	if m.health.isDown() {
		tl.checked = m.now()
		m.unlock()
		return
	}
	tl.checkTimeLimits(ctx)
	m.unlock()
	m.Step(ctx)
}

// checkTimeLimits kills the tasks that have run past their job's time
// limit (lifecycle.PastLimit, the simulator's rule too), on the loop's
// timer (fire) or its tick. Callers hold mu.
func (tl *timeLimits) checkTimeLimits(ctx context.Context) {
	now := tl.m.now()
	tl.checked = now
	var over []*mtask
	for t := range tl.m.open {
		if limit := t.job.rec.TimeLimit; limit > 0 && (t.rec.State == store.TaskRunning || t.rec.State == store.TaskStarting) &&
			lifecycle.PastLimit(now.Sub(t.att.first()), limit) {
			over = append(over, t)
		}
	}
	if len(over) == 0 {
		return
	}
	// In the order of the tasks, not of the map: the kills' events and
	// commands come out alike from run to run.
	slices.SortFunc(over, func(a, b *mtask) int {
		return cmp.Or(cmp.Compare(a.job.rec.ID, b.job.rec.ID), cmp.Compare(a.rec.Index, b.rec.Index))
	})
	// One transaction for every kill of the tick, not one per task: a
	// burst of jobs submitted together reaches its limit together. The
	// kill commands wait for the commit (persist before act).
	err := tl.m.batches.inBatch(ctx, func() error { return tl.killOverLimit(ctx, over) })
	if err == nil {
		return
	}
	tl.m.log.Error("killing tasks past their time limit", "tasks", len(over), "err", err)
	if len(over) == 1 {
		return // the next tick tries again
	}
	// The batch put the mirror back. One at a time, so that a task whose
	// kill cannot be stored does not hold up the others.
	for _, t := range over {
		if err := tl.m.batches.inBatch(ctx, func() error { return tl.killOverLimit(ctx, []*mtask{t}) }); err != nil {
			tl.m.log.Error("killing a task past its time limit", "task", t.id().String(), "err", err)
		}
	}
}

// killOverLimit kills tasks past their time limit within the open batch.
// A kill that found the task in another state (it ended meanwhile) is
// logged and skipped; any other error fails the batch. Callers hold mu.
func (tl *timeLimits) killOverLimit(ctx context.Context, over []*mtask) error {
	for _, t := range over {
		at, _ := deadline(t)
		reason := limitReason(t) + tl.lateNote(at, tl.m.now())
		err := tl.m.killTask(ctx, t, store.TaskKilled, reason, store.CauseTimeLimit)
		if batchFatal(err) {
			return fmt.Errorf("kill task %s past its time limit: %w", t.id(), err)
		}
		if err != nil {
			tl.m.log.Warn("a task past its time limit changed state meanwhile", "task", t.id().String(), "err", err)
		}
	}
	return nil
}
