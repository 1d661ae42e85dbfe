package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// runTo walks task 0 of job through an attempt on n1 to end (running or
// completed), and the job with it, all at when.
func runTo(t *testing.T, s store.Store, job store.Job, end store.TaskState, when time.Time) {
	t.Helper()
	ctx := ctxOf(t)
	steps := []store.TaskTransition{
		{From: store.TaskQueued, To: store.TaskStarting, Placement: placement("n1", 0)},
		{From: store.TaskStarting, To: store.TaskRunning},
	}
	if end != store.TaskRunning {
		steps = append(steps, store.TaskTransition{From: store.TaskRunning, To: end,
			End: &store.AttemptEnd{State: store.AttemptCompleted}})
	}
	for i, st := range steps {
		st.JobID, st.Index, st.Attempt, st.At = job.ID, 0, min(i, 1), when
		if _, err := s.TransitionTask(ctx, st); err != nil {
			t.Fatalf("job %d task %s → %s: %v", job.ID, st.From, st.To, err)
		}
	}
	if err := s.AppendLogs(ctx, []store.LogLine{{JobID: job.ID, Index: 0, Attempt: 1, Seq: 1, Time: when,
		Stream: store.Stdout, Text: "hello"}}); err != nil {
		t.Fatalf("logs: %v", err)
	}
	trs := []store.JobTransition{{From: store.JobQueued, To: store.JobRunning}}
	if end != store.TaskRunning {
		trs = append(trs, store.JobTransition{From: store.JobRunning, To: store.JobCompleted})
	}
	for _, tr := range trs {
		tr.ID, tr.At = job.ID, when
		if _, err := s.TransitionJob(ctx, tr); err != nil {
			t.Fatalf("job %d %s → %s: %v", job.ID, tr.From, tr.To, err)
		}
	}
}

// testPruneJobs: jobs that ended before the cutoff are forgotten with
// every row of theirs but usage, and counted (Forgotten); a killed job whose task is still being
// killed, and jobs that ended after the cutoff, stay.
func testPruneJobs(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	old1 := mustCreate(t, s, sampleJob("old1"), 1)
	old2 := mustCreate(t, s, sampleJob("old2"), 1)
	killing := mustCreate(t, s, sampleJob("killing"), 1)
	recent := mustCreate(t, s, sampleJob("recent"), 1)
	runTo(t, s, old1, store.TaskCompleted, at(time.Hour))
	runTo(t, s, old2, store.TaskCompleted, at(2*time.Hour))
	runTo(t, s, killing, store.TaskRunning, at(time.Hour))
	if _, err := s.TransitionTask(ctx, store.TaskTransition{JobID: killing.ID, Index: 0, From: store.TaskRunning,
		To: store.TaskKilling, Attempt: 1, At: at(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TransitionJob(ctx, store.JobTransition{ID: killing.ID, From: store.JobRunning, To: store.JobKilled,
		At: at(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	runTo(t, s, recent, store.TaskCompleted, at(48*time.Hour))
	if _, err := s.RecordUsage(ctx, store.Usage{Project: "vision", User: "ada", Pool: "a100", JobID: old1.ID,
		Attempt: 1, Start: at(0), End: at(time.Hour), GPUSeconds: 3600}); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Forgotten(ctx); err != nil || f != (store.Forgotten{}) {
		t.Fatalf("forgotten before any prune: %+v, %v; want none", f, err)
	}
	if _, err := s.PruneJobs(ctx, at(24*time.Hour), 0); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("prune with limit 0: %v, want invalid", err)
	}
	n, err := s.PruneJobs(ctx, at(24*time.Hour), 1)
	if err != nil || n != 1 {
		t.Fatalf("prune, limit 1: %d, %v; want 1", n, err)
	}
	if _, err := s.Job(ctx, old1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the oldest job after the prune: %v, want not found", err)
	}
	if f, err := s.Forgotten(ctx); err != nil || f.Jobs != 1 || !f.LastEnd.Equal(at(time.Hour)) || !f.Cutoff.Equal(at(24*time.Hour)) {
		t.Fatalf("forgotten after the first prune: %+v, %v; want 1 job, the last ended at %s, cutoff %s", f, err, at(time.Hour), at(24*time.Hour))
	}
	if n, err = s.PruneJobs(ctx, at(25*time.Hour), 10); err != nil || n != 1 {
		t.Fatalf("prune again: %d, %v; want 1 (old2)", n, err)
	}
	// Counted across prunes; the latest end and cutoff win.
	if f, err := s.Forgotten(ctx); err != nil || f.Jobs != 2 || !f.LastEnd.Equal(at(2*time.Hour)) || !f.Cutoff.Equal(at(25*time.Hour)) {
		t.Fatalf("forgotten after the second prune: %+v, %v; want 2 jobs, the last ended at %s, cutoff %s", f, err, at(2*time.Hour), at(25*time.Hour))
	}
	for _, id := range []int64{old1.ID, old2.ID} {
		tasks, _ := s.Tasks(ctx, store.TaskFilter{JobID: id})
		atts, _ := s.Attempts(ctx, store.AttemptFilter{JobID: id})
		evs, _ := s.Events(ctx, store.EventFilter{JobID: id})
		logs, _ := s.Logs(ctx, store.LogQuery{JobID: id, Index: 0})
		if len(tasks)+len(atts)+len(evs)+len(logs) != 0 {
			t.Fatalf("job %d pruned but left %d tasks, %d attempts, %d events, %d log lines", id,
				len(tasks), len(atts), len(evs), len(logs))
		}
	}
	for _, id := range []int64{killing.ID, recent.ID} {
		if _, err := s.Job(ctx, id); err != nil {
			t.Fatalf("job %d should stay: %v", id, err)
		}
	}
	if u, err := s.Usage(ctx, store.UsageFilter{}); err != nil || len(u) != 1 {
		t.Fatalf("usage after the prune: %+v, %v; want the record kept", u, err)
	}
	if n, err = s.PruneJobs(ctx, at(26*time.Hour), 10); err != nil || n != 0 {
		t.Fatalf("a third prune: %d, %v; want 0", n, err)
	}
	// A prune that forgets nothing leaves the count and its cutoff.
	if f, err := s.Forgotten(ctx); err != nil || f.Jobs != 2 || !f.Cutoff.Equal(at(25*time.Hour)) {
		t.Fatalf("forgotten after a prune that forgot nothing: %+v, %v; want it unchanged", f, err)
	}
}
