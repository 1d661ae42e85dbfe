package storetest

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

func testCreateJobRoundTrip(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	in := sampleJob("resnet")
	first, err := s.CreateJob(ctx, in, sampleTasks(3))
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	second := mustCreate(t, s, sampleJob("bert"), 1)
	if first.ID < 1 || second.ID <= first.ID {
		t.Fatalf("job ids %d then %d: want positive and increasing", first.ID, second.ID)
	}
	want := in
	want.ID, want.State = first.ID, store.JobQueued
	wantEqual(t, "CreateJob result", first, want)
	got, err := s.Job(ctx, first.ID)
	if err != nil {
		t.Fatalf("read job: %v", err)
	}
	wantEqual(t, "stored job", got, want)

	tasks, err := s.Tasks(ctx, store.TaskFilter{JobID: first.ID})
	if err != nil {
		t.Fatalf("list tasks: %v", err)
	}
	in3 := sampleTasks(3)
	if len(tasks) != 3 {
		t.Fatalf("%d tasks stored, want 3", len(tasks))
	}
	for i, task := range tasks {
		wantTask := store.Task{JobID: first.ID, Index: i, State: store.TaskQueued,
			Hyperparameters: in3[i].Hyperparameters, CheckpointDir: in3[i].CheckpointDir, UpdatedAt: in.SubmittedAt}
		wantEqual(t, "stored task", task, wantTask)
	}
	if _, err := s.Job(ctx, second.ID+100); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("reading a missing job: error %v, want ErrNotFound", err)
	}
}

func testCreateJobRejects(t *testing.T, target Target) {
	s := open(t, target)
	cases := []struct {
		name  string
		edit  func(j *store.Job, tasks *[]store.Task)
		error error
	}{
		{"no name", func(j *store.Job, _ *[]store.Task) { j.Name = "" }, store.ErrInvalid},
		{"no pool", func(j *store.Job, _ *[]store.Task) { j.Pool = "" }, store.ErrInvalid},
		{"unknown kind", func(j *store.Job, _ *[]store.Task) { j.Kind = "batch" }, store.ErrInvalid},
		{"priority 0", func(j *store.Job, _ *[]store.Task) { j.Priority = 0 }, store.ErrInvalid},
		{"priority 100", func(j *store.Job, _ *[]store.Task) { j.Priority = 100 }, store.ErrInvalid},
		{"zero weight", func(j *store.Job, _ *[]store.Task) { j.Weight = 0 }, store.ErrInvalid},
		{"NaN weight", func(j *store.Job, _ *[]store.Task) { j.Weight = math.NaN() }, store.ErrInvalid},
		{"negative slots", func(j *store.Job, _ *[]store.Task) { j.Slots = -1 }, store.ErrInvalid},
		{"negative time limit", func(j *store.Job, _ *[]store.Task) { j.TimeLimit = -time.Second }, store.ErrInvalid},
		{"spec not JSON", func(j *store.Job, _ *[]store.Task) { j.Spec = json.RawMessage(`{"a":`) }, store.ErrInvalid},
		{"no tasks", func(_ *store.Job, ts *[]store.Task) { *ts = nil }, store.ErrInvalid},
		{"bad hyperparameters", func(_ *store.Job, ts *[]store.Task) {
			(*ts)[1].Hyperparameters = json.RawMessage(`nope`)
		}, store.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job, tasks := sampleJob("bad"), sampleTasks(2)
			c.edit(&job, &tasks)
			_, err := s.CreateJob(ctxOf(t), job, tasks)
			wantErr(t, err, c.error, "create job with "+c.name)
		})
	}
	jobs, err := s.Jobs(ctxOf(t), store.JobFilter{})
	if err != nil || len(jobs) != 0 {
		t.Fatalf("after rejected creations: %d jobs, error %v; want none", len(jobs), err)
	}
}

