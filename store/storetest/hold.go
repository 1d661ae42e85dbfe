package storetest

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testHoldJob: a hold is stored with who held the job and when, read
// back after the store is opened again, and recorded as an event with
// the change; holding twice or releasing a job not held writes nothing;
// a release clears the hold; a job that ends is no longer held, and an
// ended job cannot be held.
func testHoldJob(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("j"), 1)
	steps := []struct {
		name     string
		hold     bool
		at       time.Duration
		wantBy   string
		wantEvts int
	}{
		{"hold", true, time.Minute, "ada", 2},
		{"hold again writes nothing", true, 2 * time.Minute, "ada", 2},
		{"release", false, 3 * time.Minute, "", 3},
		{"release again writes nothing", false, 4 * time.Minute, "", 3},
		{"hold once more", true, 5 * time.Minute, "ada", 4},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, err := s.HoldJob(ctx, store.JobHold{ID: job.ID, Hold: st.hold, By: "ada", At: at(st.at), Reason: "through the API"})
			if err != nil || got.HeldBy != st.wantBy || got.State != store.JobQueued {
				t.Fatalf("hold %v: %+v, %v; want held by %q, queued", st.hold, got, err, st.wantBy)
			}
			stored, err := s.Job(ctx, job.ID)
			if err != nil {
				t.Fatalf("read job: %v", err)
			}
			wantEqual(t, "stored job", stored, got)
			events, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
			if err != nil || len(events) != st.wantEvts {
				t.Fatalf("events: %+v, %v; want %d", events, err, st.wantEvts)
			}
		})
	}
	events, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	if e := events[1]; e.Reason != "held by ada: through the API" || e.Change == nil || e.Change.ToHeld == nil || !*e.Change.ToHeld ||
		*e.Change.FromHeld || e.Change.ToPriority != nil || !e.At.Equal(at(time.Minute)) {
		t.Fatalf("hold event %+v: want held by ada at 1m, held false → true alone", e)
	}
	if e := events[2]; e.Reason != "released by ada: through the API" || e.Change == nil || *e.Change.ToHeld {
		t.Fatalf("release event %+v: want released by ada, held true → false", e)
	}
	s = reopen(t, target, s)
	if got, err := s.Job(ctx, job.ID); err != nil || got.HeldBy != "ada" || !got.HeldAt.Equal(at(5*time.Minute)) {
		t.Fatalf("after reopening: %+v, %v; want held by ada at 5m", got, err)
	}
	killed, err := s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled, At: at(6 * time.Minute)})
	if err != nil || killed.Held() {
		t.Fatalf("kill a held job: %+v, %v; want it killed and no longer held", killed, err)
	}
	_, err = s.HoldJob(ctx, store.JobHold{ID: job.ID, Hold: true, By: "ada"})
	wantErr(t, err, store.ErrConflict, "holding an ended job")
	_, err = s.HoldJob(ctx, store.JobHold{ID: job.ID + 100, Hold: true, By: "ada"})
	wantErr(t, err, store.ErrNotFound, "holding no such job")
	other := mustCreate(t, s, sampleJob("k"), 1)
	_, err = s.HoldJob(ctx, store.JobHold{ID: other.ID, Hold: true})
	wantErr(t, err, store.ErrInvalid, "a hold by no one")
}
