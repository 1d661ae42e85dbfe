package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// LateExit corrects the end of an attempt that the master ended lost
// (its node lost past lost_node_grace) when its agent, back, reports that
// the attempt's processes had exited on their own before the master gave
// up on it: the attempt ends as the agent says (State, ExitCode,
// ExitedAt), the task, which the loss ended, ends as that exit ends it
// (To), and the job, when given (JobTo), ends as its tasks now do. It
// is no edge of the task or job state machines (checkTaskEdge,
// checkJobEdge: a terminal state is left only here): it amends an end
// the master made on no agent's word with the agent's word, once.
type LateExit struct {
	JobID   int64
	Index   int
	Attempt int       // the task's current attempt, ended lost
	From    TaskState // the task's terminal state after the loss
	To      TaskState // completed or failed
	// State is the attempt's end by its agent: completed or failed.
	State    AttemptState
	ExitCode *int
	// ExitedAt is when the attempt's processes exited: at or after its
	// start and before the master ended it (its EndedAt), which stays.
	ExitedAt time.Time
	At       time.Time // when the master heard of it; zero = now
	Reason   string    // the task's, the attempt's and the event's
	// JobFrom and JobTo, when JobTo is set, move the ended job to the
	// state its tasks end it in now (a compare-and-set on JobFrom), with
	// JobReason, in an event of its own, and its end (ended_at) to when
	// its tasks ended now (lateJobEnd): this exit, or a later end of
	// another task.
	JobFrom, JobTo JobState
	JobReason      string
}

// UsageTrim is one usage record of an attempt as a late exit cut it at
// the exit: Before it was, After it is (GPU-seconds 0 and an empty
// interval at the exit for a record wholly after it).
type UsageTrim struct{ Before, After Usage }

