package store

import (
	"context"
	"fmt"
	"time"
)

// NoteLeftEnded records that the parts of an attempt ended lost that ran
// on on the nodes still up, asked to checkpoint (a gang that lost one of
// its nodes and waits to resume: master/lostgang.go), have all ended, at
// at (zero: now): an event of the attempt, lost → lost, of cause
// CauseLeftEnded, with reason note. The export reads it back as those
// parts' checkpoint landing, which the simulator holds their slots
// until. It fails with ErrNotFound when there is no such attempt and
// ErrConflict when it did not end lost, or ended after at.
func (o *ops) NoteLeftEnded(ctx context.Context, job int64, index, attempt int, at time.Time, note string) error {
	what := fmt.Sprintf("note the end of attempt %d/%d/%d's parts left running", job, index, attempt)
	at = nowIfZero(at)
	if err := o.flushAttempts(ctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	sp, err := o.readLostSpan(ctx, job, index, attempt, "end_state")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if nsOf(at) < sp.ended {
		return fmt.Errorf("%s: %w", what, &ConflictError{What: fmt.Sprintf("attempt %d/%d/%d", job, index, attempt),
			Field: "ended_at", Expected: "at or before " + at.UTC().Format(time.RFC3339Nano),
			Actual: timeOf(sp.ended).UTC().Format(time.RFC3339Nano)})
	}
	lost := string(AttemptLost)
	if err := o.event(ctx, Event{JobID: job, Index: index, Attempt: attempt, From: lost, To: lost, At: at,
		Reason: note, Cause: CauseLeftEnded}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
