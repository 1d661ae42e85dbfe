package store

import (
	"context"
	"fmt"
	"time"
)

// ConfigChange is one change a configuration reload made to the pools',
// projects' or licenses' settings, in words (spec.PoolChanges,
// ProjectChanges, LicenseChanges).
type ConfigChange struct {
	At   time.Time
	What string
}

// RecordConfigChanges keeps what a reload at at changed, in order.
// Recording the same reload again replaces its changes.
func (o masterRows) RecordConfigChanges(ctx context.Context, at time.Time, what []string) error {
	for i, w := range what {
		if w == "" {
			return fmt.Errorf("%w: configuration change %d of the reload at %s is empty", ErrInvalid, i, at.UTC().Format(time.RFC3339))
		}
		_, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO config_changes (at_ns, seq, what) VALUES (?, ?, ?)
			ON CONFLICT (at_ns, seq) DO UPDATE SET what = excluded.what`), nsOf(at), i, w)
		if err != nil {
			return fmt.Errorf("record the configuration changes of the reload at %s: %w", at.UTC().Format(time.RFC3339), err)
		}
	}
	return nil
}

// ConfigChanges lists the recorded changes of reloads in [from, until],
// oldest first.
func (o masterRows) ConfigChanges(ctx context.Context, from, until time.Time) ([]ConfigChange, error) {
	rows, err := o.q.QueryContext(ctx, o.d.q(`SELECT at_ns, what FROM config_changes
		WHERE at_ns >= ? AND at_ns <= ? ORDER BY at_ns, seq`), nsOf(from), nsOf(until))
	if err != nil {
		return nil, fmt.Errorf("list configuration changes: %w", err)
	}
	out, err := collect(rows, func(sc rowScanner) (ConfigChange, error) {
		var at int64
		var c ConfigChange
		if err := sc.Scan(&at, &c.What); err != nil {
			return ConfigChange{}, err
		}
		c.At = timeOf(at)
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list configuration changes: %w", err)
	}
	return out, nil
}
