package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/allot-sched/allot/store"
)

// testJobRecords: JobRecords returns a job with its tasks and their
// attempts, as Job, Tasks and Attempts read them, and no other job's;
// ErrNotFound for no such job; inside Update, what the transaction wrote.
// That the three are one snapshot when a write lands between them is
// TestJobRecordsOneSnapshot's (package store), which can write there.
func testJobRecords(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	a := mustCreate(t, s, sampleJob("a"), 2)
	b := mustCreate(t, s, sampleJob("b"), 1)
	for _, j := range []int64{a.ID, b.ID} {
		move(t, s, store.TaskTransition{JobID: j, Index: 0, From: store.TaskQueued, To: store.TaskStarting,
			Placement: placement("n1", 0), At: at(2e9)})
	}
	move(t, s, store.TaskTransition{JobID: a.ID, Index: 0, From: store.TaskStarting, To: store.TaskRunning, At: at(3e9)})
	move(t, s, store.TaskTransition{JobID: a.ID, Index: 0, From: store.TaskRunning, To: store.TaskKilled, At: at(4e9),
		End: &store.AttemptEnd{State: store.AttemptKilled, ExitedAt: at(4e9)}})
	move(t, s, store.TaskTransition{JobID: a.ID, Index: 1, From: store.TaskQueued, To: store.TaskStarting,
		Placement: placement("n2", 1), At: at(5e9)})

	t.Run("as the reads of each", func(t *testing.T) {
		got, err := s.JobRecords(ctx, a.ID)
		if err != nil {
			t.Fatalf("job records: %v", err)
		}
		job, err1 := s.Job(ctx, a.ID)
		tasks, err2 := s.Tasks(ctx, store.TaskFilter{JobID: a.ID})
		atts, err3 := s.Attempts(ctx, store.AttemptFilter{JobID: a.ID})
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatalf("reads: %v", err)
		}
		wantEqual(t, "job records", got, store.JobRecords{Job: job, Tasks: tasks, Attempts: atts})
		if len(got.Tasks) != 2 || len(got.Attempts) != 2 || got.Attempts[0].Open() || !got.Attempts[1].Open() {
			t.Fatalf("job records %+v: want 2 tasks, task 0's attempt ended and task 1's open", got)
		}
	})
	t.Run("no such job", func(t *testing.T) {
		_, err := s.JobRecords(ctx, b.ID+100)
		wantErr(t, err, store.ErrNotFound, "job records of a job never made")
	})
	t.Run("in a transaction", func(t *testing.T) {
		errRollback := errors.New("roll back")
		err := s.Update(ctx, func(tx store.Tx) error {
			move(t, tx, store.TaskTransition{JobID: b.ID, Index: 0, From: store.TaskStarting, To: store.TaskFailed,
				At: at(6e9), End: &store.AttemptEnd{State: store.AttemptFailed, ExitedAt: at(6e9)}})
			got, err := tx.JobRecords(context.WithoutCancel(ctx), b.ID)
			if err != nil {
				t.Fatalf("job records in the transaction: %v", err)
			}
			if got.Tasks[0].State != store.TaskFailed || len(got.Attempts) != 1 || got.Attempts[0].Open() {
				t.Fatalf("job records in the transaction %+v: want its write, the task failed and its attempt ended", got)
			}
			return errRollback
		})
		wantErr(t, err, errRollback, "the transaction")
		got, err := s.JobRecords(ctx, b.ID)
		if err != nil || got.Tasks[0].State != store.TaskStarting || !got.Attempts[0].Open() {
			t.Fatalf("after the rollback: %+v (error %v), want the task starting, its attempt open", got, err)
		}
	})
}
