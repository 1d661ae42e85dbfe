package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqlStore serves both dialects through database/sql. Writes always run in
// a transaction on w; reads outside Update run on r (SQLite: a pool of
// read-only connections beside the single writer; PostgreSQL: r == w).
type sqlStore struct {
	w, r  *sql.DB
	d     *dialect
	reads *ops
	// group, when set, makes concurrent Updates share transactions
	// (SQLite, whose single writer would otherwise fsync once per Update).
	group *groupCommitter
	// stmts, when set, keeps the writer's statements prepared (SQLite).
	stmts *stmtCache
	// lock, when set, is the master lock every write needs (PostgreSQL).
	lock *masterLock
	// authStore serves Auth: users, roles, credentials, the audit log.
	authStore
	// rowsStore serves the master's own rows: marks, reservations,
	// outages, configuration changes.
	rowsStore
}

func newSQLStore(w, r *sql.DB, d *dialect) *sqlStore {
	s := &sqlStore{w: w, r: r, d: d, reads: newOps(r, d)}
	s.authStore = authStore{reads: s.reads.authOps, update: s.Update}
	s.rowsStore = rowsStore{reads: s.reads.masterRows, update: s.Update}
	return s
}

// conn is what ops and its parts run their statements over: a querier
// and its dialect.
type conn struct {
	q querier
	d *dialect
}

// ops implements Tx over a querier. Its write methods assume q is a
// transaction, since several of them run more than one statement. The
// nodes' rows and events (nodeOps, nodes.go), the master's own rows
// (masterRows: marks, reservations, what was forgotten) and the identity side (authOps,
// auth.go: users, roles, credentials, the audit log) are parts over the
// same conn that it embeds for Tx: their methods are promoted, but
// declared on the parts.
type ops struct {
	conn
	reads
	nodeOps
	masterRows
	authOps
	// events, when not nil, gathers the events of an Update on
	// PostgreSQL, written in one statement before its commit: each
	// statement there is a round trip, made while the master holds its
	// mutex, and events were a third of a batch's statements.
	events *[]Event
	// attempts, when not nil, gathers the attempt writes of an Update on
	// PostgreSQL, written a run of one kind per statement
	// (flushAttempts) before the rows that need them and before commit.
	attempts *[]attemptWrite
	// fence, when not nil, is the master lock whose fencing epoch the
	// write checks before its commit (PostgreSQL, pgfence.go).
	fence *masterLock
}

// reads are the queries of the job, task, event, usage, log and metric
// rows that need nothing of a write under way: they read what q sees.
// (Attempts stays an op: within an Update on PostgreSQL it writes the
// attempts gathered so far first, flushAttempts.)
type reads struct{ conn }

// newOps returns the ops, and its parts, over q in dialect d.
func newOps(q querier, d *dialect) *ops {
	c := conn{q: q, d: d}
	return &ops{conn: c, reads: reads{c}, nodeOps: nodeOps{c}, masterRows: masterRows{c}, authOps: authOps{c}}
}

func (s *sqlStore) Update(ctx context.Context, fn func(tx Tx) error) error {
	run := func(tx *sql.Tx) error {
		if s.stmts != nil {
			return fn(newOps(cachedTx{tx: tx, c: s.stmts}, s.d))
		}
		if s.d.name != "postgres" {
			return fn(newOps(tx, s.d))
		}
		o := newOps(tx, s.d)
		o.events, o.attempts, o.fence = new([]Event), new([]attemptWrite), s.lock
		if err := fn(o); err != nil {
			return err
		}
		if err := o.flushAttempts(ctx); err != nil {
			return err
		}
		return o.flushEvents(ctx)
	}
	if s.group != nil {
		return s.group.update(ctx, run)
	}
	if err := s.writable(ctx); err != nil {
		return err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store transaction: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tx.Rollback()
		}
	}()
	if err := run(tx); err != nil {
		var moved *epochMoved
		if errors.As(err, &moved) {
			// The fence: settle takes the lock's mutex, which a master
			// taking its lock back holds while it waits for this
			// transaction's row lock; give that up first.
			tx.Rollback()
			return fmt.Errorf("store transaction: %w", s.lock.settle(moved.epoch))
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store transaction: commit: %w", err)
	}
	committed = true
	return nil
}

