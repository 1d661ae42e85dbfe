package master

import (
	"context"
	"time"
)

const (
	// pruneEvery is how often the master forgets the finished jobs past
	// history_retention.
	pruneEvery = 10 * time.Minute
	// pruneBatch bounds the jobs forgotten in one transaction, so that a
	// prune holds SQLite's single writer only briefly; pruneMax bounds
	// one round (a store that was never pruned is caught up over a few).
	pruneBatch = 500
	pruneMax   = 50_000
)

// pruneHistory forgets the jobs that ended more than history_retention
// ago, with their tasks, attempts, logs, metrics and events, at most once
// per pruneEvery. It touches the store only: such jobs have left the
// mirror (the store keeps a job whose tasks still hold attempts). Called
// from Tick only, which alone reads and writes prunedAt.
func (m *Master) pruneHistory(ctx context.Context) {
	keep := m.Config().HistoryRetention
	now := m.now()
	if keep <= 0 || now.Sub(m.prunedAt) < pruneEvery {
		return
	}
	m.prunedAt = now
	cutoff := now.Add(-keep)
	total := 0
	for total < pruneMax {
		n, err := m.st.PruneJobs(ctx, cutoff, pruneBatch)
		if err != nil {
			m.log.Error("forgetting finished jobs past history_retention", "err", err, "forgotten", total)
			return
		}
		total += n
		if n < pruneBatch {
			break
		}
	}
	if total > 0 {
		m.log.Info("finished jobs past history_retention forgotten", "jobs", total, "ended_before", cutoff,
			"history_retention", keep)
	}
}
