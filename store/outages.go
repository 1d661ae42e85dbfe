package store

import (
	"context"
	"fmt"
	"time"
)

// StoreOutage is a time the master found its store unavailable, from
// when it first failed to when it answered again, with the requests the
// master refused meanwhile.
type StoreOutage struct {
	From, Until time.Time
	Refused     int
}

// RecordOutage keeps an outage once the store is back. Recording one of
// the same start again replaces it, so a retry after a failed write is
// safe.
func (o masterRows) RecordOutage(ctx context.Context, out StoreOutage) error {
	if out.Until.Before(out.From) || out.Refused < 0 {
		return fmt.Errorf("%w: store outage from %s until %s, %d refused", ErrInvalid, out.From, out.Until, out.Refused)
	}
	_, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO store_outages (from_ns, until_ns, refused) VALUES (?, ?, ?)
		ON CONFLICT (from_ns) DO UPDATE SET until_ns = excluded.until_ns, refused = excluded.refused`),
		nsOf(out.From), nsOf(out.Until), out.Refused)
	if err != nil {
		return fmt.Errorf("record the store outage from %s: %w", out.From.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// Outages lists the recorded outages that overlap [from, until], oldest
// first.
func (o masterRows) Outages(ctx context.Context, from, until time.Time) ([]StoreOutage, error) {
	rows, err := o.q.QueryContext(ctx, o.d.q(`SELECT from_ns, until_ns, refused FROM store_outages
		WHERE until_ns >= ? AND from_ns <= ? ORDER BY from_ns`), nsOf(from), nsOf(until))
	if err != nil {
		return nil, fmt.Errorf("list store outages: %w", err)
	}
	outs, err := collect(rows, func(sc rowScanner) (StoreOutage, error) {
		var f, u int64
		var out StoreOutage
		if err := sc.Scan(&f, &u, &out.Refused); err != nil {
			return StoreOutage{}, err
		}
		out.From, out.Until = timeOf(f), timeOf(u)
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list store outages: %w", err)
	}
	return outs, nil
}
