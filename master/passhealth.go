package master

import (
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// passHealth owns whether the scheduling passes fail. A pass that fails
// plans nothing, in any pool: a failing core stops the whole cluster, so
// it must be seen, not only logged. Each failed pass counts in
// allot_scheduling_pass_failures_total; the log gets one line when the
// passes start failing or fail otherwise, and one when they succeed
// again (a line a second would bury it); /healthz and /readyz say it
// while it lasts (handleReady), and so does the read view (failing).
// It has its own lock, taken after Master.mu when both are held.
type passHealth struct {
	log      *slog.Logger
	failures prometheus.Counter

	mu     sync.Mutex
	err    string    // the last pass's failure, "" when it succeeded
	since  time.Time // when the passes began to fail
	failed int       // passes failed since then
}

// PassStatus is the scheduling passes' health as /healthz reports it.
type PassStatus struct {
	Failing bool      `json:"failing"`
	Since   time.Time `json:"since,omitzero"`
	Error   string    `json:"error,omitempty"`
}

// record notes the outcome of a pass that ended at now.
func (h *passHealth) record(err error, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		if h.err != "" {
			h.log.Info("scheduling passes succeed again", "failed_passes", h.failed, "failing_since", h.since)
		}
		h.err, h.since, h.failed = "", time.Time{}, 0
		return
	}
	if h.failures != nil {
		h.failures.Inc()
	}
	msg := err.Error()
	if h.err == "" {
		h.since = now
	}
	if msg != h.err {
		h.log.Error("scheduling pass failed; no pool schedules until a pass succeeds", "err", err,
			"failed_passes", h.failed+1)
	}
	h.err = msg
	h.failed++
}

// status is the passes' health as last recorded.
func (h *passHealth) status() PassStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return PassStatus{Failing: h.err != "", Since: h.since, Error: h.err}
}
