package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// LostExit notes on an attempt that the master ended lost, and left so
// (a preemptible task requeued at the loss, or an exit the master does
// not take as the task's end: LateExit), what its agent reported once
// back: that its processes had ended before the master gave up on them,
// how (End: the agent's outcome, completed, failed, preempted or killed,
// and Reason, the agent's words, e.g. its task shim's fence that asked
// for a checkpoint) and when (ExitedAt). The attempt stays lost, ended
// when the master gave up on it (EndedAt), its task as it is; its exit
// (Attempt.ExitedAt) moves back to ExitedAt and its usage records are
// cut there, as a late exit cuts them, since nothing ran after it. It is
// noted once: an attempt that has a reported end keeps it.
type LostExit struct {
	JobID    int64
	Index    int
	Attempt  int
	End      AttemptState // completed, failed, preempted or killed
	ExitCode *int         // nil when the process did not exit on its own
	// ExitedAt is when its processes exited: at or after its start and
	// before the master ended it.
	ExitedAt time.Time
	// Reason is the agent's words for the end, kept on the attempt
	// (ReportedReason).
	Reason string
	At     time.Time // when the master heard of it; zero = now
	// Note is the event's reason: the end in the master's words.
	Note string
}

// NoteLostExit stores a lost attempt's end as its agent reported it
// (LostExit) in one transaction: the attempt's reported end and exit,
// an event of the attempt (lost → lost, Note) and its usage records cut
// at the exit, which it returns. It fails with ErrConflict when the
// attempt did not end lost or has a reported end already, with
// ErrNotFound when there is no such attempt, and with ErrInvalid when
// the exit is not within the attempt or the end is no agent's outcome.
func (o *ops) NoteLostExit(ctx context.Context, l LostExit) ([]UsageTrim, error) {
	what := fmt.Sprintf("task %d/%d attempt %d: lost, %s by its agent", l.JobID, l.Index, l.Attempt, l.End)
	switch {
	case l.End != AttemptCompleted && l.End != AttemptFailed && l.End != AttemptPreempted && l.End != AttemptKilled:
		return nil, fmt.Errorf("%s: %w", what, invalidf("reported end %q: expected completed, failed, preempted or killed", l.End))
	case l.ExitedAt.IsZero():
		return nil, fmt.Errorf("%s: %w", what, invalidf("no exit time"))
	}
	if err := o.flushAttempts(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := o.checkLostNote(ctx, l); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var exit sql.NullInt64
	if l.ExitCode != nil {
		exit = sql.NullInt64{Int64: int64(*l.ExitCode), Valid: true}
	}
	if _, err := o.q.ExecContext(ctx, o.d.q(`UPDATE attempts SET reported_end = ?, reported_reason = ?, exited_ns = ?,
		exit_code = COALESCE(exit_code, ?) WHERE job_id = ? AND idx = ? AND attempt = ?`),
		string(l.End), l.Reason, nsOf(l.ExitedAt), exit, l.JobID, l.Index, l.Attempt); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	lost := string(AttemptLost)
	if err := o.event(ctx, Event{JobID: l.JobID, Index: l.Index, Attempt: l.Attempt, From: lost, To: lost,
		At: nowIfZero(l.At), Reason: l.Note}); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	trims, err := o.trimUsage(ctx, LateExit{JobID: l.JobID, Index: l.Index, Attempt: l.Attempt, ExitedAt: l.ExitedAt})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return trims, nil
}

// checkLostNote checks, before NoteLostExit writes anything, that l's
// attempt ended lost after l's exit, started at or before it, and has
// no reported end yet: a conflict then leaves a batch's transaction as
// it was.
func (o *ops) checkLostNote(ctx context.Context, l LostExit) error {
	sp, err := o.readLostSpan(ctx, l.JobID, l.Index, l.Attempt, "reported_end")
	switch {
	case err != nil:
		return err
	case sp.extra != "":
		return &ConflictError{What: fmt.Sprintf("attempt %d/%d/%d", l.JobID, l.Index, l.Attempt), Field: "reported_end",
			Expected: "", Actual: sp.extra}
	}
	return sp.outside("", l.ExitedAt)
}