// testCreateJobIsAtomic fails creations late, after rows were written, and
// checks that nothing of the job remains.
func testCreateJobIsAtomic(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	tasks := sampleTasks(1200) // several multi-row inserts
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.CreateJob(ctx, sampleJob("half"), tasks); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	// Task 1100 is checked only after the job row and the first 1000
	// tasks have been inserted, so its failure must undo those inserts.
	tasks[1100].Hyperparameters = json.RawMessage(`{"lr":`)
	if _, err := s.CreateJob(ctx, sampleJob("half"), tasks); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("creating a job whose task 1100 is invalid: error %v, want ErrInvalid", err)
	}
	jobs, err := s.Jobs(ctx, store.JobFilter{})
	if err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	all, err := s.Tasks(ctx, store.TaskFilter{})
	if err != nil {
		t.Fatalf("list tasks: %v", err)
	}
	events, err := s.Events(ctx, store.EventFilter{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	if len(jobs)+len(all)+len(events) != 0 {
		t.Fatalf("after failed creations: %d jobs, %d tasks, %d events; want none", len(jobs), len(all), len(events))
	}
	next := mustCreate(t, s, sampleJob("after"), 1)
	got, err := s.Tasks(ctx, store.TaskFilter{JobID: next.ID})
	if err != nil || len(got) != 1 {
		t.Fatalf("job created after the failures has %d tasks (error %v), want 1", len(got), err)
	}
}

func testUpdateRollsBack(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("keep"), 1)
	cases := []struct {
		name  string
		fail  func() error
		panic bool
	}{
		{"error", func() error { return errors.New("applier gave up") }, false},
		{"conflict", func() error {
			return &store.ConflictError{What: "task", Field: "state", Expected: "queued", Actual: "running"}
		}, false},
		{"panic", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			func() {
				defer func() {
					if r := recover(); (r != nil) != c.panic {
						t.Fatalf("recovered %v, want a panic: %v", r, c.panic)
					}
				}()
				err := s.Update(ctx, func(tx store.Tx) error {
					move(t, tx, store.TaskTransition{JobID: job.ID, From: store.TaskQueued, To: store.TaskStarting,
						Placement: placement("n1", 0), At: at(time.Minute)})
					if _, err := tx.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued,
						To: store.JobRunning}); err != nil {
						t.Errorf("transition job: %v", err)
					}
					if _, err := tx.CreateJob(ctx, sampleJob("never"), sampleTasks(2)); err != nil {
						t.Errorf("create job: %v", err)
					}
					if c.panic {
						panic("applier bug")
					}
					return c.fail()
				})
				if err == nil {
					t.Fatal("Update succeeded, want fn's error")
				}
			}()
			got, err := s.Job(ctx, job.ID)
			if err != nil || got.State != store.JobQueued {
				t.Fatalf("job after rollback: state %q, error %v; want queued", got.State, err)
			}
			tasks, err := s.Tasks(ctx, store.TaskFilter{})
			if err != nil || len(tasks) != 1 || tasks[0].State != store.TaskQueued || tasks[0].Attempt != 0 {
				t.Fatalf("tasks after rollback: %+v, error %v; want the one queued task", tasks, err)
			}
		})
	}
}

func testJobTransitions(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("j"), 1)
	run, err := s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobRunning,
		At: at(time.Minute), Reason: "task 0 started"})
	if err != nil || run.State != store.JobRunning || run.Reason != "task 0 started" || !run.EndedAt.IsZero() {
		t.Fatalf("queued → running: %+v, %v", run, err)
	}
	cases := []struct {
		name string
		tr   store.JobTransition
		want error
	}{
		{"stale from", store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled}, store.ErrConflict},
		{"missing job", store.JobTransition{ID: job.ID + 9, From: store.JobRunning, To: store.JobKilled}, store.ErrNotFound},
		{"no change", store.JobTransition{ID: job.ID, From: store.JobRunning, To: store.JobRunning}, store.ErrInvalid},
		{"unknown state", store.JobTransition{ID: job.ID, From: store.JobRunning, To: "paused"}, store.ErrInvalid},
		{"ended after the transition", store.JobTransition{ID: job.ID, From: store.JobRunning, To: store.JobCompleted,
			At: at(time.Hour), EndedAt: at(time.Hour + time.Second)}, store.ErrInvalid},
		{"an end for a live state", store.JobTransition{ID: job.ID, From: store.JobRunning, To: store.JobQueued,
			At: at(time.Hour), EndedAt: at(time.Hour)}, store.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.TransitionJob(ctx, c.tr)
			wantErr(t, err, c.want, "job "+string(c.tr.From)+" → "+string(c.tr.To))
		})
	}
	_, err = s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled})
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) || conflict.Expected != "queued" || conflict.Actual != "running" {
		t.Fatalf("conflict error %#v, want expected queued, actual running", err)
	}
	// Its task exited a minute before the master heard of it: the job
	// ended then, and its event keeps when the master heard.
	done, err := s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobRunning, To: store.JobCompleted,
		At: at(time.Hour), EndedAt: at(59 * time.Minute), Reason: "all tasks completed"})
	if err != nil || !done.EndedAt.Equal(at(59*time.Minute)) {
		t.Fatalf("running → completed: ended %v, error %v; want ended at %v", done.EndedAt, err, at(59*time.Minute))
	}
	evs, err := s.Events(ctx, store.EventFilter{JobID: job.ID, To: string(store.JobCompleted)})
	if err != nil || len(evs) != 1 || !evs[0].At.Equal(at(time.Hour)) {
		t.Fatalf("events of the end: %+v, %v; want one at %v", evs, err, at(time.Hour))
	}
	_, err = s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobCompleted, To: store.JobQueued})
	wantErr(t, err, store.ErrInvalid, "leaving a terminal state")
}

