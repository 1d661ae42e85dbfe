package store

import (
	"context"
	"database/sql"
	"fmt"
)

// JobRecords is a job with its tasks and their attempts, as the store
// held them at one instant (Reader.JobRecords).
type JobRecords struct {
	Job      Job
	Tasks    []Task    // by index
	Attempts []Attempt // by (index, attempt)
}

// JobRecords reads job id, its tasks and their attempts. Within Update
// they are the transaction's; on the Store they are one read transaction
// (sqlStore.snapshot).
func (o *ops) JobRecords(ctx context.Context, id int64) (JobRecords, error) {
	job, err := o.Job(ctx, id)
	if err != nil {
		return JobRecords{}, err
	}
	tasks, err := o.Tasks(ctx, TaskFilter{JobID: id})
	if err != nil {
		return JobRecords{}, err
	}
	atts, err := o.Attempts(ctx, AttemptFilter{JobID: id})
	if err != nil {
		return JobRecords{}, err
	}
	return JobRecords{Job: job, Tasks: tasks, Attempts: atts}, nil
}

// JobRecords reads the three in one snapshot, so that an attempt that
// ends while they are read is open in all or ended in all: a task read
// ended never shows its attempt open.
func (s *sqlStore) JobRecords(ctx context.Context, id int64) (JobRecords, error) {
	var out JobRecords
	err := s.snapshot(ctx, func(o *ops) error {
		var err error
		out, err = o.JobRecords(ctx, id)
		return err
	})
	return out, err
}

// snapshot runs fn's reads in one read-only transaction on the readers,
// which sees the database as of one instant and writes made meanwhile not
// at all. SQLite's read transaction (WAL) keeps the snapshot of its first
// read until it ends; PostgreSQL's needs REPEATABLE READ for that, its
// READ COMMITTED taking a snapshot per statement. Neither blocks writers.
func (s *sqlStore) snapshot(ctx context.Context, fn func(o *ops) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d.name == "postgres" {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.r.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("store read transaction: begin: %w", err)
	}
	defer tx.Rollback() // it wrote nothing: rolling back ends it
	return fn(newOps(tx, s.d))
}
