package store

import (
	"context"
	"fmt"
	"time"
)

// pruneTables are the tables that hold a job's rows besides jobs, in an
// order that deletes rows before those they refer to.
var pruneTables = []string{"logs", "metrics", "part_exits", "attempts", "events", "reservations", "tasks"}

func (o *ops) PruneJobs(ctx context.Context, endedBefore time.Time, limit int) (int, error) {
	if err := o.flushAttempts(ctx); err != nil {
		return 0, fmt.Errorf("prune jobs: %w", err)
	}
	if limit <= 0 {
		return 0, invalidf("prune limit %d: expected > 0", limit)
	}
	// ended_ns is set exactly when a job turns terminal; a killed job's
	// tasks may still be killing, and such a job stays until they end.
	rows, err := o.q.QueryContext(ctx, o.d.q(`SELECT id, ended_ns FROM jobs WHERE ended_ns < ?
		AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.job_id = jobs.id
			AND tasks.state IN ('starting', 'running', 'preempting', 'killing', 'preempted'))
		ORDER BY ended_ns LIMIT ?`), nsOf(endedBefore), limit)
	if err != nil {
		return 0, fmt.Errorf("prune jobs: %w", err)
	}
	type ended struct{ id, ns int64 }
	found, err := collect(rows, func(sc rowScanner) (ended, error) {
		var e ended
		err := sc.Scan(&e.id, &e.ns)
		return e, err
	})
	if err != nil {
		return 0, fmt.Errorf("prune jobs: %w", err)
	}
	if len(found) == 0 {
		return 0, nil
	}
	args := make([]any, len(found))
	for i, e := range found {
		args[i] = e.id
	}
	in := "(" + placeholders(len(found)) + ")"
	for _, table := range pruneTables {
		if _, err := o.q.ExecContext(ctx, o.d.q("DELETE FROM "+table+" WHERE job_id IN "+in), args...); err != nil {
			return 0, fmt.Errorf("prune jobs: %s: %w", table, err)
		}
	}
	if _, err := o.q.ExecContext(ctx, o.d.q("DELETE FROM jobs WHERE id IN "+in), args...); err != nil {
		return 0, fmt.Errorf("prune jobs: %w", err)
	}
	// Oldest first: the last is the latest end forgotten.
	if err := o.recordForgotten(ctx, len(found), timeOf(found[len(found)-1].ns), endedBefore); err != nil {
		return 0, fmt.Errorf("prune jobs: %w", err)
	}
	return len(found), nil
}
