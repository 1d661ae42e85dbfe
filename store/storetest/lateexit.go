package storetest

import (
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testAmendLostEnd: a late exit amends an attempt ended lost, its task,
// its job (its state and its end) and its usage in one transaction, with
// an event for the task and one for the job; one that does not match
// what the store has (the task's state or attempt, an attempt not lost,
// an exit outside the attempt, the job's state) changes nothing.
func testAmendLostEnd(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := lostJob(t, s, nil)
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
			_, _, err := s.AmendLostEnd(ctx, lateExitOf(job.ID, c.change))
			wantErr(t, err, c.want, "amend")
		})
	}
	before, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	task, trims, err := s.AmendLostEnd(ctx, lateExitOf(job.ID, nil))
	if err != nil || task.State != store.TaskCompleted || len(trims) != 1 || !trims[0].After.End.Equal(at(time.Minute)) ||
		math.Abs(trims[0].After.GPUSeconds-60) > 1e-9 || math.Abs(trims[0].Before.GPUSeconds-180) > 1e-9 {
		t.Fatalf("amend: task %+v, trims %+v, %v; want completed, the second record cut to 30s..1m, 60 GPU-seconds", task, trims, err)
	}
	checkAmended(t, s, job.ID, at(time.Minute))
	after, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(after) != len(before)+2 || after[len(after)-2].To != "completed" || after[len(after)-1].Index != -1 {
		t.Fatalf("events %+v, %v; want the task's and the job's amendments added", after, err)
	}
	_, _, err = s.AmendLostEnd(ctx, lateExitOf(job.ID, func(l *store.LateExit) { l.From = store.TaskCompleted; l.JobTo = "" }))
	wantErr(t, err, store.ErrConflict, "amend again")
}

// testAmendLostEndJobEnd: the job a late exit ends otherwise ends when
// its tasks now ended: at the exit, or at a later end of another task,
// never after the end it had.
func testAmendLostEndJobEnd(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	for _, c := range []struct {
		name  string
		other time.Duration // when the job's other task ended; 0: no other task
		want  time.Duration
	}{
		{"alone: at the exit", 0, time.Minute},
		{"another task ended after the exit", 90 * time.Second, 90 * time.Second},
		{"another task ended before the exit", 40 * time.Second, time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			var other *time.Duration
			if c.other > 0 {
				other = &c.other
			}
			job := lostJob(t, s, other)
			if _, _, err := s.AmendLostEnd(ctx, lateExitOf(job.ID, nil)); err != nil {
				t.Fatal(err)
			}
			if j, err := s.Job(ctx, job.ID); err != nil || j.State != store.JobCompleted || !j.EndedAt.Equal(at(c.want)) {
				t.Fatalf("job %+v, %v; want completed, ended at %s", j, err, c.want)
			}
		})
	}
}

// lostJob is a job whose task 0 ran on n1 from 0 to 2m, charged 2 GPUs
// throughout in two records (0..30s, 30s..2m), and failed as lost at 2m,
// which failed the job; with other, a second task completed on n2 at
// *other.
func lostJob(t *testing.T, s store.Store, other *time.Duration) store.Job {
	t.Helper()
	ctx := ctxOf(t)
	tasks := 1
	if other != nil {
		tasks = 2
	}
	job := mustCreate(t, s, sampleJob("held"), tasks)
	steps := []store.TaskTransition{
		{From: store.TaskQueued, To: store.TaskStarting, Placement: placement("n1", 0, 1), At: at(0)},
		{From: store.TaskStarting, To: store.TaskRunning, Attempt: 1, At: at(0)},
		{From: store.TaskRunning, To: store.TaskFailed, Attempt: 1, At: at(2 * time.Minute), Reason: "node n1 lost",
			End: &store.AttemptEnd{State: store.AttemptLost}},
	}
	if other != nil {
		steps = append(steps,
			store.TaskTransition{Index: 1, From: store.TaskQueued, To: store.TaskStarting, Placement: placement("n2", 0), At: at(0)},
			store.TaskTransition{Index: 1, From: store.TaskStarting, To: store.TaskRunning, Attempt: 1, At: at(0)},
			store.TaskTransition{Index: 1, From: store.TaskRunning, To: store.TaskCompleted, Attempt: 1, At: at(*other),
				End: &store.AttemptEnd{State: store.AttemptCompleted}})
	}
	for _, st := range steps {
		st.JobID = job.ID
		if _, err := s.TransitionTask(ctx, st); err != nil {
			t.Fatalf("task %d %s → %s: %v", st.Index, st.From, st.To, err)
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
	return job
}

// lateExitOf is the late exit of lostJob's task 0 at 1m, completed, heard
// at 3m, changed by change.
func lateExitOf(job int64, change func(*store.LateExit)) store.LateExit {
	zero := 0
	l := store.LateExit{JobID: job, Attempt: 1, From: store.TaskFailed, To: store.TaskCompleted,
		State: store.AttemptCompleted, ExitCode: &zero, ExitedAt: at(time.Minute), At: at(3 * time.Minute),
		Reason: "completed while its node was lost", JobFrom: store.JobFailed, JobTo: store.JobCompleted, JobReason: "every task completed"}
	if change != nil {
		change(&l)
	}
	return l
}

// checkAmended checks lostJob's job after a late exit at exited: its
// attempt completed, exit 0, exited then and ended where it did; the job
// completed and ended then; its task's usage 2 GPUs until then.
func checkAmended(t *testing.T, s store.Store, job int64, exited time.Time) {
	t.Helper()
	ctx := ctxOf(t)
	atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job})
	if err != nil || len(atts) != 1 || atts[0].EndState != store.AttemptCompleted || !atts[0].ExitedAt.Equal(exited) ||
		!atts[0].EndedAt.Equal(at(2*time.Minute)) || atts[0].ExitCode == nil || *atts[0].ExitCode != 0 {
		t.Fatalf("attempts %+v, %v; want one completed, exit 0, exited at %s, ended at 2m", atts, err, exited)
	}
	if j, err := s.Job(ctx, job); err != nil || j.State != store.JobCompleted || !j.EndedAt.Equal(exited) ||
		j.Reason != "every task completed" {
		t.Fatalf("job %+v, %v; want completed (every task completed), ended at the exit", j, err)
	}
	usage, err := s.Usage(ctx, store.UsageFilter{JobIDs: []int64{job}})
	sum := 0.0
	for _, u := range usage {
		sum += u.GPUSeconds
	}
	if want := 2 * exited.Sub(at(0)).Seconds(); err != nil || math.Abs(sum-want) > 1e-9 {
		t.Fatalf("usage %+v, %v: %v GPU-seconds, want %v", usage, err, sum, want)
	}
}

