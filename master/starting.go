package master

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-sched/allot/version"
)

// Starting answers on the master's address while the master waits for its
// database at start (allot master --db-wait), then hands every request to
// the master's handler. Without it the address is taken but nothing
// answers: probes and the CLI wait for their own timeouts instead of
// hearing why (trial 2026-11-29e E7). While it waits, /livez answers 200
// (the process is fine: an orchestrator must not restart it for its
// database), /readyz and /healthz 503 with the cause, the API 503 with
// the same words and that nothing was changed, and the dashboard's paths
// a short page that says so. The API's 503 has no Retry-After, so that the
// CLI says it at once rather than retrying into a wait that may last
// minutes, and no api.StoreOutageHeader: an agent hears what it hears
// of a master that is not up, since this one cannot judge or lease nodes.
type Starting struct {
	next atomic.Pointer[http.Handler]

	mu      sync.Mutex
	since   time.Time // the first failed try; zero before it
	err     error     // the last failed try's error
	loading bool      // the store is open; the master loads its state
}

// NewStarting returns a Starting that answers as waiting until Serve.
func NewStarting() *Starting { return &Starting{} }

// Waiting records a failed try to open the store, at now; the first
// one's time is the "since" of the answers. It fits store.OpenWait's
// waiting hook.
func (s *Starting) Waiting(now time.Time, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since.IsZero() {
		s.since = now
	}
	s.err = err
}

// Loading records that the store is open and the master loads its state
// from it.
func (s *Starting) Loading() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading = true
}

// Serve hands every request from now on to h, the master's handler.
func (s *Starting) Serve(h http.Handler) { s.next.Store(&h) }

// ServeHTTP answers as the master once Serve was called, as waiting
// before.
func (s *Starting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := s.next.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	msg := s.words()
	switch r.URL.Path {
	case "/livez":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok: "+msg+"\n")
	case "/readyz", "/healthz":
		w.Header().Set("Retry-After", retryAfterSeconds)
		if acceptsJSON(r) {
			writeJSON(w, http.StatusServiceUnavailable, Health{Status: "starting: " + msg,
				Version: version.String(), Store: s.storeStatus()})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, msg+"\n")
	case "/metrics":
		writeError(w, http.StatusServiceUnavailable, "", "the master is starting, %s", msg)
	default:
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			startingPage(w, msg)
			return
		}
		// A client that sent a job or a change hears it was not taken
		// (trial 2026-11-29f F6).
		writeError(w, http.StatusServiceUnavailable, "",
			"the master is starting, %s; nothing was changed or submitted; it serves once its store is open and loaded (GET /readyz says when, its log says more)", msg)
	}
}

// startingPage is what a browser opening the dashboard gets while the
// master starts: a short page that says so and reloads itself, not the
// API's JSON (trial 2026-11-29f F6).
func startingPage(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Retry-After", retryAfterSeconds)
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintf(w, "<!doctype html>\n<meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"5\">\n"+
		"<title>Allot: starting</title>\n<p>The Allot master is starting: %s.</p>\n"+
		"<p>The dashboard opens once its database is open and loaded; this page reloads every 5 seconds.</p>\n",
		html.EscapeString(msg))
}

// storeStatus is the store's health for /readyz in JSON: down with the
// last failure while the master waits for it, up once it answered.
func (s *Starting) storeStatus() StoreStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loading {
		return StoreStatus{Up: true}
	}
	return StoreStatus{Since: s.since, Error: startErrorWords(s.err)}
}

// words is the state in one phrase: "waiting for the database since
// 2026-11-29T14:01:02Z: connection refused". The cause is worded as
// /readyz words a store outage, without the database's address or user:
// these answers go to anyone, signed in or not.
func (s *Starting) words() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.loading:
		return "loading its state from the database"
	case s.since.IsZero():
		return "opening the database"
	}
	return fmt.Sprintf("waiting for the database since %s: %s", s.since.UTC().Format(time.RFC3339), startErrorWords(s.err))
}

// startErrorWords is a failed open's cause for the open endpoints.
func startErrorWords(err error) string {
	if err == nil {
		return ""
	}
	if w := redactStoreError(err); w != "write failed" {
		return w
	}
	return "cannot connect"
}
