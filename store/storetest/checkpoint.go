package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testAttemptCheckpoint: an attempt keeps what its agents said its
// checkpoint directory held as it ended (migration 0029), whether the
// end is written alone or in an Update (where PostgreSQL defers and
// merges attempt writes), across a reopen; an end that says nothing
// keeps it unknown, and a value the store does not know is refused.
func testAttemptCheckpoint(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	want := []store.Checkpoint{store.CheckpointWritten, store.CheckpointNone, store.CheckpointUnknown, store.CheckpointWritten}
	job := mustCreate(t, s, sampleJob("checkpoints"), len(want))
	for i := range want {
		move(t, s, withPlacement(store.TaskTransition{JobID: job.ID, Index: i, From: store.TaskQueued, To: store.TaskStarting,
			At: at(time.Minute)}, placement("n1", i)))
	}
	end := func(idx int, c store.Checkpoint) store.TaskTransition {
		return store.TaskTransition{JobID: job.ID, Index: idx, From: store.TaskStarting, To: store.TaskFailed,
			At: at(2 * time.Minute), End: &store.AttemptEnd{State: store.AttemptFailed, Checkpoint: c}}
	}
	move(t, s, end(0, want[0]))
	move(t, s, end(1, want[1]))
	err := s.Update(ctx, func(tx store.Tx) error {
		move(t, tx, end(2, want[2]))
		move(t, tx, end(3, want[3]))
		return nil
	})
	if err != nil {
		t.Fatalf("end two attempts in one update: %v", err)
	}
	check := func(s store.Store, when string) {
		atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
		if err != nil || len(atts) != len(want) {
			t.Fatalf("%s: attempts %+v (%v), want %d", when, atts, err, len(want))
		}
		for i, a := range atts {
			if a.Checkpoint != want[i] {
				t.Errorf("%s: attempt of task %d has checkpoint %q, want %q", when, a.Index, a.Checkpoint, want[i])
			}
		}
	}
	check(s, "written")
	s = reopen(t, target, s)
	check(s, "reopened")

	other := mustCreate(t, s, sampleJob("refused checkpoint"), 1)
	move(t, s, withPlacement(store.TaskTransition{JobID: other.ID, From: store.TaskQueued, To: store.TaskStarting,
		At: at(time.Minute)}, placement("n1", 0)))
	_, err = s.TransitionTask(ctx, store.TaskTransition{JobID: other.ID, From: store.TaskStarting, To: store.TaskFailed,
		At: at(2 * time.Minute), End: &store.AttemptEnd{State: store.AttemptFailed, Checkpoint: "maybe"}})
	if !errors.Is(err, store.ErrInvalid) {
		t.Errorf("unknown checkpoint value: error %v, want %v", err, store.ErrInvalid)
	}
}
