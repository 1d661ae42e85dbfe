package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testTaskLifecycle walks a task through a preemption and a resume, and
// checks attempts, restarts and the event log on the way.
func testTaskLifecycle(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("trial"), 2)
	k := func(from, to store.TaskState, min int) store.TaskTransition {
		return store.TaskTransition{JobID: job.ID, Index: 1, From: from, To: to, At: at(time.Duration(min) * time.Minute),
			Reason: string(from) + "→" + string(to)}
	}
	steps := []struct {
		tr          store.TaskTransition
		attempt     int
		restarts    int
		wantCkpt    string
		description string
	}{
		{withPlacement(k(store.TaskQueued, store.TaskStarting, 1), placement("n1", 0, 1)), 1, 0, "/ckpt/1", "start"},
		{k(store.TaskStarting, store.TaskRunning, 2), 1, 0, "/ckpt/1", "running"},
		{k(store.TaskRunning, store.TaskPreempting, 3), 1, 0, "/ckpt/1", "checkpoint requested"},
		{withEnd(k(store.TaskPreempting, store.TaskPreempted, 4), store.AttemptPreempted, intp(143)), 1, 1, "/ckpt/1", "preempted"},
		{k(store.TaskPreempted, store.TaskQueued, 5), 1, 1, "/ckpt/1", "requeued"},
		{withCkpt(withPlacement(k(store.TaskQueued, store.TaskStarting, 6), placement("n2", 3)), "/ckpt/1b"), 2, 1, "/ckpt/1b", "restart"},
		{k(store.TaskStarting, store.TaskRunning, 7), 2, 1, "/ckpt/1b", "running again"},
		{withEnd(k(store.TaskRunning, store.TaskCompleted, 8), store.AttemptCompleted, intp(0)), 2, 1, "/ckpt/1b", "completed"},
	}
	for _, st := range steps {
		task := move(t, s, st.tr)
		if task.State != st.tr.To || task.Attempt != st.attempt || task.Restarts != st.restarts ||
			task.CheckpointDir != st.wantCkpt || !task.UpdatedAt.Equal(st.tr.At) || task.Reason != st.tr.Reason {
			t.Fatalf("%s: task %+v, want state %s, attempt %d, restarts %d, checkpoint %s",
				st.description, task, st.tr.To, st.attempt, st.restarts, st.wantCkpt)
		}
	}
	attempts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
	if err != nil {
		t.Fatalf("list attempts: %v", err)
	}
	want := []store.Attempt{
		{JobID: job.ID, Index: 1, Number: 1, Placement: placement("n1", 0, 1), StartedAt: at(1 * time.Minute),
			RunningAt: at(2 * time.Minute), EndedAt: at(4 * time.Minute), ExitedAt: at(4 * time.Minute), EndState: store.AttemptPreempted,
			ExitCode: intp(143), Reason: "preempting→preempted"},
		{JobID: job.ID, Index: 1, Number: 2, Placement: placement("n2", 3), StartedAt: at(6 * time.Minute),
			RunningAt: at(7 * time.Minute), EndedAt: at(8 * time.Minute), ExitedAt: at(8 * time.Minute), EndState: store.AttemptCompleted,
			ExitCode: intp(0), Reason: "running→completed"},
	}
	wantEqual(t, "attempts", attempts, want)
	events, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(events) != 1+len(steps) {
		t.Fatalf("%d events (error %v), want %d", len(events), err, 1+len(steps))
	}
	for i, st := range steps {
		e := events[i+1]
		if e.Index != 1 || e.From != string(st.tr.From) || e.To != string(st.tr.To) || e.Attempt != st.attempt ||
			!e.At.Equal(st.tr.At) || e.Reason != st.tr.Reason || e.Seq <= events[i].Seq {
			t.Fatalf("event %d: %+v, want %s → %s of attempt %d", i+1, e, st.tr.From, st.tr.To, st.attempt)
		}
	}
}

func withPlacement(tr store.TaskTransition, p []store.Placement) store.TaskTransition {
	tr.Placement = p
	return tr
}

func withEnd(tr store.TaskTransition, state store.AttemptState, exit *int) store.TaskTransition {
	tr.End = &store.AttemptEnd{State: state, ExitCode: exit}
	return tr
}

func withCkpt(tr store.TaskTransition, dir string) store.TaskTransition {
	tr.CheckpointDir = dir
	return tr
}

