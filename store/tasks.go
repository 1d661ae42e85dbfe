package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

const taskCols = `job_id, idx, state, reason, hyperparameters, restarts, checkpoint_dir, attempt, updated_ns, reserved`

const attemptCols = `job_id, idx, attempt, placement, started_ns, running_ns, ended_ns, end_state, exit_code, reason,
	backfilled, exited_ns, start_priority, reported_end, reported_reason, checkpoint`

func scanTask(sc rowScanner) (Task, error) {
	var (
		t        Task
		hp       sql.NullString
		updated  int64
		reserved sql.NullString
	)
	if err := sc.Scan(&t.JobID, &t.Index, &t.State, &t.Reason, &hp, &t.Restarts, &t.CheckpointDir,
		&t.Attempt, &updated, &reserved); err != nil {
		return Task{}, err
	}
	t.Hyperparameters = rawJSONOf(hp)
	if reserved.Valid {
		if err := decodeJSON("task reserved placement", reserved.String, &t.Reserved); err != nil {
			return Task{}, err
		}
	}
	t.UpdatedAt = timeOf(updated)
	return t, nil
}

func scanAttempt(sc rowScanner) (Attempt, error) {
	var (
		a                      Attempt
		placement              string
		started                int64
		running, ended, exitNo sql.NullInt64
		exited                 sql.NullInt64
	)
	if err := sc.Scan(&a.JobID, &a.Index, &a.Number, &placement, &started, &running, &ended,
		&a.EndState, &exitNo, &a.Reason, &a.Backfilled, &exited, &a.StartPriority, &a.ReportedEnd, &a.ReportedReason,
		&a.Checkpoint); err != nil {
		return Attempt{}, err
	}
	if err := decodeJSON("attempt placement", placement, &a.Placement); err != nil {
		return Attempt{}, err
	}
	a.StartedAt, a.RunningAt, a.EndedAt = timeOf(started), timeOfNull(running), timeOfNull(ended)
	// An attempt ended before migration 0018 kept no exit time: its
	// usage was charged until it ended.
	a.ExitedAt = cmp.Or(timeOfNull(exited), a.EndedAt)
	if exitNo.Valid {
		code := int(exitNo.Int64)
		a.ExitCode = &code
	}
	return a, nil
}

