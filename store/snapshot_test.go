package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
)

// TestJobRecordsOneSnapshot: an attempt that ends between the reads of a
// job's tasks and of its attempts is, in JobRecords's snapshot, open with
// its task running in both reads; the same reads made apart show the
// task running and its attempt ended (what GET /jobs/{id} once showed
// the other way round). Both dialects: PostgreSQL's snapshot needs its
// isolation level, SQLite's its read transaction.
func TestJobRecordsOneSnapshot(t *testing.T) {
	for _, c := range []struct {
		name string
		dsn  func(t testing.TB) string
	}{
		{"sqlite", func(testing.TB) string { return "" }},
		{"postgres", pgtest.DSN},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			st, err := Open(ctx, c.dsn(t), t.TempDir())
			if err != nil {
				t.Fatalf("open store: %v", err)
			}
			defer st.Close()
			s := st.(*sqlStore)
			for _, apart := range []bool{false, true} {
				id := runningJob(ctx, t, s)
				var tasks []Task
				var atts []Attempt
				read := func(o *ops) error {
					var err error
					if tasks, err = o.Tasks(ctx, TaskFilter{JobID: id}); err != nil {
						return err
					}
					if _, err := s.TransitionTask(ctx, TaskTransition{JobID: id, From: TaskRunning, To: TaskKilled,
						End: &AttemptEnd{State: AttemptKilled}}); err != nil {
						return err
					}
					atts, err = o.Attempts(ctx, AttemptFilter{JobID: id})
					return err
				}
				if apart {
					err = read(s.reads)
				} else {
					err = s.snapshot(ctx, read)
				}
				if err != nil {
					t.Fatalf("apart %t: %v", apart, err)
				}
				if len(tasks) != 1 || len(atts) != 1 || tasks[0].State != TaskRunning {
					t.Fatalf("apart %t: tasks %+v, attempts %+v: want the task read running and one attempt", apart, tasks, atts)
				}
				if atts[0].Open() == apart {
					t.Errorf("apart %t: the attempt of the task read running is open %t", apart, atts[0].Open())
				}
			}
		})
	}
}

// runningJob makes a job of one task running and returns its id.
func runningJob(ctx context.Context, t *testing.T, s Store) int64 {
	t.Helper()
	job, err := s.CreateJob(ctx, Job{Name: "snap", Kind: KindCommand, Project: "p", User: "u", Pool: "default", Priority: 42,
		Weight: 1, Slots: 1, Entrypoint: "true"}, make([]Task, 1))
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	_, err1 := s.TransitionTask(ctx, TaskTransition{JobID: job.ID, From: TaskQueued, To: TaskStarting,
		Placement: []Placement{{Node: "n1"}}})
	_, err2 := s.TransitionTask(ctx, TaskTransition{JobID: job.ID, From: TaskStarting, To: TaskRunning})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatalf("start the task: %v", err)
	}
	return job.ID
}
