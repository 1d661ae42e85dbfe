package store

import (
	"context"
	"fmt"
)

// Reservations carried between scheduling passes: one row per job.

func (o masterRows) Reservations(ctx context.Context) ([]Reservation, error) {
	rows, err := o.q.QueryContext(ctx, "SELECT job_id, at_s, nodes FROM reservations ORDER BY job_id")
	if err != nil {
		return nil, fmt.Errorf("list reservations: %w", err)
	}
	rs, err := collect(rows, func(sc rowScanner) (Reservation, error) {
		var r Reservation
		var nodes string
		if err := sc.Scan(&r.JobID, &r.At, &nodes); err != nil {
			return Reservation{}, err
		}
		if err := decodeJSON("reserved nodes", nodes, &r.Nodes); err != nil {
			return Reservation{}, err
		}
		if len(r.Nodes) == 0 {
			r.Nodes = nil // as stored: a start without nodes
		}
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list reservations: %w", err)
	}
	return rs, nil
}

func (o masterRows) SetReservations(ctx context.Context, rs []Reservation) error {
	for _, r := range rs {
		if r.None() {
			if _, err := o.q.ExecContext(ctx, o.d.q("DELETE FROM reservations WHERE job_id = ?"), r.JobID); err != nil {
				return fmt.Errorf("forget the reservation of job %d: %w", r.JobID, err)
			}
			continue
		}
		nodes, err := encodeJSON(r.Nodes, "[]")
		if err != nil {
			return fmt.Errorf("encode the reservation of job %d: %w", r.JobID, err)
		}
		if _, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO reservations (job_id, at_s, nodes) VALUES (?, ?, ?)
			ON CONFLICT (job_id) DO UPDATE SET at_s = excluded.at_s, nodes = excluded.nodes`),
			r.JobID, r.At, nodes); err != nil {
			return fmt.Errorf("store the reservation of job %d: %w", r.JobID, err)
		}
	}
	return nil
}
