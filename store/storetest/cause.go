package storetest

import (
	"testing"

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
