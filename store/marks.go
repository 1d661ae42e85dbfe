package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Marks: named facts that, once set, stay set; one row per mark.

// masterRows writes and reads the rows that are the master's own
// bookkeeping rather than a job's or a node's: the marks and the
// reservations carried between passes (reservations.go). A part of ops,
// over its conn.
type masterRows struct {
	conn
}

// MarkGrows is set once a job whose tasks grow after they start (an
// elastic job) was scheduled: from then on the master confirms every
// pass (lifecycle.OneShot), as the simulator does once one was submitted.
const MarkGrows = "grows"

func (o masterRows) Marked(ctx context.Context, name string) (bool, error) {
	var got string
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT name FROM marks WHERE name = ?"), name).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read mark %q: %w", name, err)
	}
	return true, nil
}

func (o masterRows) Mark(ctx context.Context, name string) error {
	if _, err := o.q.ExecContext(ctx, o.d.q("INSERT INTO marks (name) VALUES (?) ON CONFLICT (name) DO NOTHING"), name); err != nil {
		return fmt.Errorf("set mark %q: %w", name, err)
	}
	return nil
}
