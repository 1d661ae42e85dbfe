package storetest

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testNoteLeftEnded: the end of a lost gang's parts left running on
// nodes still up is an event of its lost attempt (lost → lost, cause
// left_ended) at the time given; one for no such attempt, or before the
// attempt's end, writes nothing.
func testNoteLeftEnded(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := lostJob(t, s, nil) // attempt 1, ended lost at 2m
	before, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		attempt int
		at      time.Duration
		want    error
	}{
		{"another attempt", 2, 3 * time.Minute, store.ErrNotFound},
		{"before the attempt's end", 1, time.Minute, store.ErrConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := s.NoteLeftEnded(ctx, job.ID, 0, c.attempt, at(c.at), "parts ended")
			wantErr(t, err, c.want, "note")
		})
	}
	if err := s.NoteLeftEnded(ctx, job.ID, 0, 1, at(2*time.Minute+20*time.Second), "parts ended"); err != nil {
		t.Fatalf("note: %v", err)
	}
	after, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(after) != len(before)+1 {
		t.Fatalf("events %+v, %v; want one added", after, err)
	}
	e := after[len(after)-1]
	if e.From != "lost" || e.To != "lost" || e.Cause != store.CauseLeftEnded || e.Attempt != 1 || e.Index != 0 ||
		!e.At.Equal(at(2*time.Minute+20*time.Second)) || e.Reason != "parts ended" {
		t.Fatalf("event %+v; want lost → lost, left_ended, at 2m20s", e)
	}
}
