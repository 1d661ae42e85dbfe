package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"
)

// Log lines, usage records and events: append-only tables.

// logRowsPerInsert bounds a multi-row INSERT of log lines.
const logRowsPerInsert = 200

func scanLogLine(sc rowScanner) (LogLine, error) {
	var l LogLine
	var at int64
	if err := sc.Scan(&l.JobID, &l.Index, &l.Attempt, &l.Seq, &at, &l.Stream, &l.Text); err != nil {
		return LogLine{}, err
	}
	l.Time = timeOf(at)
	return l, nil
}

func validateLogLine(l LogLine) error {
	switch {
	case l.Attempt < 1:
		return invalidf("log line %d/%d seq %d: attempt %d < 1", l.JobID, l.Index, l.Seq, l.Attempt)
	case l.Seq < 1:
		return invalidf("log line %d/%d/%d: seq %d < 1", l.JobID, l.Index, l.Attempt, l.Seq)
	case l.Stream != Stdout && l.Stream != Stderr:
		return invalidf("log line %d/%d/%d seq %d: unknown stream %q", l.JobID, l.Index, l.Attempt, l.Seq, l.Stream)
	case strings.IndexByte(l.Text, 0) >= 0:
		return invalidf("log line %d/%d/%d seq %d: text holds a NUL byte", l.JobID, l.Index, l.Attempt, l.Seq)
	}
	return nil
}

func (o *ops) AppendLogs(ctx context.Context, lines []LogLine) error {
	if err := o.flushAttempts(ctx); err != nil {
		return fmt.Errorf("append logs: %w", err)
	}
	for _, l := range lines {
		if err := validateLogLine(l); err != nil {
			return fmt.Errorf("append logs: %w", err)
		}
	}
	const cols = 7
	row := "(" + placeholders(cols) + ")"
	for start := 0; start < len(lines); start += logRowsPerInsert {
		chunk := lines[start:min(start+logRowsPerInsert, len(lines))]
		args := make([]any, 0, len(chunk)*cols)
		for _, l := range chunk {
			args = append(args, l.JobID, l.Index, l.Attempt, l.Seq, nsOf(nowIfZero(l.Time)), string(l.Stream), l.Text)
		}
		query := "INSERT INTO logs (job_id, idx, attempt, seq, at_ns, stream, line) VALUES " +
			strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ") +
			" ON CONFLICT (job_id, idx, attempt, seq) DO NOTHING"
		if _, err := o.q.ExecContext(ctx, o.d.q(query), args...); err != nil {
			if constraintViolation(err) {
				return fmt.Errorf("append logs: a line names an attempt that does not exist: %w (%v)", ErrNotFound, err)
			}
			return fmt.Errorf("append logs: %w", err)
		}
	}
	return nil
}

func (r reads) Logs(ctx context.Context, lq LogQuery) ([]LogLine, error) {
	where := []string{"job_id = ?", "idx = ?", "(attempt > ? OR (attempt = ? AND seq > ?))"}
	args := []any{lq.JobID, lq.Index, lq.After.Attempt, lq.After.Attempt, lq.After.Seq}
	if lq.Attempt > 0 {
		where, args = append(where, "attempt = ?"), append(args, lq.Attempt)
	}
	query, args := finish("SELECT job_id, idx, attempt, seq, at_ns, stream, line FROM logs", where,
		"attempt, seq", lq.Limit, args)
	rows, err := r.q.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("read logs of task %d/%d: %w", lq.JobID, lq.Index, err)
	}
	lines, err := collect(rows, scanLogLine)
	if err != nil {
		return nil, fmt.Errorf("read logs of task %d/%d: %w", lq.JobID, lq.Index, err)
	}
	return lines, nil
}

const usageCols = `id, project, user_name, pool, job_id, idx, attempt, start_ns, end_ns, gpu_seconds`

func scanUsage(sc rowScanner) (Usage, error) {
	var u Usage
	var start, end int64
	if err := sc.Scan(&u.ID, &u.Project, &u.User, &u.Pool, &u.JobID, &u.Index, &u.Attempt,
		&start, &end, &u.GPUSeconds); err != nil {
		return Usage{}, err
	}
	u.Start, u.End = timeOf(start), timeOf(end)
	return u, nil
}