func (s *sqlStore) Ping(ctx context.Context, at time.Time) error {
	err := s.Update(ctx, func(tx Tx) error {
		o := tx.(*ops)
		_, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO store_probe (id, at_ns) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET at_ns = excluded.at_ns`), at.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("store probe: %w", err)
	}
	return nil
}

func (s *sqlStore) Close() error {
	var errs []error
	if s.stmts != nil {
		errs = append(errs, s.stmts.close())
	}
	if s.r != s.w {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	if s.lock != nil {
		s.lock.close() // after the pool: nothing is written without it
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// writable refuses writes while the master lock is not held.
func (s *sqlStore) writable(ctx context.Context) error {
	if s.lock == nil {
		return nil
	}
	if err := s.lock.ensure(ctx); err != nil {
		return fmt.Errorf("store transaction: %w", err)
	}
	return nil
}

// Reads outside Update.

func (s *sqlStore) Job(ctx context.Context, id int64) (Job, error) { return s.reads.Job(ctx, id) }
func (s *sqlStore) Jobs(ctx context.Context, f JobFilter) ([]Job, error) {
	return s.reads.Jobs(ctx, f)
}
func (s *sqlStore) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	return s.reads.Tasks(ctx, f)
}
func (s *sqlStore) Attempts(ctx context.Context, f AttemptFilter) ([]Attempt, error) {
	return s.reads.Attempts(ctx, f)
}
func (s *sqlStore) Nodes(ctx context.Context) ([]Node, error) { return s.reads.Nodes(ctx) }
func (s *sqlStore) Logs(ctx context.Context, q LogQuery) ([]LogLine, error) {
	return s.reads.Logs(ctx, q)
}
func (s *sqlStore) Usage(ctx context.Context, f UsageFilter) ([]Usage, error) {
	return s.reads.Usage(ctx, f)
}
func (s *sqlStore) Events(ctx context.Context, f EventFilter) ([]Event, error) {
	return s.reads.Events(ctx, f)
}
func (s *sqlStore) NodeEvents(ctx context.Context, f NodeEventFilter) ([]NodeEvent, error) {
	return s.reads.NodeEvents(ctx, f)
}

// Writes outside Update: one transaction each.

func (s *sqlStore) CreateJob(ctx context.Context, job Job, tasks []Task) (out Job, err error) {
	if s.d.name == "postgres" {
		// One statement, atomic on its own: no BEGIN and COMMIT round trips.
		if err := s.writable(ctx); err != nil {
			return Job{}, err
		}
		o := newOps(s.w, s.d)
		o.fence = s.lock
		return o.CreateJob(ctx, job, tasks)
	}
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.CreateJob(ctx, job, tasks); return err })
	return out, err
}

func (s *sqlStore) TransitionJob(ctx context.Context, t JobTransition) (out Job, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.TransitionJob(ctx, t); return err })
	return out, err
}

func (s *sqlStore) MoveJobEnd(ctx context.Context, id int64, state JobState, at time.Time) (out Job, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.MoveJobEnd(ctx, id, state, at); return err })
	return out, err
}

func (s *sqlStore) UpdateJob(ctx context.Context, u JobUpdate) (out Job, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.UpdateJob(ctx, u); return err })
	return out, err
}

func (s *sqlStore) HoldJob(ctx context.Context, h JobHold) (out Job, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.HoldJob(ctx, h); return err })
	return out, err
}

func (s *sqlStore) TransitionTask(ctx context.Context, t TaskTransition) (out Task, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.TransitionTask(ctx, t); return err })
	return out, err
}

func (s *sqlStore) UpsertNode(ctx context.Context, n Node) (out Node, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.UpsertNode(ctx, n); return err })
	return out, err
}

func (s *sqlStore) Heartbeat(ctx context.Context, name string, at time.Time) error {
	return s.Update(ctx, func(tx Tx) error { return tx.Heartbeat(ctx, name, at) })
}

func (s *sqlStore) SetNodeState(ctx context.Context, name string, from, to NodeState, at time.Time) error {
	return s.Update(ctx, func(tx Tx) error { return tx.SetNodeState(ctx, name, from, to, at) })
}

func (s *sqlStore) SetNodeDrain(ctx context.Context, name string, d *NodeDrain, at time.Time) (out Node, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.SetNodeDrain(ctx, name, d, at); return err })
	return out, err
}

func (s *sqlStore) DeleteNode(ctx context.Context, name string, at time.Time) error {
	return s.Update(ctx, func(tx Tx) error { return tx.DeleteNode(ctx, name, at) })
}

func (s *sqlStore) MoveNodes(ctx context.Context, moves []NodeMove, at time.Time) error {
	return s.Update(ctx, func(tx Tx) error { return tx.MoveNodes(ctx, moves, at) })
}

func (s *sqlStore) NodeLeaving(ctx context.Context, name string, at time.Time) error {
	return s.Update(ctx, func(tx Tx) error { return tx.NodeLeaving(ctx, name, at) })
}

func (s *sqlStore) NodeStayed(ctx context.Context, name string, at time.Time) error {
	return s.Update(ctx, func(tx Tx) error { return tx.NodeStayed(ctx, name, at) })
}

func (s *sqlStore) AppendLogs(ctx context.Context, lines []LogLine) error {
	return s.Update(ctx, func(tx Tx) error { return tx.AppendLogs(ctx, lines) })
}

func (s *sqlStore) RecordUsage(ctx context.Context, u Usage) (out Usage, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.RecordUsage(ctx, u); return err })
	return out, err
}

func (s *sqlStore) PruneJobs(ctx context.Context, endedBefore time.Time, limit int) (n int, err error) {
	err = s.Update(ctx, func(tx Tx) error { n, err = tx.PruneJobs(ctx, endedBefore, limit); return err })
	return n, err
}

// Conversions between Go values and columns.

// nowIfZero returns t, or the current time when t is zero, in UTC.
func nowIfZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}

func nsOf(t time.Time) int64 { return t.UnixNano() }

func nullNS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

func timeOf(ns int64) time.Time { return time.Unix(0, ns).UTC() }

func timeOfNull(ns sql.NullInt64) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	return timeOf(ns.Int64)
}

// rawJSON maps nil to NULL and checks that anything else is JSON.
func rawJSON(what string, m json.RawMessage) (sql.NullString, error) {
	if m == nil {
		return sql.NullString{}, nil
	}
	if !json.Valid(m) {
		return sql.NullString{}, invalidf("%s is not valid JSON", what)
	}
	return sql.NullString{String: string(m), Valid: true}, nil
}

func rawJSONOf(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

// encodeJSON encodes a store-owned value; empty values encode as empty.
func encodeJSON(v any, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}

// decodeJSON decodes a store-owned column into v (a pointer).
func decodeJSON(what, s string, v any) error {
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	return nil
}

// emptyMapNil turns an empty decoded map into nil so that values round-trip.
func emptyMapNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// placeholders returns "?, ?, ?" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// inClause appends "col IN (?, ...)" for the values to where and args.
func inClause[T ~string](col string, vals []T, where []string, args []any) ([]string, []any) {
	if len(vals) == 0 {
		return where, args
	}
	for _, v := range vals {
		args = append(args, string(v))
	}
	return append(where, col+" IN ("+placeholders(len(vals))+")"), args
}

// finish appends the WHERE, ORDER BY and LIMIT clauses to a query.
func finish(query string, where []string, order string, limit int, args []any) (string, []any) {
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY " + order
	if limit > 0 {
		query += " LIMIT ?"
		args = append(args, limit)
	}
	return query, args
}

// collect scans every row with scan.
func collect[T any](rows *sql.Rows, scan func(rowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(dest ...any) error }

func (s *sqlStore) AmendLostEnd(ctx context.Context, l LateExit) (out Task, trims []UsageTrim, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, trims, err = tx.AmendLostEnd(ctx, l); return err })
	return out, trims, err
}

func (s *sqlStore) NoteLostExit(ctx context.Context, l LostExit) (trims []UsageTrim, err error) {
	err = s.Update(ctx, func(tx Tx) error { trims, err = tx.NoteLostExit(ctx, l); return err })
	return trims, err
}

func (s *sqlStore) RecordPartExits(ctx context.Context, job int64, index, attempt int, parts []PartExit) (out []PartExit, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, err = tx.RecordPartExits(ctx, job, index, attempt, parts); return err })
	return out, err
}

func (s *sqlStore) NoteLeftEnded(ctx context.Context, job int64, index, attempt int, at time.Time, note string) error {
	return s.Update(ctx, func(tx Tx) error { return tx.NoteLeftEnded(ctx, job, index, attempt, at, note) })
}
