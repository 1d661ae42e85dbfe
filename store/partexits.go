package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// PartExit is how one part of a multi-node attempt exited, by its node's
// agent: completed, or failed with its exit code, at ExitedAt.
type PartExit struct {
	Node     string
	State    AttemptState // completed or failed
	ExitCode *int
	ExitedAt time.Time
}

// RecordPartExits keeps the exits of parts of an attempt that ended lost
// (migration 0023): the parts that exited before the master ended it, and
// those an agent back reports late, until every part has one and a late
// exit amends the attempt (AmendLostEnd). A part already recorded keeps
// its first exit. It returns every part exit recorded for the attempt,
// in node order. It fails with ErrNotFound when there is no such attempt,
// ErrConflict when it did not end lost, and ErrInvalid when an exit is
// not completed or failed, not within the attempt, or of a node it did
// not run on.
func (o *ops) RecordPartExits(ctx context.Context, job int64, index, attempt int, parts []PartExit) ([]PartExit, error) {
	what := fmt.Sprintf("record part exits of attempt %d/%d/%d", job, index, attempt)
	if err := o.flushAttempts(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := o.checkPartExits(ctx, job, index, attempt, parts); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for _, p := range parts {
		var code sql.NullInt64
		if p.ExitCode != nil {
			code = sql.NullInt64{Int64: int64(*p.ExitCode), Valid: true}
		}
		if _, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO part_exits (job_id, idx, attempt, node, end_state, exit_code, exited_ns)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, idx, attempt, node) DO NOTHING`),
			job, index, attempt, p.Node, string(p.State), code, nsOf(p.ExitedAt)); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	rows, err := o.q.QueryContext(ctx, o.d.q(`SELECT node, end_state, exit_code, exited_ns FROM part_exits
		WHERE job_id = ? AND idx = ? AND attempt = ? ORDER BY node`), job, index, attempt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := collect(rows, func(sc rowScanner) (PartExit, error) {
		var p PartExit
		var state string
		var code sql.NullInt64
		var exited int64
		err := sc.Scan(&p.Node, &state, &code, &exited)
		p.State, p.ExitedAt = AttemptState(state), timeOf(exited)
		if code.Valid {
			c := int(code.Int64)
			p.ExitCode = &c
		}
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// checkPartExits checks, before RecordPartExits writes anything, that
// the attempt ended lost and that each exit is a part's within it.
func (o *ops) checkPartExits(ctx context.Context, job int64, index, attempt int, parts []PartExit) error {
	sp, err := o.readLostSpan(ctx, job, index, attempt, "placement")
	if err != nil {
		return err
	}
	placed := sp.extra
	var placement []Placement
	if err := json.Unmarshal([]byte(placed), &placement); err != nil {
		return fmt.Errorf("read the attempt's placement: %w", err)
	}
	nodes := map[string]bool{}
	for _, p := range placement {
		nodes[p.Node] = true
	}
	for _, p := range parts {
		switch {
		case !nodes[p.Node]:
			return invalidf("node %q: the attempt did not run on it", p.Node)
		case p.State != AttemptCompleted && p.State != AttemptFailed:
			return invalidf("node %s: part end %q, expected completed or failed", p.Node, p.State)
		}
		if err := sp.outside("node "+p.Node+": ", p.ExitedAt); err != nil {
			return err
		}
	}
	return nil
}
