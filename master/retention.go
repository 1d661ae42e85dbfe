package master

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// history is the master's past as the store keeps it: what the what-if
// export (events, deleted) and the decision log (decisions) read back of
// it, and its retention (prune), which owns when it last pruned, and
// the horizon before which it forgot jobs (horizon). It
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

// horizon is where the cluster's complete history begins: the first
// whole second after the latest end of a job forgotten past
// history_retention (zero when none was). Every job active from then on
// is stored; a what-if export or decision log of a window from before
// it would lack the jobs forgotten, and its replay would start sooner
// the jobs that waited for them (a license, GPUs they held).
type horizon struct {
	store.Forgotten
	start time.Time
}

// horizon reads what the store forgot; it survives restarts with the
// store.
func (hs *history) horizon(ctx context.Context) (horizon, error) {
	f, err := hs.st.Forgotten(ctx)
	if err != nil || f.Jobs == 0 {
		return horizon{}, err
	}
	start := f.LastEnd.Truncate(time.Second)
	if start.Before(f.LastEnd) {
		start = start.Add(time.Second)
	}
	return horizon{Forgotten: f, start: start}, nil
}

// why says what was forgotten, for the messages about the horizon.
func (h horizon) why() string {
	return fmt.Sprintf("the master forgot %s that ended before %s (history_retention), the last at %s",
		plural.Count(int(h.Jobs), "finished job"), h.Cutoff.UTC().Format(time.RFC3339),
		h.LastEnd.UTC().Format(time.RFC3339))
}

// clamp is the window [since, until) where it starts before the
// horizon: since when the request gave it (explicit), which it refuses,
// naming the horizon, as a replay of it would be a replay of less than
// the cluster ran; otherwise (the default since) the window starts at
// the horizon instead, as it starts at the cluster's start.
func (h horizon) clamp(since, until time.Time, explicit bool) (time.Time, error) {
	if h.Jobs == 0 || !since.Before(h.start) {
		return since, nil
	}
	at := h.start.UTC().Format(time.RFC3339)
	if explicit {
		return since, badRequest("since", "since %s is before the history_retention horizon %s: %s, and a replay of a "+
			"window from before then would lack them (a job that waited for one would start sooner); give a since of %s "+
			"or later, or none (the default window starts there)", since.UTC().Format(time.RFC3339), at, h.why(), at)
	}
	if !h.start.Before(until) {
		return since, badRequest("until", "until %s is not after the history_retention horizon %s: %s, and a window "+
			"from before then would lack them; give an until after %s", until.UTC().Format(time.RFC3339), at, h.why(), at)
	}
	return h.start, nil
}

// note is the export's note when its window starts at the horizon; ""
// when it starts later, or nothing was forgotten.
func (h horizon) note(since time.Time) string {
	if h.Jobs == 0 || !since.Equal(h.start) {
		return ""
	}
	return fmt.Sprintf("the window starts at the history_retention horizon %s, not before: %s, and a window from "+
		"before then would replay without them, starting sooner the jobs that waited for them",
		h.start.UTC().Format(time.RFC3339), h.why())
}
