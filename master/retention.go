package master

import (
	"context"
	"log/slog"
	"time"

	"github.com/allot-sched/allot/store"
)

// history is the master's past as the store keeps it: what the what-if
// export (events, deleted) and the decision log (decisions) read back of
// it, and its retention (prune), which owns when it last pruned. It
// reads and writes the store only, never the mirror: its callers need
// not hold mu.
type history struct {
	st  store.Store
	log *slog.Logger
	// prunedAt is when prune last ran; Tick alone calls it.
	prunedAt time.Time
}

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

// prune forgets the jobs that ended more than keep
// (history_retention) before now, with their tasks, attempts, logs,
// metrics and events, at most once per pruneEvery. It touches the store
// only: such jobs have left the mirror (the store keeps a job whose
// tasks still hold attempts). Called from Tick only.
func (hs *history) prune(ctx context.Context, now time.Time, keep time.Duration) {
	if keep <= 0 || now.Sub(hs.prunedAt) < pruneEvery {
		return
	}
	hs.prunedAt = now
	cutoff := now.Add(-keep)
	total := 0
	for total < pruneMax {
		n, err := hs.st.PruneJobs(ctx, cutoff, pruneBatch)
		if err != nil {
			hs.log.Error("forgetting finished jobs past history_retention", "err", err, "forgotten", total)
			return
		}
		total += n
		if n < pruneBatch {
			break
		}
	}
	if total > 0 {
		hs.log.Info("finished jobs past history_retention forgotten", "jobs", total, "ended_before", cutoff,
			"history_retention", keep)
	}
}
