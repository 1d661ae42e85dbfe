package store

import (
	"context"
	"time"
)

// rowsStore serves the master's own rows (masterRows: marks, carried
// reservations, store outages, configuration changes) as the Store's
// methods, each read or a transaction of its own, as authStore serves
// the identity side: a part of sqlStore, so that sqlStore's own methods
// stay the jobs', tasks' and nodes'.
type rowsStore struct {
	reads  masterRows
	update func(ctx context.Context, fn func(tx Tx) error) error
}

func (s *rowsStore) Reservations(ctx context.Context) ([]Reservation, error) {
	return s.reads.Reservations(ctx)
}

func (s *rowsStore) SetReservations(ctx context.Context, rs []Reservation) error {
	return s.update(ctx, func(tx Tx) error { return tx.SetReservations(ctx, rs) })
}

func (s *rowsStore) Marked(ctx context.Context, name string) (bool, error) {
	return s.reads.Marked(ctx, name)
}

func (s *rowsStore) Mark(ctx context.Context, name string) error {
	return s.update(ctx, func(tx Tx) error { return tx.Mark(ctx, name) })
}

func (s *rowsStore) Forgotten(ctx context.Context) (Forgotten, error) {
	return s.reads.Forgotten(ctx)
}

func (s *rowsStore) Outages(ctx context.Context, from, until time.Time) ([]StoreOutage, error) {
	return s.reads.Outages(ctx, from, until)
}

func (s *rowsStore) RecordOutage(ctx context.Context, out StoreOutage) error {
	return s.update(ctx, func(tx Tx) error { return tx.RecordOutage(ctx, out) })
}

func (s *rowsStore) ConfigChanges(ctx context.Context, from, until time.Time) ([]ConfigChange, error) {
	return s.reads.ConfigChanges(ctx, from, until)
}

func (s *rowsStore) RecordConfigChanges(ctx context.Context, at time.Time, what []string) error {
	return s.update(ctx, func(tx Tx) error { return tx.RecordConfigChanges(ctx, at, what) })
}