// AmendLostEnd stores a late exit (LateExit) in one transaction: the
// attempt's end, the task's state and the job's, an event for each, and
// the attempt's usage records cut at the exit, which it returns. It fails
// with ErrConflict when the task is not in From at Attempt, the attempt
// did not end lost, or the job is not in JobFrom; with ErrInvalid when
// the exit is not within the attempt.
func (o *ops) AmendLostEnd(ctx context.Context, l LateExit) (Task, []UsageTrim, error) {
	what := fmt.Sprintf("task %d/%d attempt %d: late exit %s → %s", l.JobID, l.Index, l.Attempt, l.From, l.To)
	if err := checkLateExit(l); err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := o.flushAttempts(ctx); err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := o.checkLostEnd(ctx, l); err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	at := nowIfZero(l.At)
	var exit sql.NullInt64
	if l.ExitCode != nil {
		exit = sql.NullInt64{Int64: int64(*l.ExitCode), Valid: true}
	}
	if _, err := o.q.ExecContext(ctx, o.d.q(`UPDATE attempts SET end_state = ?, exit_code = ?, reason = ?, exited_ns = ?
		WHERE job_id = ? AND idx = ? AND attempt = ?`),
		string(l.State), exit, l.Reason, nsOf(l.ExitedAt), l.JobID, l.Index, l.Attempt); err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	task, err := scanTask(o.q.QueryRowContext(ctx, o.d.q(`UPDATE tasks SET state = ?, reason = ?, updated_ns = ?
		WHERE job_id = ? AND idx = ? RETURNING `+taskCols),
		string(l.To), l.Reason, nsOf(at), l.JobID, l.Index))
	if err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := o.event(ctx, Event{JobID: l.JobID, Index: l.Index, Attempt: l.Attempt, From: string(l.From),
		To: string(l.To), At: at, Reason: l.Reason}); err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	trims, err := o.trimUsage(ctx, l)
	if err != nil {
		return Task{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	if l.JobTo != "" {
		if err := o.amendJob(ctx, l, at); err != nil {
			return Task{}, nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return task, trims, nil
}

// checkLostEnd checks, before AmendLostEnd writes anything, that l's
// task is in From at Attempt, that the attempt ended lost after l's exit
// and started at or before it, and that the job is in JobFrom: a
// conflict then leaves a batch's transaction as it was.
func (o *ops) checkLostEnd(ctx context.Context, l LateExit) error {
	var state string
	var attempt int
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT state, attempt FROM tasks WHERE job_id = ? AND idx = ?"),
		l.JobID, l.Index).Scan(&state, &attempt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("read the task: %w", err)
	case state != string(l.From):
		return &ConflictError{What: fmt.Sprintf("task %d/%d", l.JobID, l.Index), Field: "state", Expected: string(l.From), Actual: state}
	case attempt != l.Attempt:
		return &ConflictError{What: fmt.Sprintf("task %d/%d", l.JobID, l.Index), Field: "attempt",
			Expected: strconv.Itoa(l.Attempt), Actual: strconv.Itoa(attempt)}
	}
	sp, err := o.readLostSpan(ctx, l.JobID, l.Index, l.Attempt, "''")
	if err != nil {
		return err
	}
	if err := sp.outside("", l.ExitedAt); err != nil {
		return err
	}
	if l.JobTo == "" {
		return nil
	}
	err = o.q.QueryRowContext(ctx, o.d.q("SELECT state FROM jobs WHERE id = ?"), l.JobID).Scan(&state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("read the job: %w", err)
	case state != string(l.JobFrom):
		return &ConflictError{What: fmt.Sprintf("job %d", l.JobID), Field: "state", Expected: string(l.JobFrom), Actual: state}
	}
	return nil
}

func checkLateExit(l LateExit) error {
	switch {
	case !l.From.Terminal() || (l.To != TaskCompleted && l.To != TaskFailed):
		return invalidf("expected a terminal task to end completed or failed")
	case l.State != AttemptCompleted && l.State != AttemptFailed:
		return invalidf("attempt end %q: expected completed or failed", l.State)
	case l.ExitedAt.IsZero():
		return invalidf("no exit time")
	case l.JobTo != "" && (!l.JobFrom.Terminal() || !l.JobTo.Terminal() || l.JobFrom == l.JobTo):
		return invalidf("job %q → %q: expected an ended job to end otherwise", l.JobFrom, l.JobTo)
	}
	return nil
}

// trimUsage cuts the usage records of l's attempt at its exit: a record
// across it ends there with its GPU-seconds in proportion, one wholly
// after it keeps nothing.
func (o *ops) trimUsage(ctx context.Context, l LateExit) ([]UsageTrim, error) {
	rows, err := o.q.QueryContext(ctx, o.d.q("SELECT "+usageCols+` FROM usage
		WHERE job_id = ? AND idx = ? AND attempt = ? AND end_ns > ? ORDER BY id`),
		l.JobID, l.Index, l.Attempt, nsOf(l.ExitedAt))
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	recs, err := collect(rows, scanUsage)
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	trims := make([]UsageTrim, 0, len(recs))
	for _, u := range recs {
		after := u
		after.Start, after.End = minTime(u.Start, l.ExitedAt).UTC(), l.ExitedAt.UTC()
		after.GPUSeconds = 0
		if span := u.End.Sub(u.Start); span > 0 {
			after.GPUSeconds = u.GPUSeconds * float64(after.End.Sub(after.Start)) / float64(span)
		}
		if _, err := o.q.ExecContext(ctx, o.d.q(`UPDATE usage SET start_ns = ?, end_ns = ?, gpu_seconds = ? WHERE id = ?`),
			nsOf(after.Start), nsOf(after.End), after.GPUSeconds, u.ID); err != nil {
			return nil, fmt.Errorf("cut usage record %d: %w", u.ID, err)
		}
		trims = append(trims, UsageTrim{Before: u, After: after})
	}
	return trims, nil
}

// amendJob moves l's ended job from JobFrom to JobTo, and its end to
// when its tasks now ended (lateJobEnd).
func (o *ops) amendJob(ctx context.Context, l LateExit, at time.Time) error {
	ended, err := o.lateJobEnd(ctx, l)
	if err != nil {
		return fmt.Errorf("job %d %s → %s: %w", l.JobID, l.JobFrom, l.JobTo, err)
	}
	if _, err := o.q.ExecContext(ctx, o.d.q(`UPDATE jobs SET state = ?, reason = ?, ended_ns = ? WHERE id = ?`),
		string(l.JobTo), l.JobReason, ended, l.JobID); err != nil {
		return fmt.Errorf("job %d %s → %s: %w", l.JobID, l.JobFrom, l.JobTo, err)
	}
	return o.event(ctx, Event{JobID: l.JobID, Index: -1, From: string(l.JobFrom), To: string(l.JobTo), At: at,
		Reason: l.JobReason})
}

// lateJobEnd is when l's job ended, its task ended at l's exit: the
// latest of that exit and the ends of its other tasks (their current
// attempt's exit, as the master ends a job at its last task's exit,
// or for a task that never started its last change),
// never after the end the job had: the master ended the job when it
// heard of its last task's end, and l's task ended at its exit.
func (o *ops) lateJobEnd(ctx context.Context, l LateExit) (int64, error) {
	var had, attempts, unstarted sql.NullInt64
	err := o.q.QueryRowContext(ctx, o.d.q(`SELECT ended_ns,
		(SELECT MAX(COALESCE(a.exited_ns, a.ended_ns)) FROM attempts a JOIN tasks t ON a.job_id = t.job_id AND a.idx = t.idx AND a.attempt = t.attempt
			WHERE t.job_id = ? AND t.idx <> ?),
		(SELECT MAX(updated_ns) FROM tasks WHERE job_id = ? AND idx <> ? AND attempt = 0)
		FROM jobs WHERE id = ?`), l.JobID, l.Index, l.JobID, l.Index, l.JobID).Scan(&had, &attempts, &unstarted)
	if err != nil {
		return 0, fmt.Errorf("read when its tasks ended: %w", err)
	}
	ended := max(nsOf(l.ExitedAt), attempts.Int64, unstarted.Int64)
	if had.Valid && had.Int64 < ended {
		ended = had.Int64
	}
	return ended, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
