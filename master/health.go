package master

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/version"
)

// Store health. The store is the truth, so a master whose store refuses
// writes must neither act (a start or a kill it cannot record would be
// lost) nor judge agents by the heartbeats it could not take. It says so
// instead: /readyz and /healthz answer 503, requests that need the store
// get 503 with Retry-After, the log gets one line when the store goes and
// one when it is back, and the loop probes it until it is.
const (
	// probeTimeout bounds one probe: a stopped PostgreSQL can hold a
	// connection attempt far longer.
	probeTimeout = 3 * time.Second
	// probeEvery is how often a healthy store is probed from the loop, so
	// that /readyz and the dashboard learn of an outage without traffic.
	probeEvery = 5 * time.Second
	// probeMinGap is the least time between two probes of a failing
	// store: a flood of failing requests shares one probe.
	probeMinGap = time.Second
	// retryAfterSeconds is the Retry-After of a 503 for a failing store.
	retryAfterSeconds = "5"
)

// storeHealth owns what the master knows of its store's health: it probes
// the store, tells the loop and the handlers whether it is down, and
// answers /readyz. Its fields below mu are guarded by its own lock, taken
// after Master.mu when both are held; it never takes Master.mu.
type storeHealth struct {
	st    store.Store
	log   *slog.Logger
	clock Clock
	// up is the allot_store_up gauge.
	up prometheus.Gauge
	// passes is the scheduling passes' health, which /healthz reports
	// too; nil in tests that build a storeHealth alone.
	passes *passHealth

	mu        sync.Mutex
	down      bool
	since     time.Time // when it went down or came back
	err       error     // the failure that took it down
	lastProbe time.Time
	// recovered is set when the store comes back; the loop then gives
	// every agent a fresh lease (they could not sync meanwhile).
	recovered bool
	// minGap is probeMinGap; tests shorten it.
	minGap time.Duration
	// inflight is closed when the probe under way ends.
	inflight chan struct{}
	// refused and auditLost count the requests refused and the audit
	// entries not written during the outage: logging each would flood the
	// log with the one cause already logged, so the recovery line sums
	// them up.
	refused, auditLost int
	// outFrom is when the outage under way began by the master's clock,
	// and outage the one that ended, for the loop to record once the
	// store is back (recordOutage).
	outFrom time.Time
	outage  *store.StoreOutage
	// last is the last outage that ended, kept for the reasons of the
	// time limits applied late for it (lastOutageSpanning).
	last store.StoreOutage
	// outageLost is the audit entries that outage could not take, which
	// the audit log's entry for it counts.
	outageLost int
}

// StoreStatus is the store's health as /readyz reports it.
type StoreStatus struct {
	Up    bool      `json:"up"`
	Since time.Time `json:"since,omitzero"`
	Error string    `json:"error,omitempty"`
}

// StoreStatus returns the store's health as last observed.
func (m *Master) StoreStatus() StoreStatus { return m.health.status() }

// status is the store's health as last observed.
func (h *storeHealth) status() StoreStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := StoreStatus{Up: !h.down, Since: h.since}
	if h.down && h.err != nil {
		st.Error = redactStoreError(h.err)
	}
	return st
}

// probe writes to the store and records whether it took the write.
// The store is probed at most once per probeMinGap; in between, the last
// result is returned.
func (h *storeHealth) probe(ctx context.Context) error {
	h.mu.Lock()
	if wait := h.inflight; wait != nil {
		// Share the probe in flight rather than queue up behind it.
		h.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		return h.lastErr()
	}
	now := time.Now()
	if now.Sub(h.lastProbe) < h.minGap {
		h.mu.Unlock()
		return h.lastErr()
	}
	done := make(chan struct{})
	h.lastProbe, h.inflight = now, done
	h.mu.Unlock()

	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	err := h.st.Ping(pctx, h.clock.Now().UTC())
	cancel()
	h.record(err)
	h.mu.Lock()
	h.inflight = nil
	h.mu.Unlock()
	close(done)
	return err
}

// lastErr is the failure that keeps the store down, or nil.
func (h *storeHealth) lastErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down {
		return h.err
	}
	return nil
}