func (o *ops) RecordUsage(ctx context.Context, u Usage) (Usage, error) {
	switch {
	case u.Start.IsZero() || u.End.Before(u.Start):
		return Usage{}, fmt.Errorf("record usage: %w", invalidf("interval %v..%v is empty or reversed", u.Start, u.End))
	case !(u.GPUSeconds >= 0) || math.IsInf(u.GPUSeconds, 0):
		return Usage{}, fmt.Errorf("record usage: %w", invalidf("GPU-seconds %v must be a non-negative number", u.GPUSeconds))
	}
	u.Start, u.End = u.Start.UTC(), u.End.UTC()
	err := o.q.QueryRowContext(ctx, o.d.q(`INSERT INTO usage (project, user_name, pool, job_id, idx, attempt,
		start_ns, end_ns, gpu_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		u.Project, u.User, u.Pool, u.JobID, u.Index, u.Attempt, nsOf(u.Start), nsOf(u.End), u.GPUSeconds).Scan(&u.ID)
	if err != nil {
		return Usage{}, fmt.Errorf("record usage: %w", err)
	}
	return u, nil
}

func (r reads) Usage(ctx context.Context, f UsageFilter) ([]Usage, error) {
	var where []string
	var args []any
	if !f.Since.IsZero() {
		where, args = append(where, "end_ns >= ?"), append(args, nsOf(f.Since))
	}
	if f.Pool != "" {
		where, args = append(where, "pool = ?"), append(args, f.Pool)
	}
	if f.AfterID > 0 {
		where, args = append(where, "id > ?"), append(args, f.AfterID)
	}
	where, args = jobRange(f.FromJobID, f.ToJobID, where, args)
	where, args = jobIn(f.JobIDs, where, args)
	query, args := finish("SELECT "+usageCols+" FROM usage", where, "id", f.Limit, args)
	rows, err := r.q.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list usage: %w", err)
	}
	usage, err := collect(rows, scanUsage)
	if err != nil {
		return nil, fmt.Errorf("list usage: %w", err)
	}
	return usage, nil
}

// event appends to the event log, in the caller's transaction.
func (o *ops) event(ctx context.Context, e Event) error {
	if o.events != nil {
		*o.events = append(*o.events, e)
		return nil
	}
	if e.Change != nil {
		return o.changeEvent(ctx, e)
	}
	_, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason, cause, part_ran, for_job, why)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), e.JobID, e.Index, e.Attempt, e.From, e.To, nsOf(e.At), e.Reason, string(e.Cause), e.PartRan,
		forJob(e.ForJob), e.Why)
	if err != nil {
		return fmt.Errorf("record event: %w", err)
	}
	return nil
}

// eventRowsPerInsert bounds the rows of one multi-row event insert: 11
// parameters a row, well under PostgreSQL's 65,535.
const eventRowsPerInsert = 1000

// flushEvents writes the events gathered in o.events, in the order they
// were recorded: PostgreSQL numbers the rows of one VALUES list in order,
// so their sequence is what one insert each would have given. With
// o.fence it then checks the fencing epoch, the transaction's last
// statement before its commit, within the last insert when there is one.
func (o *ops) flushEvents(ctx context.Context) error {
	evs := *o.events
	*o.events = nil
	for len(evs) > 0 {
		// A job's change, rare, is written alone, with its values
		// (changeEvent), in its place among the others.
		n := 0
		for n < len(evs) && evs[n].Change == nil {
			n++
		}
		if err := o.insertEvents(ctx, evs[:n], n == len(evs)); err != nil {
			return err
		}
		if n == len(evs) {
			return nil
		}
		if err := o.changeEvent(ctx, evs[n]); err != nil {
			return err
		}
		evs = evs[n+1:]
	}
	if o.fence != nil {
		return o.checkFence(ctx) // no events, or the last was a job's change
	}
	return nil
}

// insertEvents writes evs, none a job's change, a multi-row insert per
// eventRowsPerInsert; last says they are the transaction's last writes,
// which then check the fence.
func (o *ops) insertEvents(ctx context.Context, evs []Event, last bool) error {
	fenced := o.fence != nil && last
	for start := 0; start < len(evs); start += eventRowsPerInsert {
		chunk := evs[start:min(start+eventRowsPerInsert, len(evs))]
		args := make([]any, 0, len(chunk)*11)
		for _, e := range chunk {
			args = append(args, e.JobID, e.Index, e.Attempt, e.From, e.To, nsOf(e.At), e.Reason, string(e.Cause), e.PartRan,
				forJob(e.ForJob), e.Why)
		}
		row := "(" + placeholders(11) + ")"
		query := `INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason, cause, part_ran, for_job, why) VALUES ` +
			strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ")
		if fenced && start+len(chunk) == len(evs) {
			// The last statement before the commit reads the fence too.
			var epoch int64
			query = "WITH f AS (" + fenceRead + "), e AS (" + query + ") SELECT epoch FROM f"
			if err := o.q.QueryRowContext(ctx, o.d.q(query), args...).Scan(&epoch); err != nil {
				return fmt.Errorf("record %d events: %w", len(chunk), err)
			}
			return o.fence.checkEpoch(epoch)
		}
		if _, err := o.q.ExecContext(ctx, o.d.q(query), args...); err != nil {
			return fmt.Errorf("record %d events: %w", len(chunk), err)
		}
	}
	if fenced && len(evs) == 0 {
		return o.checkFence(ctx)
	}
	return nil
}

// changeEvent writes e, a job's change, with the values it changed
// (events' priority_from to preemptible_to columns, NULL for a field
// not changed).
func (o *ops) changeEvent(ctx context.Context, e Event) error {
	c := e.Change
	_, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason,
		priority_from, priority_to, weight_from, weight_to, preemptible_from, preemptible_to,
		time_limit_from_ns, time_limit_to_ns, qos_from, qos_to, nice_from, nice_to, held_from, held_to)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), e.JobID, e.Index, e.Attempt, e.From, e.To, nsOf(e.At), e.Reason,
		c.FromPriority, c.ToPriority, c.FromWeight, c.ToWeight, c.FromPreemptible, c.ToPreemptible,
		c.FromTimeLimit, c.ToTimeLimit, c.FromQOS, c.ToQOS, c.FromNice, c.ToNice, c.FromHeld, c.ToHeld)
	if err != nil {
		return fmt.Errorf("record a job's change: %w", err)
	}
	return nil
}

const eventCols = `seq, job_id, idx, attempt, from_state, to_state, at_ns, reason, cause, part_ran,
	priority_from, priority_to, weight_from, weight_to, preemptible_from, preemptible_to, for_job,
	time_limit_from_ns, time_limit_to_ns, qos_from, qos_to, nice_from, nice_to, why, held_from, held_to`

// forJob is an event's for_job: NULL for none.
func forJob(id int64) sql.Null[int64] { return sql.Null[int64]{V: id, Valid: id != 0} }

// checkFence reads the fencing epoch in o's transaction and checks it
// (pgfence.go).
func (o *ops) checkFence(ctx context.Context) error {
	var epoch int64
	if err := o.q.QueryRowContext(ctx, fenceRead).Scan(&epoch); err != nil {
		return fmt.Errorf("read the master epoch: %w", err)
	}
	return o.fence.checkEpoch(epoch)
}

func scanEvent(sc rowScanner) (Event, error) {
	var e Event
	var at int64
	var prio [2]sql.Null[int64]
	var weight [2]sql.Null[float64]
	var pre, held [2]sql.Null[bool]
	var room sql.Null[int64]
	var limit, nice [2]sql.Null[int64]
	var qos [2]sql.Null[string]
	if err := sc.Scan(&e.Seq, &e.JobID, &e.Index, &e.Attempt, &e.From, &e.To, &at, &e.Reason, &e.Cause, &e.PartRan,
		&prio[0], &prio[1], &weight[0], &weight[1], &pre[0], &pre[1], &room,
		&limit[0], &limit[1], &qos[0], &qos[1], &nice[0], &nice[1], &e.Why, &held[0], &held[1]); err != nil {
		return Event{}, err
	}
	e.At, e.ForJob = timeOf(at), room.V
	if prio[1].Valid || weight[1].Valid || pre[1].Valid || limit[1].Valid || qos[1].Valid || nice[1].Valid || held[1].Valid {
		e.Change = &JobChange{FromPriority: nullInt(prio[0]), ToPriority: nullInt(prio[1]),
			FromWeight: nullPtr(weight[0]), ToWeight: nullPtr(weight[1]),
			FromPreemptible: nullPtr(pre[0]), ToPreemptible: nullPtr(pre[1]),
			FromTimeLimit: nullDuration(limit[0]), ToTimeLimit: nullDuration(limit[1]),
			FromQOS: nullPtr(qos[0]), ToQOS: nullPtr(qos[1]), FromNice: nullInt(nice[0]), ToNice: nullInt(nice[1]),
			FromHeld: nullPtr(held[0]), ToHeld: nullPtr(held[1])}
	}
	return e, nil
}

// nullInt is n as an *int, nil when NULL.
func nullInt(n sql.Null[int64]) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.V)
	return &v
}

// nullDuration is n, nanoseconds, as a *time.Duration, nil when NULL.
func nullDuration(n sql.Null[int64]) *time.Duration {
	if !n.Valid {
		return nil
	}
	d := time.Duration(n.V)
	return &d
}

// nullPtr is n's value, nil when NULL.
func nullPtr[T any](n sql.Null[T]) *T {
	if !n.Valid {
		return nil
	}
	return &n.V
}

func (r reads) Events(ctx context.Context, f EventFilter) ([]Event, error) {
	var where []string
	var args []any
	if f.JobID != 0 {
		where, args = append(where, "job_id = ?"), append(args, f.JobID)
	}
	if f.AfterSeq > 0 {
		where, args = append(where, "seq > ?"), append(args, f.AfterSeq)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "at_ns >= ?"), append(args, nsOf(f.Since))
	}
	if f.To != "" {
		where, args = append(where, "to_state = ?"), append(args, f.To)
	}
	if !f.Notes {
		where, args = append(where, "cause NOT IN (?, ?)"), append(args, string(CauseNodeLost), string(CauseNodeBack))
	}
	query, args := finish(`SELECT `+eventCols+` FROM events`,
		where, "seq", f.Limit, args)
	rows, err := r.q.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	events, err := collect(rows, scanEvent)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return events, nil
}