// testRecordPartExits: the part exits of a multi-node attempt ended lost
// are kept, each part's first one, and read back in node order; one of
// a node the attempt did not run on, outside the attempt, or of an
// attempt not lost, is refused and changes nothing.
func testRecordPartExits(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("gang"), 1)
	steps := []store.TaskTransition{
		{From: store.TaskQueued, To: store.TaskStarting, Placement: append(placement("n2", 0), placement("n1", 0)...), At: at(0)},
		{From: store.TaskStarting, To: store.TaskRunning, Attempt: 1, At: at(0)},
		{From: store.TaskRunning, To: store.TaskFailed, Attempt: 1, At: at(2 * time.Minute), Reason: "node n2 lost",
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
	one, three := 1, 3
	exit := func(node string, state store.AttemptState, code *int, after time.Duration) store.PartExit {
		return store.PartExit{Node: node, State: state, ExitCode: code, ExitedAt: at(after)}
	}
	for _, c := range []struct {
		name    string
		attempt int
		part    store.PartExit
		want    error
	}{
		{"a node it did not run on", 1, exit("n3", store.AttemptCompleted, nil, time.Minute), store.ErrInvalid},
		{"after the end", 1, exit("n1", store.AttemptCompleted, nil, 2*time.Minute), store.ErrInvalid},
		{"killed", 1, exit("n1", store.AttemptKilled, nil, time.Minute), store.ErrInvalid},
		{"no such attempt", 2, exit("n1", store.AttemptCompleted, nil, time.Minute), store.ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.RecordPartExits(ctx, job.ID, 0, c.attempt, []store.PartExit{c.part})
			wantErr(t, err, c.want, "record")
		})
	}
	if got, err := s.RecordPartExits(ctx, job.ID, 0, 1, []store.PartExit{exit("n2", store.AttemptFailed, &three, 70*time.Second)}); err != nil ||
		len(got) != 1 || got[0].Node != "n2" || got[0].ExitCode == nil || *got[0].ExitCode != 3 || !got[0].ExitedAt.Equal(at(70*time.Second)) {
		t.Fatalf("first part: %+v, %v; want n2's failure (exit 3 at 70s)", got, err)
	}
	got, err := s.RecordPartExits(ctx, job.ID, 0, 1, []store.PartExit{exit("n1", store.AttemptCompleted, nil, time.Minute),
		exit("n2", store.AttemptFailed, &one, 80*time.Second)})
	if err != nil || len(got) != 2 || got[0].Node != "n1" || got[0].State != store.AttemptCompleted || got[0].ExitCode != nil ||
		got[1].Node != "n2" || *got[1].ExitCode != 3 {
		t.Fatalf("both parts: %+v, %v; want n1 completed, n2 its first exit (3)", got, err)
	}
	if n, err := s.PruneJobs(ctx, at(time.Hour), 10); err == nil && n == 0 {
		t.Fatalf("prune: nothing pruned")
	} else if err != nil {
		t.Fatalf("prune a job with part exits: %v", err)
	}
}