func (o *ops) TransitionTask(ctx context.Context, t TaskTransition) (Task, error) {
	what := fmt.Sprintf("task %d/%d %s → %s", t.JobID, t.Index, t.From, t.To)
	if err := checkTaskEdge(t); err != nil {
		return Task{}, fmt.Errorf("%s: %w", what, err)
	}
	at := nowIfZero(t.At)
	if t.Cause.Note() {
		return noteTask(ctx, o, t, at)
	}
	opens := t.To == TaskStarting
	closes := t.From.Active() && !t.To.Active()
	var nextAttempt, restart int
	if opens {
		nextAttempt = 1
	}
	if closes && (t.To == TaskQueued || t.To == TaskPreempted) {
		restart = 1
	}
	var reserved sql.NullString
	if len(t.Reserve) > 0 {
		r, err := encodeJSON(t.Reserve, "[]")
		if err != nil {
			return Task{}, fmt.Errorf("%s: encode reserved placement: %w", what, err)
		}
		reserved = sql.NullString{String: r, Valid: true}
	}
	query := `UPDATE tasks SET state = ?, reason = ?, updated_ns = ?, attempt = attempt + ?,
		restarts = restarts + ?, checkpoint_dir = CASE WHEN ? = '' THEN checkpoint_dir ELSE ? END,
		reserved = ?
		WHERE job_id = ? AND idx = ? AND state = ?`
	args := []any{string(t.To), t.Reason, nsOf(at), nextAttempt, restart, t.CheckpointDir, t.CheckpointDir,
		reserved, t.JobID, t.Index, string(t.From)}
	if t.Attempt > 0 {
		query += " AND attempt = ?"
		args = append(args, t.Attempt)
	}
	task, err := scanTask(o.q.QueryRowContext(ctx, o.d.q(query+" RETURNING "+taskCols), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, o.taskMismatch(ctx, t)
	}
	if err != nil {
		return Task{}, fmt.Errorf("%s: %w", what, err)
	}
	switch {
	case opens:
		err = o.openAttempt(ctx, task, t.Placement, t.Backfill, t.StartPriority, at)
	case closes:
		err = o.closeAttempt(ctx, task, t.End, t.Reason, at)
	case t.To == TaskRunning && o.deferAttempt(attemptWrite{kind: attemptRunning, jobID: task.JobID,
		index: task.Index, attempt: task.Attempt, at: nsOf(at)}):
	case t.To == TaskRunning:
		_, err = o.q.ExecContext(ctx, o.d.q(`UPDATE attempts SET running_ns = ?
			WHERE job_id = ? AND idx = ? AND attempt = ? AND running_ns IS NULL`),
			nsOf(at), task.JobID, task.Index, task.Attempt)
	}
	if err != nil {
		return Task{}, fmt.Errorf("%s: %w", what, err)
	}
	err = o.event(ctx, Event{JobID: t.JobID, Index: t.Index, Attempt: task.Attempt,
		From: string(t.From), To: string(t.To), At: at, Reason: t.Reason, Cause: t.Cause, PartRan: t.PartRan, ForJob: t.ForJob,
		Why: t.Why})
	if err != nil {
		return Task{}, fmt.Errorf("%s: %w", what, err)
	}
	return task, nil
}

// noteTask records note t (Cause.Note) as an event of the task's open
// attempt, at at, once the task is found in t.From (and attempt
// t.Attempt, when given); it changes neither the task nor the attempt.
func noteTask(ctx context.Context, o *ops, t TaskTransition, at time.Time) (Task, error) {
	what := fmt.Sprintf("note %s of task %d/%d", t.Cause, t.JobID, t.Index)
	query := "SELECT " + taskCols + " FROM tasks WHERE job_id = ? AND idx = ? AND state = ?"
	args := []any{t.JobID, t.Index, string(t.From)}
	if t.Attempt > 0 {
		query += " AND attempt = ?"
		args = append(args, t.Attempt)
	}
	task, err := scanTask(o.q.QueryRowContext(ctx, o.d.q(query), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, o.taskMismatch(ctx, t)
	}
	if err != nil {
		return Task{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := o.event(ctx, Event{JobID: t.JobID, Index: t.Index, Attempt: task.Attempt,
		From: string(t.From), To: string(t.To), At: at, Reason: t.Reason, Cause: t.Cause}); err != nil {
		return Task{}, fmt.Errorf("%s: %w", what, err)
	}
	return task, nil
}

func (o *ops) openAttempt(ctx context.Context, task Task, placement []Placement, backfill bool, prio float64, at time.Time) error {
	p, err := encodeJSON(placement, "[]")
	if err != nil {
		return fmt.Errorf("encode placement: %w", err)
	}
	if o.deferAttempt(attemptWrite{kind: attemptOpen, jobID: task.JobID, index: task.Index, attempt: task.Attempt,
		at: nsOf(at), placement: p, backfill: backfill, startPriority: prio}) {
		return nil
	}
	if _, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO attempts (job_id, idx, attempt, placement, started_ns, backfilled,
		start_priority) VALUES (?, ?, ?, ?, ?, ?, ?)`), task.JobID, task.Index, task.Attempt, p, nsOf(at), backfill, prio); err != nil {
		return fmt.Errorf("open attempt %d: %w", task.Attempt, err)
	}
	return nil
}

func (o *ops) closeAttempt(ctx context.Context, task Task, end *AttemptEnd, reason string, at time.Time) error {
	var exit sql.NullInt64
	if end.ExitCode != nil {
		exit = sql.NullInt64{Int64: int64(*end.ExitCode), Valid: true}
	}
	exited := nsOf(at)
	if !end.ExitedAt.IsZero() {
		exited = nsOf(end.ExitedAt)
	}
	if o.deferAttempt(attemptWrite{kind: attemptClose, jobID: task.JobID, index: task.Index, attempt: task.Attempt,
		at: nsOf(at), endState: string(end.State), exitCode: exit, reason: reason, exited: exited,
		checkpoint: string(end.Checkpoint)}) {
		return nil
	}
	res, err := o.q.ExecContext(ctx, o.d.q(`UPDATE attempts SET ended_ns = ?, end_state = ?, exit_code = ?, reason = ?,
		exited_ns = ?, checkpoint = ? WHERE job_id = ? AND idx = ? AND attempt = ? AND ended_ns IS NULL`),
		nsOf(at), string(end.State), exit, reason, exited, string(end.Checkpoint), task.JobID, task.Index, task.Attempt)
	if err != nil {
		return fmt.Errorf("close attempt %d: %w", task.Attempt, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("close attempt %d: no open attempt (%d rows, %v): the store is inconsistent", task.Attempt, n, err)
	}
	return nil
}

// taskMismatch explains why a compare-and-set on a task matched no row.
func (o *ops) taskMismatch(ctx context.Context, t TaskTransition) error {
	what := fmt.Sprintf("task %d/%d", t.JobID, t.Index)
	var state string
	var attempt int
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT state, attempt FROM tasks WHERE job_id = ? AND idx = ?"),
		t.JobID, t.Index).Scan(&state, &attempt)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	if state != string(t.From) {
		return &ConflictError{What: what, Field: "state", Expected: string(t.From), Actual: state}
	}
	return &ConflictError{What: what, Field: "attempt", Expected: strconv.Itoa(t.Attempt), Actual: strconv.Itoa(attempt)}
}

func (r reads) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	var where []string
	var args []any
	if f.JobID != 0 {
		where, args = append(where, "job_id = ?"), append(args, f.JobID)
	}
	where, args = inClause("state", f.States, where, args)
	query, args := finish("SELECT "+taskCols+" FROM tasks", where, "job_id, idx", 0, args)
	rows, err := r.q.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	tasks, err := collect(rows, scanTask)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	return tasks, nil
}

func (o *ops) Attempts(ctx context.Context, f AttemptFilter) ([]Attempt, error) {
	if err := o.flushAttempts(ctx); err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	var where []string
	var args []any
	if f.JobID != 0 {
		where, args = append(where, "job_id = ?"), append(args, f.JobID)
	}
	if f.OpenOnly {
		where = append(where, "ended_ns IS NULL")
	}
	where, args = jobRange(f.FromJobID, f.ToJobID, where, args)
	where, args = jobIn(f.JobIDs, where, args)
	query, args := finish("SELECT "+attemptCols+" FROM attempts", where, "job_id, idx, attempt", 0, args)
	rows, err := o.q.QueryContext(ctx, o.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	attempts, err := collect(rows, scanAttempt)
	if err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	return attempts, nil
}

// jobRange adds the bounds of a job id range (both included, 0 = none) to
// a query's conditions.
func jobRange(from, to int64, where []string, args []any) ([]string, []any) {
	if from > 0 {
		where, args = append(where, "job_id >= ?"), append(args, from)
	}
	if to > 0 {
		where, args = append(where, "job_id <= ?"), append(args, to)
	}
	return where, args
}

// jobIn selects rows of the jobs ids; nil selects any, an empty list none.
func jobIn(ids []int64, where []string, args []any) ([]string, []any) {
	if ids == nil {
		return where, args
	}
	if len(ids) == 0 {
		return append(where, "FALSE"), args
	}
	for _, id := range ids {
		args = append(args, id)
	}
	return append(where, "job_id IN ("+placeholders(len(ids))+")"), args
}