func testTaskTransitionRejects(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("j"), 2)
	tr := func(from, to store.TaskState) store.TaskTransition {
		return store.TaskTransition{JobID: job.ID, Index: 0, From: from, To: to}
	}
	move(t, s, withPlacement(tr(store.TaskQueued, store.TaskStarting), placement("n1", 0)))
	move(t, s, tr(store.TaskStarting, store.TaskRunning))
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 1, From: store.TaskQueued, To: store.TaskKilled})
	cases := []struct {
		name string
		tr   store.TaskTransition
		want error
	}{
		{"stale from", withPlacement(tr(store.TaskQueued, store.TaskStarting), placement("n1", 0)), store.ErrConflict},
		{"stale attempt", func() store.TaskTransition { x := tr(store.TaskRunning, store.TaskKilling); x.Attempt = 2; return x }(), store.ErrConflict},
		{"missing task", store.TaskTransition{JobID: job.ID, Index: 7, From: store.TaskRunning, To: store.TaskKilling}, store.ErrNotFound},
		{"missing job", store.TaskTransition{JobID: job.ID + 1, Index: 0, From: store.TaskRunning, To: store.TaskKilling}, store.ErrNotFound},
		{"start without placement", tr(store.TaskQueued, store.TaskStarting), store.ErrInvalid},
		{"start from running", withPlacement(tr(store.TaskRunning, store.TaskStarting), placement("n1", 0)), store.ErrInvalid},
		{"placement without start", withPlacement(tr(store.TaskRunning, store.TaskKilling), placement("n1", 0)), store.ErrInvalid},
		{"placement without node", withPlacement(tr(store.TaskQueued, store.TaskStarting), placement("")), store.ErrInvalid},
		{"end missing", tr(store.TaskRunning, store.TaskFailed), store.ErrInvalid},
		{"end unknown", withEnd(tr(store.TaskRunning, store.TaskFailed), "exploded", nil), store.ErrInvalid},
		{"end while staying active", withEnd(tr(store.TaskRunning, store.TaskKilling), store.AttemptKilled, nil), store.ErrInvalid},
		{"end of idle task", withEnd(tr(store.TaskQueued, store.TaskKilled), store.AttemptKilled, nil), store.ErrInvalid},
		{"from terminal", store.TaskTransition{JobID: job.ID, Index: 1, From: store.TaskKilled, To: store.TaskQueued}, store.ErrInvalid},
		{"no change", tr(store.TaskRunning, store.TaskRunning), store.ErrInvalid},
		{"unknown state", tr(store.TaskRunning, "sleeping"), store.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.TransitionTask(ctx, c.tr)
			wantErr(t, err, c.want, string(c.tr.From)+" → "+string(c.tr.To))
		})
	}
	x := tr(store.TaskRunning, store.TaskKilling)
	x.Attempt = 2
	_, err := s.TransitionTask(ctx, x)
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) || conflict.Field != "attempt" || conflict.Expected != "2" || conflict.Actual != "1" {
		t.Fatalf("stale attempt: error %#v, want a conflict on attempt 2 vs 1", err)
	}
	tasks, err := s.Tasks(ctx, store.TaskFilter{JobID: job.ID})
	if err != nil || tasks[0].State != store.TaskRunning || tasks[0].Attempt != 1 {
		t.Fatalf("after rejected transitions task 0 is %+v (error %v), want running attempt 1", tasks, err)
	}
}

