package storetest

import (
	"testing"

	"github.com/allot-sched/allot/store"
)

// testTaskNote: a note (store.CauseNodeLost, CauseNodeBack) is an event
// of a task's open attempt, From and To its state, with its cause and
// reason, and changes neither the task nor its attempt; one whose task
// is not in From (or not at its attempt) is a conflict, and one that
// moves the task, is of no open attempt or carries what a transition
// would change it by is refused. Events lists notes only when asked
// (EventFilter.Notes).
func testTaskNote(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("held"), 2)
	move(t, s, withPlacement(store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskQueued, To: store.TaskStarting}, placement("n1", 0)))
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskStarting, To: store.TaskRunning, Reason: "running"})
	note := func(from, to store.TaskState, attempt int, cause store.Cause) store.TaskTransition {
		return store.TaskTransition{JobID: job.ID, Index: 0, From: from, To: to, Attempt: attempt, Cause: cause,
			At: at(0), Reason: "node n1 lost"}
	}
	for _, c := range []struct {
		name string
		tr   store.TaskTransition
		want error
	}{
		{"another state", note(store.TaskStarting, store.TaskStarting, 1, store.CauseNodeLost), store.ErrConflict},
		{"another attempt", note(store.TaskRunning, store.TaskRunning, 2, store.CauseNodeBack), store.ErrConflict},
		{"a move", note(store.TaskRunning, store.TaskKilling, 1, store.CauseNodeLost), store.ErrInvalid},
		{"no open attempt", store.TaskTransition{JobID: job.ID, Index: 1, From: store.TaskQueued, To: store.TaskQueued,
			Cause: store.CauseNodeLost}, store.ErrInvalid},
		{"with a placement", withPlacement(note(store.TaskRunning, store.TaskRunning, 1, store.CauseNodeLost), placement("n1", 0)),
			store.ErrInvalid},
		{"no cause: no edge", note(store.TaskRunning, store.TaskRunning, 1, ""), store.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.TransitionTask(ctx, c.tr)
			wantErr(t, err, c.want, c.name)
		})
	}
	before, err := s.Tasks(ctx, store.TaskFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx store.Tx) error {
		for _, c := range []store.Cause{store.CauseNodeLost, store.CauseNodeBack} {
			if _, err := tx.TransitionTask(ctx, note(store.TaskRunning, store.TaskRunning, 1, c)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("notes: %v", err)
	}
	after, err := s.Tasks(ctx, store.TaskFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "tasks after the notes", after, before)
	evs := eventsWithNotes(t, s, job.ID, 2)
	type fact struct {
		from, to string
		attempt  int
		cause    store.Cause
		reason   string
	}
	var got []fact
	for _, e := range evs[len(evs)-2:] {
		got = append(got, fact{e.From, e.To, e.Attempt, e.Cause, e.Reason})
	}
	wantEqual(t, "notes", got, []fact{{"running", "running", 1, store.CauseNodeLost, "node n1 lost"},
		{"running", "running", 1, store.CauseNodeBack, "node n1 lost"}})
	atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
	if err != nil || len(atts) != 1 || !atts[0].EndedAt.IsZero() {
		t.Fatalf("attempts %+v, %v; want one, open", atts, err)
	}
}

// eventsWithNotes is job id's events with its notes, of which it wants
// notes; without EventFilter.Notes, none may be listed: readers of
// transitions never see notes, whose From and To would read as a move
// into the task's state (the decision log, the what-if export, the
// restores, the preemption budget).
func eventsWithNotes(t *testing.T, s store.Store, id int64, notes int) []store.Event {
	t.Helper()
	ctx := ctxOf(t)
	plain, err := s.Events(ctx, store.EventFilter{JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range plain {
		if e.Cause.Note() {
			t.Fatalf("events without Notes: %+v is a note", e)
		}
	}
	evs, err := s.Events(ctx, store.EventFilter{JobID: id, Notes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(plain)+notes {
		t.Fatalf("%d events with notes, %d without: want %d more", len(evs), len(plain), notes)
	}
	return evs
}
