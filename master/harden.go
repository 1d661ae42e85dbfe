package master

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/netutil"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/version"
)

// ServerOptions bound what one client can hold of the master.
type ServerOptions struct {
	// ReadTimeout bounds reading a whole request, body included, so a slow
	// body cannot hold a connection; 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
	// MaxConns caps concurrent connections; 0 means DefaultMaxConns.
	MaxConns int
	// TLSCert and TLSKey, when both set, serve HTTPS.
	TLSCert, TLSKey string
}

// Server limits.
const (
	DefaultReadTimeout = 30 * time.Second
	DefaultMaxConns    = 4096
	// writeTimeout outlasts the longest held request (a log poll of
	// maxLogWait, a sync of at most DefaultSyncWait).
	writeTimeout = maxLogWait + 30*time.Second
	idleTimeout  = 2 * time.Minute
	headerBytes  = 64 << 10
)

// Serve serves h on ln with timeouts and a connection cap until the
// server is shut down; base is every request's parent context.
func Serve(srv *http.Server, ln net.Listener, o ServerOptions) error {
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	ln = netutil.LimitListener(ln, o.MaxConns)
	if o.TLSCert != "" || o.TLSKey != "" {
		return srv.ServeTLS(ln, o.TLSCert, o.TLSKey)
	}
	return srv.Serve(ln)
}

// NewServer returns an http.Server for h with the master's timeouts.
func NewServer(h http.Handler, o ServerOptions, base func(net.Listener) context.Context) *http.Server {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(10*time.Second, o.ReadTimeout),
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    headerBytes,
		BaseContext:       base,
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12},
	}
}

// CheckTLS validates --tls-cert and --tls-key before the master starts.
func CheckTLS(cert, key string) error {
	if (cert == "") != (key == "") {
		return fmt.Errorf("--tls-cert and --tls-key: give both or neither")
	}
	if cert == "" {
		return nil
	}
	if _, err := tls.LoadX509KeyPair(cert, key); err != nil {
		return fmt.Errorf("--tls-cert %s / --tls-key %s: %w", cert, key, err)
	}
	return nil
}

func newRequestID() string {
	b := make([]byte, 8)
	rand.Read(b) // never fails (crypto/rand panics rather)
	return hex.EncodeToString(b)
}

// tagRequests gives every request an id, sent back as X-Request-Id, so
// that a client's report can be matched with the master's log.
func tagRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := &reqInfo{id: newRequestID()}
		w.Header().Set("X-Request-Id", ri.id)
		// Every answer names the master's build, so that a client, a proxy
		// log or a bug report can tell what answered.
		w.Header().Set(VersionHeader, version.String())
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, ri)))
	})
}

// auditWriter keeps the status and the start of an error answer.
type auditWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *auditWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.status >= 400 && w.body.Len() < 1024 {
		w.body.Write(p[:min(len(p), 1024-w.body.Len())])
	}
	return w.ResponseWriter.Write(p)
}

func (w *auditWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// audited reports whether a request goes to the audit log: every change
// of cluster state, and every refused request of an agent. Agents' syncs
// and log uploads that succeed are protocol traffic, counted in metrics;
// so is a sync answered 404 to ask the agent to register again, which
// every agent gets after a master restart (its registration is audited).
func audited(r *http.Request, status int) bool {
	if !strings.HasPrefix(r.URL.Path, api.Version+"/") || infoOf(r).reRegister {
		return false
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	if r.URL.Path == api.Version+"/jobs" && dryRun(r) {
		return false // it changes nothing (dryrun.go)
	}
	if status < 400 && strings.HasPrefix(r.URL.Path, api.Version+"/agents/") &&
		!strings.HasSuffix(r.URL.Path, "/register") {
		return false
	}
	return true
}

// dryRun reports whether a submission asks only for a dry run; one with a
// malformed dry_run is refused before anything is judged.
func dryRun(r *http.Request) bool {
	d, err := boolParam(r, DryRunParam)
	return d || err != nil
}

// audit writes an entry for each audited request once it is answered.
func (ac *access) audit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		aw := &auditWriter{ResponseWriter: w}
		next.ServeHTTP(aw, r)
		if aw.status == 0 {
			aw.status = http.StatusOK
		}
		aw.status = seenStatus(ac.m, r, aw.status) // 499: its client hung up
		if !audited(r, aw.status) {
			return
		}
		ri := infoOf(r)
		e := store.AuditEntry{At: ac.m.now(), Actor: auditActor(ri), Action: r.Method + " " + r.URL.Path,
			Target: auditTarget(r), Status: aw.status, RequestID: ri.id}
		if aw.status >= 400 {
			var ae api.Error
			if json.Unmarshal(aw.body.Bytes(), &ae) == nil {
				e.Detail = ae.Error
			}
			more, ok := ac.deadCreds.admit(ri, aw.status, e.At) // auditflood.go
			if !ok {
				return
			}
			e.Detail += more
		} else {
			e.Detail = ri.detail // what the change changed (auditdetail.go)
			if ri.target != "" {
				e.Target = ri.target
			}
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
		defer cancel()
		if err := ac.m.st.AppendAudit(ctx, e); err != nil && !ac.m.health.countAuditLost(ctx, err) {
			ac.m.log.Error("audit log write failed", "request_id", ri.id, "action", e.Action, "err", err)
		}
	})
}

// auditTarget names the object of a request: the job, node or user in
// its path, or the path itself.
func auditTarget(r *http.Request) string {
	rest := strings.TrimPrefix(r.URL.Path, api.Version+"/")
	parts := strings.Split(rest, "/")
	if len(parts) >= 2 {
		return strings.TrimSuffix(parts[0], "s") + " " + parts[1]
	}
	return rest
}
