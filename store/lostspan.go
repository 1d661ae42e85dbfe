package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// lostSpan is an attempt that ended lost, as the late reports about it
// read it: when it ran, and one more column a caller needs. An agent's
// word about such an attempt (its exit, its parts' exits, how it
// stopped) is taken only for an exit within that span.
type lostSpan struct {
	started, ended int64
	extra          string
}

// readLostSpan reads attempt job/index/attempt, which must have ended
// lost, with column extra (a fixed column name of attempts, never input).
func (o *ops) readLostSpan(ctx context.Context, job int64, index, attempt int, extra string) (lostSpan, error) {
	var endState string
	var sp lostSpan
	var ended sql.NullInt64
	err := o.q.QueryRowContext(ctx, o.d.q(`SELECT end_state, `+extra+`, started_ns, ended_ns FROM attempts
		WHERE job_id = ? AND idx = ? AND attempt = ?`), job, index, attempt).Scan(&endState, &sp.extra, &sp.started, &ended)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return sp, ErrNotFound
	case err != nil:
		return sp, fmt.Errorf("read the attempt: %w", err)
	case endState != string(AttemptLost) || !ended.Valid:
		return sp, &ConflictError{What: fmt.Sprintf("attempt %d/%d/%d", job, index, attempt), Field: "end_state",
			Expected: string(AttemptLost), Actual: endState}
	}
	sp.ended = ended.Int64
	return sp, nil
}

// outside is the error for an exit at at that is not within the span,
// what naming whose ("" for the attempt's own, "node gpu-1: "); nil when
// it is within.
func (sp lostSpan) outside(what string, at time.Time) error {
	if ns := nsOf(at); ns >= sp.started && ns < sp.ended {
		return nil
	}
	return invalidf("%sexit at %s is not within the attempt, which ran %s to %s", what, at.UTC().Format(time.RFC3339Nano),
		timeOf(sp.started).UTC().Format(time.RFC3339Nano), timeOf(sp.ended).UTC().Format(time.RFC3339Nano))
}