func testListTasksAndAttempts(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	a := mustCreate(t, s, sampleJob("a"), 3)
	b := mustCreate(t, s, sampleJob("b"), 2)
	start := func(job int64, idx int, node string) {
		move(t, s, store.TaskTransition{JobID: job, Index: idx, From: store.TaskQueued, To: store.TaskStarting,
			Placement: placement(node, idx)})
	}
	start(a.ID, 2, "n1")
	start(b.ID, 0, "n2")
	move(t, s, store.TaskTransition{JobID: b.ID, Index: 0, From: store.TaskStarting, To: store.TaskFailed,
		End: &store.AttemptEnd{State: store.AttemptLost}})
	start(b.ID, 1, "n2")
	cases := []struct {
		name string
		f    store.TaskFilter
		want [][2]int64 // (job, index)
	}{
		{"all", store.TaskFilter{}, [][2]int64{{a.ID, 0}, {a.ID, 1}, {a.ID, 2}, {b.ID, 0}, {b.ID, 1}}},
		{"one job", store.TaskFilter{JobID: b.ID}, [][2]int64{{b.ID, 0}, {b.ID, 1}}},
		{"starting", store.TaskFilter{States: []store.TaskState{store.TaskStarting}}, [][2]int64{{a.ID, 2}, {b.ID, 1}}},
		{"queued or failed of b", store.TaskFilter{JobID: b.ID, States: []store.TaskState{store.TaskQueued, store.TaskFailed}},
			[][2]int64{{b.ID, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tasks, err := s.Tasks(ctx, c.f)
			if err != nil {
				t.Fatalf("list tasks: %v", err)
			}
			var got [][2]int64
			for _, task := range tasks {
				got = append(got, [2]int64{task.JobID, int64(task.Index)})
			}
			wantEqual(t, "tasks", got, c.want)
		})
	}
	open, err := s.Attempts(ctx, store.AttemptFilter{OpenOnly: true})
	if err != nil || len(open) != 2 || open[0].JobID != a.ID || open[1].JobID != b.ID || open[1].Index != 1 {
		t.Fatalf("open attempts %+v (error %v), want a/2 and b/1", open, err)
	}
	ofB, err := s.Attempts(ctx, store.AttemptFilter{JobID: b.ID})
	if err != nil || len(ofB) != 2 || ofB[0].EndState != store.AttemptLost || ofB[0].Open() || !ofB[1].Open() {
		t.Fatalf("attempts of b %+v (error %v), want b/0 lost and b/1 open", ofB, err)
	}
	ofA, err := s.Attempts(ctx, store.AttemptFilter{JobID: a.ID})
	if err != nil {
		t.Fatalf("attempts of a: %v", err)
	}
	for _, c := range []struct {
		name     string
		from, to int64
		want     int
	}{{"from b", b.ID, 0, len(ofB)}, {"to a", 0, a.ID, len(ofA)}, {"just b", b.ID, b.ID, len(ofB)}, {"past b", b.ID + 1, 0, 0}} {
		got, err := s.Attempts(ctx, store.AttemptFilter{FromJobID: c.from, ToJobID: c.to})
		if err != nil || len(got) != c.want {
			t.Fatalf("attempts %s: %+v (error %v), want %d", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		ids  []int64
		want int
	}{{"ids b", []int64{b.ID}, len(ofB)}, {"ids a and b", []int64{b.ID, a.ID}, len(ofA) + len(ofB)}, {"no ids", []int64{}, 0}} {
		got, err := s.Attempts(ctx, store.AttemptFilter{JobIDs: c.ids})
		if err != nil || len(got) != c.want {
			t.Fatalf("attempts %s: %+v (error %v), want %d", c.name, got, err, c.want)
		}
	}
}

// testReservedRestart walks a task through a move: running → preempting
// with a reserved placement, which survives a reopen, then preempted and
// straight to starting on that placement in one Update; the reservation
// is gone after it. It also checks the backfill mark of attempts.
func testReservedRestart(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("mover"), 1)
	tr := func(from, to store.TaskState, min int) store.TaskTransition {
		return store.TaskTransition{JobID: job.ID, Index: 0, From: from, To: to, At: at(time.Duration(min) * time.Minute)}
	}
	start := withPlacement(tr(store.TaskQueued, store.TaskStarting, 1), placement("n1", 2, 3))
	start.Backfill = true
	move(t, s, start)
	move(t, s, tr(store.TaskStarting, store.TaskRunning, 2))
	reserved := append(placement("n2", 0, 1), placement("n3", 4)...)
	pre := tr(store.TaskRunning, store.TaskPreempting, 3)
	pre.Reserve = reserved
	if task := move(t, s, pre); !reflect.DeepEqual(task.Reserved, reserved) {
		t.Fatalf("after → preempting: reserved %+v, want %+v", task.Reserved, reserved)
	}
	s = reopen(t, target, s) // the reservation is durable
	tasks, err := s.Tasks(ctx, store.TaskFilter{JobID: job.ID})
	if err != nil || len(tasks) != 1 || !reflect.DeepEqual(tasks[0].Reserved, reserved) {
		t.Fatalf("reopened: tasks %+v (error %v), want the reservation %+v", tasks, err, reserved)
	}
	var task store.Task
	err = s.Update(ctx, func(tx store.Tx) error {
		move(t, tx, withEnd(tr(store.TaskPreempting, store.TaskPreempted, 4), store.AttemptPreempted, intp(0)))
		task = move(t, tx, withPlacement(tr(store.TaskPreempted, store.TaskStarting, 4), reserved))
		return nil
	})
	if err != nil || task.Reserved != nil || task.Attempt != 2 || task.Restarts != 1 {
		t.Fatalf("restart on the reservation: task %+v (error %v), want attempt 2, restarts 1, no reservation", task, err)
	}
	atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
	if err != nil || len(atts) != 2 || !atts[0].Backfilled || atts[1].Backfilled ||
		!reflect.DeepEqual(atts[1].Placement, reserved) || !atts[1].StartedAt.Equal(at(4*time.Minute)) {
		t.Fatalf("attempts %+v (error %v), want a backfilled first and a second on the reservation", atts, err)
	}
	for _, c := range []struct {
		name string
		tr   store.TaskTransition
	}{
		{"reserve without preempting", func() store.TaskTransition {
			x := tr(store.TaskStarting, store.TaskKilling, 5)
			x.Reserve = reserved
			return x
		}()},
		{"reserve without node", func() store.TaskTransition {
			x := tr(store.TaskStarting, store.TaskPreempting, 5)
			x.Reserve = placement("")
			return x
		}()},
		{"backfill without start", func() store.TaskTransition {
			x := tr(store.TaskStarting, store.TaskRunning, 5)
			x.Backfill = true
			return x
		}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.TransitionTask(ctx, c.tr)
			wantErr(t, err, store.ErrInvalid, c.name)
		})
	}
	pre = tr(store.TaskStarting, store.TaskPreempting, 6)
	pre.Reserve = reserved
	move(t, s, pre)
	if task := move(t, s, tr(store.TaskPreempting, store.TaskKilling, 7)); task.Reserved != nil {
		t.Fatalf("after preempting → killing: reserved %+v, want none", task.Reserved)
	}
}

// testAttemptExited: an attempt keeps the exit time its end gives
// (AttemptEnd.ExitedAt) beside its end, or its end when none is given,
// whether it ends alone or with others in one Update (which PostgreSQL
// writes as one statement), across a reopen; an exit after the end is
// refused.
func testAttemptExited(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("exits"), 4)
	tr := func(idx int, from, to store.TaskState, min int) store.TaskTransition {
		return store.TaskTransition{JobID: job.ID, Index: idx, From: from, To: to, At: at(time.Duration(min) * time.Minute)}
	}
	end := func(idx, min int, exited time.Time) store.TaskTransition {
		x := withEnd(tr(idx, store.TaskRunning, store.TaskCompleted, min), store.AttemptCompleted, intp(0))
		x.End.ExitedAt = exited
		return x
	}
	for i := range 4 {
		move(t, s, withPlacement(tr(i, store.TaskQueued, store.TaskStarting, 1), placement("n1", i)))
		move(t, s, tr(i, store.TaskStarting, store.TaskRunning, 2))
	}
	move(t, s, end(0, 60, at(10*time.Minute))) // heard of 50 minutes late
	move(t, s, end(1, 60, time.Time{}))        // no exit time: its end
	err := s.Update(ctx, func(tx store.Tx) error {
		move(t, tx, end(2, 70, at(20*time.Minute)))
		move(t, tx, end(3, 70, at(70*time.Minute)))
		return nil
	})
	if err != nil {
		t.Fatalf("end two attempts in one update: %v", err)
	}
	want := []time.Time{at(10 * time.Minute), at(60 * time.Minute), at(20 * time.Minute), at(70 * time.Minute)}
	check := func(s store.Store, when string) {
		atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
		if err != nil || len(atts) != len(want) {
			t.Fatalf("%s: attempts %+v (%v), want %d", when, atts, err, len(want))
		}
		for i, a := range atts {
			if !a.ExitedAt.Equal(want[i]) || a.EndedAt.Before(a.ExitedAt) {
				t.Errorf("%s: attempt of task %d exited at %v, ended at %v; want exited at %v", when, i, a.ExitedAt, a.EndedAt, want[i])
			}
		}
	}
	check(s, "written")
	s = reopen(t, target, s)
	check(s, "reopened")
	job = mustCreate(t, s, sampleJob("bad exits"), 2)
	for i := range 2 {
		move(t, s, withPlacement(tr(i, store.TaskQueued, store.TaskStarting, 5), placement("n1", i)))
	}
	x := withEnd(tr(0, store.TaskStarting, store.TaskFailed, 60), store.AttemptFailed, nil)
	x.End.ExitedAt = at(61 * time.Minute)
	if _, err := s.TransitionTask(ctx, x); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("exit after the end: error %v, want %v", err, store.ErrInvalid)
	}
	if atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID, OpenOnly: true}); err != nil || len(atts) != 2 {
		t.Errorf("after the refused exit: open attempts %+v (%v), want both", atts, err)
	}
}
