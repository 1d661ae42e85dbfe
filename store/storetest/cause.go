package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testEventCause: a task transition's cause and part-ran mark reach its
// event, written alone and within an Update (where events may be
// written together); other events have neither.
func testEventCause(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("gang"), 2)
	start := func(i int) store.TaskTransition {
		return withPlacement(store.TaskTransition{JobID: job.ID, Index: i, From: store.TaskQueued, To: store.TaskStarting,
			Reason: "started"}, placement("n1", i))
	}
	lose := func(i int) store.TaskTransition {
		return withEnd(store.TaskTransition{JobID: job.ID, Index: i, From: store.TaskStarting, To: store.TaskQueued,
			Attempt: 1, Reason: "node n1 does not run attempt 1", Cause: store.CauseNotRun, PartRan: i == 1}, store.AttemptLost, nil)
	}
	move(t, s, start(0))
	move(t, s, lose(0))
	err := s.Update(ctx, func(tx store.Tx) error {
		for _, tr := range []store.TaskTransition{start(1), lose(1)} {
			if _, err := tx.TransitionTask(ctx, tr); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	evs, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	type fact struct {
		index   int
		to      string
		cause   store.Cause
		partRan bool
	}
	var got []fact
	for _, e := range evs {
		got = append(got, fact{e.Index, e.To, e.Cause, e.PartRan})
	}
	wantEqual(t, "events", got, []fact{{-1, "queued", "", false},
		{0, "starting", "", false}, {0, "queued", store.CauseNotRun, false},
		{1, "starting", "", false}, {1, "queued", store.CauseNotRun, true}})
}

// testJobChange: a change of a job keeps the values it changed, from and
// to, nil for a field left as it was, written alone and within an Update
// among task transitions (where PostgreSQL writes the others together,
// this one apart), in the order of the changes.
func testJobChange(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("changed"), 1) // priority 42, weight 1.5, preemptible
	prio, weight, class, no := 7, 0.1, "HIGH", false
	if _, err := s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, Priority: &prio, PriorityClass: &class, At: at(time.Minute)}); err != nil {
		t.Fatalf("update job: %v", err)
	}
	err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.TransitionTask(ctx, withPlacement(store.TaskTransition{JobID: job.ID, From: store.TaskQueued,
			To: store.TaskStarting, Reason: "started"}, placement("n1", 0))); err != nil {
			return err
		}
		if _, err := tx.UpdateJob(ctx, store.JobUpdate{ID: job.ID, Weight: &weight, Preemptible: &no, At: at(2 * time.Minute)}); err != nil {
			return err
		}
		_, err := tx.TransitionTask(ctx, store.TaskTransition{JobID: job.ID, From: store.TaskStarting, To: store.TaskRunning,
			Reason: "running"})
		return err
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	evs, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	type fact struct {
		index  int
		to     string
		change string
	}
	var got []fact
	for _, e := range evs {
		got = append(got, fact{e.Index, e.To, showChange(e.Change)})
	}
	wantEqual(t, "events", got, []fact{{-1, "queued", ""}, {-1, "queued", "42→7 -→- -→-"},
		{0, "starting", ""}, {-1, "queued", "-→- 1.5→0.1 true→false"}, {0, "running", ""}})
}

// showChange writes c as "from→to" for priority, weight and
// preemptibility, "-" for a value not kept; "" for no change.
func showChange(c *store.JobChange) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%s→%s %s→%s %s→%s", show(c.FromPriority), show(c.ToPriority), show(c.FromWeight), show(c.ToWeight),
		show(c.FromPreemptible), show(c.ToPreemptible))
}

func show[T any](p *T) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// testEventForJob: a preemption's transition keeps the job it makes room
// for and its rule, a shrink's its rule in words too (Why), written
// alone and within an Update, and read back (the job view's
// preempted_by, resizing); a transition to anything but preempting may
// name neither.
func testEventForJob(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	victim := mustCreate(t, s, sampleJob("victim"), 3)
	winner := mustCreate(t, s, sampleJob("winner"), 1)
	start := func(i int) store.TaskTransition {
		return withPlacement(store.TaskTransition{JobID: victim.ID, Index: i, From: store.TaskQueued, To: store.TaskStarting,
			Reason: "started"}, placement("n1", i))
	}
	preempt := func(i int) store.TaskTransition {
		return store.TaskTransition{JobID: victim.ID, Index: i, From: store.TaskStarting, To: store.TaskPreempting,
			Reason: "preempted for job", Cause: store.CausePriority, ForJob: winner.ID}
	}
	shrink := func(i int) store.TaskTransition { // a resize keeps its rule apart (Why)
		return store.TaskTransition{JobID: victim.ID, Index: i, From: store.TaskStarting, To: store.TaskPreempting,
			Reason: "resizing to 1 slot for job", Cause: store.CauseResized, ForJob: winner.ID, Why: "the rule",
			Reserve: placement("n1", i)}
	}
	move(t, s, start(0))
	move(t, s, preempt(0))
	err := s.Update(ctx, func(tx store.Tx) error {
		for _, tr := range []store.TaskTransition{start(1), preempt(1), start(2), shrink(2)} {
			if _, err := tx.TransitionTask(ctx, tr); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	evs, err := s.Events(ctx, store.EventFilter{JobID: victim.ID})
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, strings.TrimSpace(fmt.Sprintf("%d %s %s %d %s", e.Index, e.To, e.Cause, e.ForJob, e.Why)))
	}
	w := winner.ID
	wantEqual(t, "events", got, []string{"-1 queued  0", "0 starting  0", fmt.Sprintf("0 preempting priority %d", w),
		"1 starting  0", fmt.Sprintf("1 preempting priority %d", w), "2 starting  0", fmt.Sprintf("2 preempting resized %d the rule", w)})
	for _, bad := range []store.TaskTransition{
		{JobID: victim.ID, Index: 0, From: store.TaskPreempting, To: store.TaskRunning, ForJob: w},
		{JobID: victim.ID, Index: 0, From: store.TaskPreempting, To: store.TaskRunning, Why: "the rule"},
	} {
		if _, err := s.TransitionTask(ctx, bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("→ running naming a job made room for (%d) or a shrink's rule (%q): %v, want ErrInvalid", bad.ForJob, bad.Why, err)
		}
	}
}
