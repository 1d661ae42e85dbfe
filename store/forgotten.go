package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Forgotten is what PruneJobs forgot, in all, kept so that a restarted
// master knows where its complete history begins.
type Forgotten struct {
	// Jobs is how many finished jobs were forgotten; 0 when none was
	// (or only before the store kept count).
	Jobs int64
	// LastEnd is the latest end among them: every job active from then
	// on is still stored.
	LastEnd time.Time
	// Cutoff is the endedBefore of the last prune that forgot a job
	// (its now less history_retention).
	Cutoff time.Time
}

// recordForgotten adds n jobs forgotten by a prune at cutoff, the last
// of which ended at lastEnd, to the row that counts them. Called by
// PruneJobs within its transaction.
func (o masterRows) recordForgotten(ctx context.Context, n int, lastEnd, cutoff time.Time) error {
	_, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO forgotten (one, jobs, last_end_ns, cutoff_ns) VALUES (1, ?, ?, ?)
		ON CONFLICT (one) DO UPDATE SET jobs = forgotten.jobs + excluded.jobs,
			last_end_ns = CASE WHEN excluded.last_end_ns > forgotten.last_end_ns
				THEN excluded.last_end_ns ELSE forgotten.last_end_ns END,
			cutoff_ns = CASE WHEN excluded.cutoff_ns > forgotten.cutoff_ns
				THEN excluded.cutoff_ns ELSE forgotten.cutoff_ns END`), n, nsOf(lastEnd), nsOf(cutoff))
	if err != nil {
		return fmt.Errorf("record the jobs forgotten: %w", err)
	}
	return nil
}

func (o masterRows) Forgotten(ctx context.Context) (Forgotten, error) {
	var f Forgotten
	var end, cutoff int64
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT jobs, last_end_ns, cutoff_ns FROM forgotten WHERE one = 1")).
		Scan(&f.Jobs, &end, &cutoff)
	if errors.Is(err, sql.ErrNoRows) {
		return Forgotten{}, nil
	}
	if err != nil {
		return Forgotten{}, fmt.Errorf("read the jobs forgotten: %w", err)
	}
	f.LastEnd, f.Cutoff = timeOf(end), timeOf(cutoff)
	return f, nil
}
