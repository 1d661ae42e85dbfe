package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// attemptWrite is one write to the attempts table that an Update on
// PostgreSQL defers: an open (insert), a running mark or a close.
type attemptWrite struct {
	kind      attemptWriteKind
	jobID     int64
	index     int
	attempt   int
	at        int64
	placement string // open
	backfill  bool   // open
	// startPriority is the open's TaskTransition.StartPriority.
	startPriority float64
	endState      string        // close
	exitCode      sql.NullInt64 // close
	reason        string        // close
	exited        int64         // close: AttemptEnd.ExitedAt, else at
	checkpoint    string        // close: AttemptEnd.Checkpoint
}

type attemptWriteKind int

const (
	attemptOpen attemptWriteKind = iota
	attemptRunning
	attemptClose
)

// attemptRowsPerStatement bounds the rows of one merged attempts
// statement: at most 9 parameters a row, well under PostgreSQL's 65,535.
const attemptRowsPerStatement = 1000

// deferAttempt queues w when o defers attempt writes (PostgreSQL inside
// Update) and reports whether it did.
func (o *ops) deferAttempt(w attemptWrite) bool {
	if o.attempts == nil {
		return false
	}
	*o.attempts = append(*o.attempts, w)
	return true
}

// flushAttempts writes the queued attempt writes in the order they were
// queued, each run of writes of one kind as one statement: an attempt is
// opened before it is marked running or closed, and the rows that refer
// to attempts (logs, metrics) or remove them (prune) are written after.
// Every statement that touches attempts, or a table with a foreign key
// to it, calls it first.
func (o *ops) flushAttempts(ctx context.Context) error {
	if o.attempts == nil || len(*o.attempts) == 0 {
		return nil
	}
	ws := *o.attempts
	*o.attempts = (*o.attempts)[:0]
	for start := 0; start < len(ws); {
		end := start + 1
		for end < len(ws) && ws[end].kind == ws[start].kind && end-start < attemptRowsPerStatement {
			end++
		}
		if err := o.writeAttempts(ctx, ws[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// writeAttempts writes a run of attempt writes of one kind in one
// statement.
func (o *ops) writeAttempts(ctx context.Context, ws []attemptWrite) error {
	var (
		b    strings.Builder
		args []any
	)
	switch ws[0].kind {
	case attemptOpen:
		b.WriteString(`INSERT INTO attempts (job_id, idx, attempt, placement, started_ns, backfilled, start_priority) VALUES `)
		for i, w := range ws {
			sep(&b, i)
			b.WriteString("(" + placeholders(7) + ")")
			args = append(args, w.jobID, w.index, w.attempt, w.placement, w.at, w.backfill, w.startPriority)
		}
		if _, err := o.q.ExecContext(ctx, o.d.q(b.String()), args...); err != nil {
			return fmt.Errorf("open %d attempts: %w", len(ws), err)
		}
	case attemptRunning:
		b.WriteString(`UPDATE attempts AS a SET running_ns = v.at FROM (VALUES `)
		for i, w := range ws {
			sep(&b, i)
			b.WriteString("(?::BIGINT, ?::INTEGER, ?::INTEGER, ?::BIGINT)")
			args = append(args, w.jobID, w.index, w.attempt, w.at)
		}
		b.WriteString(`) AS v (job_id, idx, attempt, at)
			WHERE a.job_id = v.job_id AND a.idx = v.idx AND a.attempt = v.attempt AND a.running_ns IS NULL`)
		if _, err := o.q.ExecContext(ctx, o.d.q(b.String()), args...); err != nil {
			return fmt.Errorf("mark %d attempts running: %w", len(ws), err)
		}
	case attemptClose:
		return o.closeAttempts(ctx, ws)
	}
	return nil
}

// closeAttempts ends a run of open attempts in one statement; like
// closeAttempt, each must have been open.
func (o *ops) closeAttempts(ctx context.Context, ws []attemptWrite) error {
	var (
		b    strings.Builder
		args []any
	)
	b.WriteString(`UPDATE attempts AS a SET ended_ns = v.at, end_state = v.end_state, exit_code = v.exit_code,
		reason = v.reason, exited_ns = v.exited, checkpoint = v.checkpoint FROM (VALUES `)
	for i, w := range ws {
		sep(&b, i)
		b.WriteString("(?::BIGINT, ?::INTEGER, ?::INTEGER, ?::BIGINT, ?::TEXT, ?::INTEGER, ?::TEXT, ?::BIGINT, ?::TEXT)")
		args = append(args, w.jobID, w.index, w.attempt, w.at, w.endState, w.exitCode, w.reason, w.exited, w.checkpoint)
	}
	b.WriteString(`) AS v (job_id, idx, attempt, at, end_state, exit_code, reason, exited, checkpoint)
		WHERE a.job_id = v.job_id AND a.idx = v.idx AND a.attempt = v.attempt AND a.ended_ns IS NULL`)
	res, err := o.q.ExecContext(ctx, o.d.q(b.String()), args...)
	if err != nil {
		return fmt.Errorf("close %d attempts: %w", len(ws), err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(ws)) {
		return fmt.Errorf("close %d attempts: %d were open (%v): the store is inconsistent", len(ws), n, err)
	}
	return nil
}

func sep(b *strings.Builder, i int) {
	if i > 0 {
		b.WriteString(", ")
	}
}