// record moves the health between up and down, logging each change
// once.
func (h *storeHealth) record(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	switch {
	case err != nil && !h.down:
		h.down, h.since, h.err = true, now, err
		h.outFrom = h.clock.Now()
		h.up.Set(0)
		h.log.Error("store unavailable: the master refuses changes and holds agent timeouts until it is back; retrying",
			"err", err, "retry_every", probeMinGap)
	case err != nil:
		h.err = err
	case h.down:
		h.log.Info("store available again: refused "+plural.Count(h.refused, "request")+" during the outage",
			"down_for", now.Sub(h.since).Round(time.Millisecond), "refused", h.refused, "audit_entries_lost", h.auditLost)
		h.down, h.since, h.err, h.recovered = false, now, nil, true
		h.outage = &store.StoreOutage{From: h.outFrom, Until: h.clock.Now(), Refused: h.refused}
		h.last = *h.outage
		h.outageLost = h.auditLost
		h.refused, h.auditLost = 0, 0
		h.up.Set(1)
	}
}

// failing reports whether err, a store fault, comes from a failing
// store, so that the request gets 503 rather than 500. An error the
// store classes as its database being unreachable or gone
// (store.IsUnavailable) is that at once, and marks the store down
// without waiting for the next probe: in the first second of an outage
// requests would otherwise fail as internal errors, each logged, before
// the probe's one line. Any other fault is judged by a probe.
func (h *storeHealth) failing(ctx context.Context, err error) bool {
	if store.IsUnavailable(err) {
		h.record(err)
		return true
	}
	return h.probe(ctx) != nil
}

// countRefused counts a request refused for the outage.
func (h *storeHealth) countRefused() {
	h.mu.Lock()
	h.refused++
	h.mu.Unlock()
}

// countAuditLost counts an audit entry that the failing store did not
// take (with err), and reports whether the store is known down: if it
// is not, the failure is news and the caller logs it.
func (h *storeHealth) countAuditLost(ctx context.Context, err error) bool {
	if !h.failing(ctx, err) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.down {
		return false
	}
	h.auditLost++
	return true
}

// lastOutageSpanning is the last outage, where it explains why nothing
// the master had to do at at was done then: it ended after at, and began
// no later than a probe's interval after it (the master learns of an
// outage by a write that fails, or the next probe, up to probeEvery
// later; a kill due meanwhile failed with the store). An outage the
// master has not seen end yet (a sync's writes may succeed before the
// next probe says the store is back) counts as ending now.
func (h *storeHealth) lastOutageSpanning(at time.Time) (store.StoreOutage, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.last
	if h.down {
		out = store.StoreOutage{From: h.outFrom, Until: h.clock.Now()}
	}
	ok := !out.Until.IsZero() && out.Until.After(at) && !out.From.After(at.Add(probeEvery))
	return out, ok
}

// isDown reports whether the store is known to be failing.
func (h *storeHealth) isDown() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.down
}

// downOrBack reports whether the store is known to be failing, or came
// back (a probe of /readyz's or a request's may have seen it) and the
// loop has not yet taken its recovery (checkStore).
func (h *storeHealth) downOrBack() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.down || h.recovered
}

// checkStore runs from the loop's tick: it probes a failing store, and a
// healthy one every probeEvery, and after a recovery gives every agent a
// fresh lease, since none could sync while the store was down, and holds
// the passes for the reports they held meanwhile (reportsettle.go). It
// reports whether the store is up. Callers do not hold mu.
func (m *Master) checkStore(ctx context.Context) bool {
	h := &m.health
	h.mu.Lock()
	due := h.down || time.Since(h.lastProbe) >= probeEvery
	h.mu.Unlock()
	if due && h.probe(ctx) != nil {
		return false
	}
	h.mu.Lock()
	recovered, outage, lost := h.recovered, h.outage, h.outageLost
	h.recovered, h.outage = false, nil
	h.mu.Unlock()
	if outage != nil {
		h.recordOutage(ctx, *outage, lost)
	}
	if recovered {
		m.lock()
		now := m.now()
		for _, n := range m.nodes {
			if n.lastSeen.Before(now) {
				n.lastSeen = now
			}
		}
		m.reports.begin(now)
		m.kick()
		m.unlock()
	}
	return true
}

// recordOutage keeps an outage the master outlived, for the what-if
// export's note (whatif_outages.go), and marks it in the audit log, in
// the same transaction: the requests of that time are missing there
// (lost audit entries), and an auditor reading the log must see the gap
// for what it is, not a quiet hour (trial r R7). The store has just
// answered a probe; if it fails again the outage goes unrecorded, which
// the log says: the export then lacks only its note.
func (h *storeHealth) recordOutage(ctx context.Context, out store.StoreOutage, lost int) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	err := h.st.Update(ctx, func(tx store.Tx) error {
		if err := tx.RecordOutage(ctx, out); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, outageAudit(out, lost))
	})
	if err != nil {
		h.log.Warn("store outage not recorded: the what-if export and the audit log will not note it",
			"from", out.From, "until", out.Until, "err", err)
	}
}