// testMoveJobEnd: a killed job's end moves later, to its last task's,
// with no event; a job not ended so, or an end earlier than the one it
// has, is refused and changes nothing.
func testMoveJobEnd(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("j"), 1)
	live := mustCreate(t, s, sampleJob("live"), 1)
	if _, err := s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled,
		At: at(time.Minute), Reason: "killed"}); err != nil {
		t.Fatal(err)
	}
	before, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		id    int64
		state store.JobState
		at    time.Time
		want  error
	}{
		{"not ended so", job.ID, store.JobFailed, at(time.Hour), store.ErrConflict},
		{"a live job", live.ID, store.JobKilled, at(time.Hour), store.ErrConflict},
		{"a live state", job.ID, store.JobRunning, at(time.Hour), store.ErrInvalid},
		{"earlier", job.ID, store.JobKilled, at(time.Second), store.ErrInvalid},
		{"no time", job.ID, store.JobKilled, time.Time{}, store.ErrInvalid},
		{"missing job", job.ID + 9, store.JobKilled, at(time.Hour), store.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.MoveJobEnd(ctx, c.id, c.state, c.at)
			wantErr(t, err, c.want, "move the end")
		})
	}
	if got, err := s.Job(ctx, job.ID); err != nil || !got.EndedAt.Equal(at(time.Minute)) {
		t.Fatalf("after the refusals: ended %v, error %v; want %v", got.EndedAt, err, at(time.Minute))
	}
	moved, err := s.MoveJobEnd(ctx, job.ID, store.JobKilled, at(time.Hour))
	if err != nil || !moved.EndedAt.Equal(at(time.Hour)) || moved.State != store.JobKilled || moved.Reason != "killed" {
		t.Fatalf("moved: %+v, %v; want killed, ended at %v, reason kept", moved, err, at(time.Hour))
	}
	if got, err := s.Job(ctx, job.ID); err != nil || !got.EndedAt.Equal(at(time.Hour)) {
		t.Fatalf("read back: ended %v, error %v; want %v", got.EndedAt, err, at(time.Hour))
	}
	after, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(after) != len(before) {
		t.Fatalf("events: %d then %d, error %v; want none added", len(before), len(after), err)
	}
}

func testUpdateJob(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("j"), 1)
	prio, weight, class := 7, 3.0, "HIGH"
	got, err := s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, Priority: &prio, Weight: &weight, PriorityClass: &class,
		At: at(time.Minute), Reason: "by ada"})
	if err != nil || got.Priority != 7 || got.Weight != 3 || got.PriorityClass != "HIGH" {
		t.Fatalf("update job: %+v, %v", got, err)
	}
	stored, err := s.Job(ctx, job.ID)
	if err != nil {
		t.Fatalf("read job: %v", err)
	}
	wantEqual(t, "stored job after update", stored, got)
	events, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(events) != 2 {
		t.Fatalf("events after update: %+v, %v; want submit and update", events, err)
	}
	wantReason := `priority 42 → 7, priority class "NORMAL" → "HIGH", weight 1.5 → 3: by ada`
	if e := events[1]; e.Reason != wantReason || e.From != "queued" || e.To != "queued" || !e.At.Equal(at(time.Minute)) {
		t.Fatalf("update event %+v, want reason %q at %v", e, wantReason, at(time.Minute))
	}
	no := false
	for range 2 { // the second update changes nothing and logs nothing
		got, err = s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, Preemptible: &no, At: at(2 * time.Minute), Reason: "x"})
		if stored, rerr := s.Job(ctx, job.ID); err != nil || rerr != nil || got.Preemptible || stored.Preemptible {
			t.Fatalf("update preemptible to false: %+v, stored %+v (errors %v, %v)", got, stored, err, rerr)
		}
	}
	events, err = s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(events) != 3 || events[2].Reason != "preemptible true → false: x" {
		t.Fatalf("events after preemptible changes: %+v, %v; want a third saying preemptible true → false", events, err)
	}
	bad := 0
	cases := []struct {
		name string
		u    store.JobUpdate
		want error
	}{
		{"priority out of range", store.JobUpdate{ID: job.ID, Priority: &bad}, store.ErrInvalid},
		{"missing job", store.JobUpdate{ID: job.ID + 5, Priority: &prio}, store.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.UpdateJob(ctx, c.u)
			wantErr(t, err, c.want, "update job")
		})
	}
	if _, err := s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled}); err != nil {
		t.Fatalf("kill job: %v", err)
	}
	_, err = s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, Priority: &prio})
	wantErr(t, err, store.ErrConflict, "updating a killed job")
}
