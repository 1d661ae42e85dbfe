package storetest

import (
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testAmendLostEnd: a late exit amends an attempt ended lost, its task,
// its job and its usage in one transaction, with an event for the task
// and one for the job; one that does not match what the store has (the
// task's state or attempt, an attempt not lost, an exit outside the
// attempt, the job's state) changes nothing.
func testAmendLostEnd(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("held"), 1)
	steps := []store.TaskTransition{
		{From: store.TaskQueued, To: store.TaskStarting, Placement: placement("n1", 0, 1), At: at(0)},
		{From: store.TaskStarting, To: store.TaskRunning, Attempt: 1, At: at(0)},
		{From: store.TaskRunning, To: store.TaskFailed, Attempt: 1, At: at(2 * time.Minute), Reason: "node n1 lost",
			End: &store.AttemptEnd{State: store.AttemptLost}},
	}
	for _, st := range steps {
		st.JobID = job.ID
		if _, err := s.TransitionTask(ctx, st); err != nil {
			t.Fatalf("task %s → %s: %v", st.From, st.To, err)
		}
	}
	for _, tr := range []store.JobTransition{{From: store.JobQueued, To: store.JobRunning}, {From: store.JobRunning, To: store.JobFailed}} {
		tr.ID, tr.At = job.ID, at(2*time.Minute)
		if _, err := s.TransitionJob(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range [][2]time.Duration{{0, 30 * time.Second}, {30 * time.Second, 2 * time.Minute}} {
		if _, err := s.RecordUsage(ctx, store.Usage{Project: "vision", User: "ada", Pool: "a100", JobID: job.ID, Attempt: 1,
			Start: at(u[0]), End: at(u[1]), GPUSeconds: 2 * (u[1] - u[0]).Seconds()}); err != nil {
			t.Fatal(err)
		}
	}
	zero := 0
	late := func(change func(*store.LateExit)) store.LateExit {
		l := store.LateExit{JobID: job.ID, Attempt: 1, From: store.TaskFailed, To: store.TaskCompleted,
			State: store.AttemptCompleted, ExitCode: &zero, ExitedAt: at(time.Minute), At: at(3 * time.Minute),
			Reason: "completed while its node was lost", JobFrom: store.JobFailed, JobTo: store.JobCompleted, JobReason: "every task completed"}
		if change != nil {
			change(&l)
		}
		return l
	}
	for _, c := range []struct {
		name   string
		change func(*store.LateExit)
		want   error
	}{
		{"task not in From", func(l *store.LateExit) { l.From = store.TaskKilled }, store.ErrConflict},
		{"another attempt", func(l *store.LateExit) { l.Attempt = 2 }, store.ErrConflict},
		{"job not in JobFrom", func(l *store.LateExit) { l.JobFrom = store.JobKilled }, store.ErrConflict},
		{"exit after the end", func(l *store.LateExit) { l.ExitedAt = at(2 * time.Minute) }, store.ErrInvalid},
		{"exit before the start", func(l *store.LateExit) { l.ExitedAt = at(-time.Second) }, store.ErrInvalid},
		{"a live task state", func(l *store.LateExit) { l.To = store.TaskRunning }, store.ErrInvalid},
		{"missing task", func(l *store.LateExit) { l.JobID += 9 }, store.ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := s.AmendLostEnd(ctx, late(c.change))
			wantErr(t, err, c.want, "amend")
		})
	}
	before, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	task, trims, err := s.AmendLostEnd(ctx, late(nil))
	if err != nil || task.State != store.TaskCompleted || len(trims) != 1 || !trims[0].After.End.Equal(at(time.Minute)) ||
		math.Abs(trims[0].After.GPUSeconds-60) > 1e-9 || math.Abs(trims[0].Before.GPUSeconds-180) > 1e-9 {
		t.Fatalf("amend: task %+v, trims %+v, %v; want completed, the second record cut to 30s..1m, 60 GPU-seconds", task, trims, err)
	}
	atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
	if err != nil || len(atts) != 1 || atts[0].EndState != store.AttemptCompleted || !atts[0].ExitedAt.Equal(at(time.Minute)) ||
		!atts[0].EndedAt.Equal(at(2*time.Minute)) || atts[0].ExitCode == nil || *atts[0].ExitCode != 0 {
		t.Fatalf("attempts %+v, %v; want one completed, exit 0, exited at 1m, ended at 2m", atts, err)
	}
	if j, err := s.Job(ctx, job.ID); err != nil || j.State != store.JobCompleted || !j.EndedAt.Equal(at(2*time.Minute)) {
		t.Fatalf("job %+v, %v; want completed, its end kept", j, err)
	}
	usage, err := s.Usage(ctx, store.UsageFilter{})
	sum := 0.0
	for _, u := range usage {
		sum += u.GPUSeconds
	}
	if err != nil || math.Abs(sum-120) > 1e-9 {
		t.Fatalf("usage %+v, %v: %v GPU-seconds, want 120", usage, err, sum)
	}
	after, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(after) != len(before)+2 || after[len(after)-2].To != "completed" || after[len(after)-1].Index != -1 {
		t.Fatalf("events %+v, %v; want the task's and the job's amendments added", after, err)
	}
	_, _, err = s.AmendLostEnd(ctx, late(func(l *store.LateExit) { l.From = store.TaskCompleted; l.JobTo = "" }))
	wantErr(t, err, store.ErrConflict, "amend again")
}
