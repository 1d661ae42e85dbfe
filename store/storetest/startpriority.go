package storetest

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testAttemptStartPriority: an attempt keeps the multi-factor priority
// its start gave it (migration 0022), whether the start is written alone
// or in an Update (where PostgreSQL defers and merges attempt writes),
// across a reopen; a start without one keeps 0; a priority on any other
// transition, or one that is not finite, is refused.
func testAttemptStartPriority(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("priorities"), 4)
	start := func(idx int, prio float64) store.TaskTransition {
		return withPlacement(store.TaskTransition{JobID: job.ID, Index: idx, From: store.TaskQueued, To: store.TaskStarting,
			At: at(time.Minute), StartPriority: prio}, placement("n1", idx))
	}
	// Fractions a float32 or a text round trip would lose.
	want := []float64{10125.123456789012, 0, 1e-7, 98765.4321}
	move(t, s, start(0, want[0]))
	move(t, s, start(1, want[1]))
	err := s.Update(ctx, func(tx store.Tx) error {
		move(t, tx, start(2, want[2]))
		move(t, tx, start(3, want[3]))
		return nil
	})
	if err != nil {
		t.Fatalf("start two attempts in one update: %v", err)
	}
	check := func(s store.Store, when string) {
		atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID, OpenOnly: true})
		if err != nil || len(atts) != len(want) {
			t.Fatalf("%s: open attempts %+v (%v), want %d", when, atts, err, len(want))
		}
		for i, a := range atts {
			if a.StartPriority != want[i] {
				t.Errorf("%s: attempt of task %d has start priority %v, want %v", when, a.Index, a.StartPriority, want[i])
			}
		}
	}
	check(s, "written")
	s = reopen(t, target, s)
	check(s, "reopened")

	other := mustCreate(t, s, sampleJob("refused priorities"), 1)
	for _, tc := range []struct {
		name string
		tr   store.TaskTransition
	}{
		{"not a start", store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskStarting, To: store.TaskRunning,
			StartPriority: 5}},
		{"NaN", withPlacement(store.TaskTransition{JobID: other.ID, From: store.TaskQueued, To: store.TaskStarting,
			StartPriority: math.NaN()}, placement("n1", 0))},
		{"infinite", withPlacement(store.TaskTransition{JobID: other.ID, From: store.TaskQueued, To: store.TaskStarting,
			StartPriority: math.Inf(1)}, placement("n1", 0))},
	} {
		if _, err := s.TransitionTask(ctx, tc.tr); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: error %v, want %v", tc.name, err, store.ErrInvalid)
		}
	}
}