// outageAudit is the audit log's entry for an outage: the gap in it, and
// how many entries it lacks for it.
func outageAudit(out store.StoreOutage, lost int) store.AuditEntry {
	return store.AuditEntry{At: out.Until, Actor: "master", Action: "store outage", Status: http.StatusServiceUnavailable,
		Detail: fmt.Sprintf("the store was unavailable from %s to %s (%s): %s refused; %s of that time not recorded here",
			out.From.UTC().Format(time.RFC3339), out.Until.UTC().Format(time.RFC3339),
			out.Until.Sub(out.From).Round(time.Second), plural.Count(out.Refused, "request"), plural.Count(lost, "audit entry"))}
}

// isStoreFault reports whether err may be the store failing rather than a
// refusal, a conflict or a missing row, which a working store gives too.
func isStoreFault(err error) bool {
	var he *httpError
	var ae *auth.Error
	switch {
	case err == nil, errors.As(err, &he), errors.As(err, &ae),
		errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotFound),
		errors.Is(err, context.Canceled), errors.Is(err, errUnauthenticated):
		return false
	}
	return true
}

// unavailable answers 503 for a request that the failing store could not
// serve.
func (h *storeHealth) unavailable(w http.ResponseWriter) {
	st := h.status()
	w.Header().Set("Retry-After", retryAfterSeconds)
	w.Header().Set(api.StoreOutageHeader, "1")
	writeError(w, http.StatusServiceUnavailable, "",
		"the master's store is unavailable (since %s): nothing was changed; retry in a few seconds",
		st.Since.UTC().Format(time.RFC3339))
}

// redactStoreError keeps what an operator can act on ("connection
// refused", "disk is full") and drops what would name the database's
// host, user or files, for the open /readyz endpoint.
func redactStoreError(err error) string {
	msg := strings.ToLower(err.Error())
	for _, k := range []struct{ needle, say string }{
		{"full", "disk full"},
		{"no space", "disk full"},
		{"read-only", "read-only database"},
		{"readonly", "read-only database"},
		{"refused", "connection refused"},
		{"shutting down", "database shutting down"},
		{"starting up", "database starting up"},
		{"timeout", "timed out"},
		{"deadline", "timed out"},
		{"closed", "connection closed"},
		{"locked", "database locked"},
	} {
		if strings.Contains(msg, k.needle) {
			return k.say
		}
	}
	return "write failed"
}

// passErrorWhere stands in the health endpoints for the error of the
// failing scheduling passes.
const passErrorWhere = "the error is in GET /api/v1/pools (scheduler_error, for a signed-in user) and the master's log"

// handleReady answers /readyz and /healthz: 200 when the store takes
// writes, 503 otherwise; JSON when the client asks for it. While the
// scheduling passes fail, both say so, and /healthz answers 503: the
// master serves requests (it is ready) but schedules nothing, which a
// liveness check should see.
func (h *storeHealth) handleReady(w http.ResponseWriter, r *http.Request) {
	h.probe(r.Context())
	st := h.status()
	var ps PassStatus
	if h.passes != nil {
		ps = h.passes.status()
		if ps.Failing {
			// The core's error names jobs and pools, which the open
			// health endpoints do not show; those who may read them
			// find it in GET /pools and the master's log.
			ps.Error = passErrorWhere
		}
	}
	status := http.StatusOK
	if !st.Up {
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", retryAfterSeconds)
	} else if ps.Failing && r.URL.Path == "/healthz" {
		status = http.StatusServiceUnavailable
	}
	if acceptsJSON(r) {
		ans := Health{Status: "ok", Version: version.String(), Ready: st.Up, Store: st, Scheduler: ps}
		switch {
		case !st.Up:
			ans.Status = "unavailable"
		case ps.Failing:
			ans.Status = "scheduler failing"
		}
		writeJSON(w, status, ans)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	if !st.Up {
		fmt.Fprintf(w, "store unavailable since %s: %s\n", st.Since.UTC().Format(time.RFC3339), st.Error)
	}
	if ps.Failing {
		fmt.Fprintf(w, "scheduling passes failing since %s (no pool schedules): %s\n", ps.Since.UTC().Format(time.RFC3339), ps.Error)
	}
	if st.Up && !ps.Failing {
		io.WriteString(w, "ok\n")
	}
}
