package master

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// route is one endpoint of the REST API.
type route struct {
	method, path string
	// handle picks the endpoint's handler among the parts of the API.
	handle func(*apiParts) http.HandlerFunc
}

// apiParts are the types that serve the REST API, each over the master.
type apiParts struct {
	jobs    *jobsAPI
	cluster *clusterAPI
	access  *access
	agents  *agents
	logs    *agentLogs
}

// routes lists every endpoint under api.Version; the OpenAPI document
// describes exactly these (a test holds them in step).
var routes = []route{
	{"POST", "/jobs", func(p *apiParts) http.HandlerFunc { return p.jobs.handleSubmit }},
	{"GET", "/jobs", func(p *apiParts) http.HandlerFunc { return p.jobs.handleListJobs }},
	{"GET", "/jobs/{id}", func(p *apiParts) http.HandlerFunc { return p.jobs.handleGetJob }},
	{"PATCH", "/jobs/{id}", func(p *apiParts) http.HandlerFunc { return p.jobs.handlePatchJob }},
	{"POST", "/jobs/{id}/kill", func(p *apiParts) http.HandlerFunc { return p.jobs.handleKillJob }},
	{"POST", "/jobs/kill", func(p *apiParts) http.HandlerFunc { return p.jobs.handleKillJobs }},
	{"POST", "/jobs/{id}/hold", func(p *apiParts) http.HandlerFunc { return p.jobs.holds.handleHoldJob }},
	{"POST", "/jobs/{id}/release", func(p *apiParts) http.HandlerFunc { return p.jobs.holds.handleReleaseJob }},
	{"POST", "/jobs/{id}/requeue", func(p *apiParts) http.HandlerFunc { return p.jobs.requeues.handleRequeueJob }},
	{"POST", "/jobs/requeue", func(p *apiParts) http.HandlerFunc { return p.jobs.requeues.handleRequeueJobs }},
	{"POST", "/jobs/hold", func(p *apiParts) http.HandlerFunc { return p.jobs.holds.handleHoldJobs }},
	{"POST", "/jobs/release", func(p *apiParts) http.HandlerFunc { return p.jobs.holds.handleReleaseJobs }},
	{"GET", "/jobs/{id}/logs", func(p *apiParts) http.HandlerFunc { return p.jobs.logs.handleLogs }},
	{"GET", "/jobs/{id}/events", func(p *apiParts) http.HandlerFunc { return p.jobs.handleJobEvents }},
	{"GET", "/jobs/{id}/explain", func(p *apiParts) http.HandlerFunc { return p.jobs.handleExplain }},
	{"GET", "/jobs/{id}/metrics", func(p *apiParts) http.HandlerFunc { return p.jobs.metrics.handleJobMetrics }},
	{"GET", "/nodes", func(p *apiParts) http.HandlerFunc { return p.cluster.handleNodes }},
	{"POST", "/nodes/{name}/drain", func(p *apiParts) http.HandlerFunc { return p.cluster.handleDrainNode }},
	{"POST", "/nodes/{name}/resume", func(p *apiParts) http.HandlerFunc { return p.cluster.handleResumeNode }},
	{"DELETE", "/nodes/{name}", func(p *apiParts) http.HandlerFunc { return p.cluster.handleDeleteNode }},
	{"GET", "/pools", func(p *apiParts) http.HandlerFunc { return p.cluster.handlePools }},
	{"GET", "/projects", func(p *apiParts) http.HandlerFunc { return p.cluster.handleProjects }},
	{"POST", "/config/reload", func(p *apiParts) http.HandlerFunc { return p.cluster.handleReload }},
	{"GET", "/openapi.json", func(p *apiParts) http.HandlerFunc { return p.cluster.handleOpenAPI }},
	{"GET", "/whoami", func(p *apiParts) http.HandlerFunc { return p.access.handleWhoami }},
	{"GET", "/users", func(p *apiParts) http.HandlerFunc { return p.access.handleListUsers }},
	{"POST", "/users", func(p *apiParts) http.HandlerFunc { return p.access.handleCreateUser }},
	{"PATCH", "/users/{name}", func(p *apiParts) http.HandlerFunc { return p.access.handlePatchUser }},
	{"GET", "/tokens", func(p *apiParts) http.HandlerFunc { return p.access.handleListTokens }},
	{"POST", "/tokens", func(p *apiParts) http.HandlerFunc { return p.access.handleCreateToken }},
	{"POST", "/tokens/{id}/revoke", func(p *apiParts) http.HandlerFunc { return p.access.handleRevokeToken }},
	{"GET", "/audit", func(p *apiParts) http.HandlerFunc { return p.access.handleAudit }},
	{"GET", "/usage", func(p *apiParts) http.HandlerFunc { return p.cluster.handleUsage }},
	{"GET", "/history", func(p *apiParts) http.HandlerFunc { return p.cluster.handleHistory }},
	{"GET", "/history/scenario", func(p *apiParts) http.HandlerFunc { return p.cluster.handleHistoryScenario }},
	{"GET", "/history/decisions", func(p *apiParts) http.HandlerFunc { return p.cluster.handleHistoryDecisions }},
	{"GET", "/fairness", func(p *apiParts) http.HandlerFunc { return p.cluster.handleFairness }},
	{"GET", "/priorities", func(p *apiParts) http.HandlerFunc { return prioritiesAPI{p.cluster.server}.handle }},
	{"POST", "/agents/register", func(p *apiParts) http.HandlerFunc { return p.agents.handleRegister }},
	{"POST", "/agents/{name}/sync", func(p *apiParts) http.HandlerFunc { return p.agents.handleSync }},
	{"POST", "/agents/{name}/logs", func(p *apiParts) http.HandlerFunc { return p.logs.handleAgentLogs }},
}

// Handler serves the REST API under /api/v1, /metrics, /healthz and, when
// Options.UI is set, the dashboard at /.
func (m *Master) Handler() http.Handler {
	parts := &apiParts{jobs: newJobsAPI(m), cluster: &clusterAPI{server{m}}, access: m.access, agents: m.agents,
		logs: &agentLogs{server{m}}}
	mux := http.NewServeMux()
	for _, r := range routes {
		mux.HandleFunc(r.method+" "+api.Version+r.path, r.handle(parts))
	}
	mux.HandleFunc(api.Version+"/", func(w http.ResponseWriter, r *http.Request) {
		if allow := allowedMethods(strings.TrimPrefix(r.URL.Path, api.Version)); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, "", "%s %s: method not allowed; %s allows %s%s",
				r.Method, r.URL.Path, r.URL.Path, strings.Join(allow, ", "),
				methodHint(r.Method, strings.TrimPrefix(r.URL.Path, api.Version), strings.TrimSuffix(r.URL.Path, "/")))
			return
		}
		writeError(w, http.StatusNotFound, "", "no endpoint %s %s", r.Method, r.URL.Path)
	})
	mux.Handle("GET /metrics", m.metric.handler())
	mux.HandleFunc("GET /healthz", m.health.handleReady)
	mux.HandleFunc("GET /readyz", m.health.handleReady)
	mux.HandleFunc("GET /livez", parts.cluster.handleLive)
	if m.opt.UI != nil {
		mux.Handle("/", m.opt.UI)
	}
	return tagRequests(server{m}.logRequests(m.access.audit(m.access.authenticate(mux))))
}

// allowedMethods lists the methods of the routes whose path matches path
// (under api.Version), for a 405's Allow header.
func allowedMethods(path string) []string {
	var out []string
	for _, r := range routes {
		if pathMatches(r.path, path) && !slices.Contains(out, r.method) {
			out = append(out, r.method)
		}
	}
	slices.Sort(out)
	return out
}

// pathMatches matches a route pattern with {wildcards} against a path.
func pathMatches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return true
}

// logRequests logs every request's method, path, status and duration at
// debug level, and server errors at error level, but for the 503s of a
// store outage.
func (s server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		if status := seenStatus(s.m, r, sw.status); status == statusClientClosed {
			// No fault of the master's, and no answer anyone read: not an
			// error line, nor a 5xx for an alert on them (trial 29i I19).
			s.m.log.Info("http request", "method", r.Method, "path", r.URL.Path, "status", status,
				"note", "client closed request")
			return
		}
		level := slog.LevelDebug
		// A 503 during a store outage is the outage, logged once when it
		// began; each is counted for the line at its end.
		if sw.status >= 500 && !(sw.status == http.StatusServiceUnavailable && s.m.health.isDown()) {
			level = slog.LevelError
		}
		s.m.log.Log(r.Context(), level, "http request", "method", r.Method, "path", r.URL.Path, "status", sw.status)
	})
}

// statusClientClosed is nginx's 499 "client closed request": the status
// the log and the audit log give a request whose client hung up before
// it was answered, in place of the 503 it was answered with.
const statusClientClosed = 499

// seenStatus is the status to log and audit for request r answered with
// status: 499 for the 503 of a request whose client hung up (its
// context cancelled while the master runs on: server.fail's "cut
// short"), else status; a 500 stays a failure whoever left.
func seenStatus(m *Master, r *http.Request, status int) int {
	if status == http.StatusServiceUnavailable && clientGone(m, r) {
		return statusClientClosed
	}
	return status
}

// clientGone reports whether r's context was cancelled by its client
// hanging up rather than by the master stopping: requests share Run's
// context (cli/master.go), which is done first when the master stops.
func clientGone(m *Master, r *http.Request) bool {
	if !errors.Is(r.Context().Err(), context.Canceled) {
		return false
	}
	run := m.running.Load()
	return run == nil || (*run).Err() == nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// httpError is an error with its HTTP status and the request field at
// fault; also are the request's other errors, found with it
// (fieldErrors), which its answer lists after it (api.Error.Errors).
type httpError struct {
	status int
	field  string
	msg    string
	also   []*httpError
}

func (e *httpError) Error() string {
	if len(e.also) == 0 {
		return e.msg
	}
	msgs := []string{e.msg}
	for _, o := range e.also {
		msgs = append(msgs, o.msg)
	}
	return strings.Join(msgs, "; ")
}

// body is e's answer: its message and field, with every error listed
// when it has others.
func (e *httpError) body() api.Error {
	out := api.Error{Error: e.msg, Field: e.field}
	if len(e.also) > 0 {
		out.Errors = append(out.Errors, api.FieldError{Error: e.msg, Field: e.field})
		for _, o := range e.also {
			out.Errors = append(out.Errors, api.FieldError{Error: o.msg, Field: o.field})
		}
	}
	return out
}

func badRequest(field, format string, args ...any) *httpError {
	return &httpError{status: http.StatusBadRequest, field: field, msg: fmt.Sprintf(format, args...)}
}

// writeJSON is the one writer of the API's JSON answers. It leaves <, >
// and & as they are: the answers are read by programs and people, not
// pasted into HTML, and "\u003e= 0" in an error message hides ">= 0".
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // a failed write means the client went away
}

func writeError(w http.ResponseWriter, status int, field, format string, args ...any) {
	writeJSON(w, status, api.Error{Error: fmt.Sprintf(format, args...), Field: field})
}

// server is what every part of the HTTP API shares: the master whose
// state it serves, and how it answers a failure. It holds no state of its
// own; the parts that embed it take Master.mu (through lock) to read or
// change the mirror, as the master's own methods do.
type server struct {
	m *Master
}

// fail answers with err: an *httpError as it says, anything else as a
// server error.
func (s server) fail(w http.ResponseWriter, err error) {
	var he *httpError
	if errors.As(err, &he) {
		writeJSON(w, he.status, he.body())
		return
	}
	// The cause may name the database's host, user or files: it goes to
	// the log, and the client gets the id to find it there.
	id := w.Header().Get("X-Request-Id")
	if isStoreFault(err) && s.m.health.failing(context.Background(), err) {
		s.m.log.Debug("request refused: store unavailable", "request_id", id, "err", err)
		s.m.health.countRefused()
		s.m.health.unavailable(w)
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// The client gave up (its timeout, or it closed the connection)
		// or the master is stopping: not a fault of the master's, so no
		// error line, and a 503 the client may retry, not "internal
		// error" in the audit log (trial o F15: agents' first log
		// batches after a restart timed out while the store warmed up).
		s.m.log.Info("request cut short", "request_id", id, "err", err)
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, "",
			"the request was cut short before the master finished it (the client's timeout or the master stopping); it may not have taken effect: retry")
		return
	}
	s.m.log.Error("request failed", "request_id", id, "err", err)
	writeError(w, http.StatusInternalServerError, "", "internal error (request id %s): the master's log has the details", id)
}

// notLive explains why a job is not in the mirror: 404 or 409.
func (s server) notLive(ctx context.Context, id int64) error {
	rec, err := s.m.st.Job(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return &httpError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("job %d does not exist", id)}
	}
	if err != nil {
		return err
	}
	return &httpError{status: http.StatusConflict, msg: fmt.Sprintf("job %d is %s", id, rec.State)}
}

// readBody reads a request body of at most api.MaxBodyBytes. A body
// declared as anything but JSON is refused (415) rather than guessed at; a
// body without a Content-Type is taken as JSON.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, &httpError{status: http.StatusUnsupportedMediaType, msg: fmt.Sprintf(
				"Content-Type %q: expected application/json", ct)}
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, api.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &httpError{status: http.StatusRequestEntityTooLarge,
			msg: fmt.Sprintf("request body is larger than the limit of %d bytes", api.MaxBodyBytes)}
	}
	if err != nil {
		return nil, badRequest("", "reading the request body: %v", err)
	}
	return data, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown fields,
// trailing data and an empty body, and names the field at fault.
func decodeStrict(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("", "empty request body: expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, v)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("", "unexpected data after the JSON object at byte %d", dec.InputOffset())
	}
	return nil
}

// decodeError turns encoding/json's errors into messages that name the
// field and what was expected, and the field of v meant by an unknown
// one that is a likely typo.
func decodeError(err error, v any) error {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		field := typ.Field
		return badRequest(field, "%s: expected %s, got JSON %s", orTop(field), typ.Type.String(), typ.Value)
	case errors.As(err, &syn):
		return badRequest("", "invalid JSON at byte %d: %v", syn.Offset, strings.TrimPrefix(err.Error(), "json: "))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return badRequest(name, "unknown field %q%s", name, unknownFieldHint(name, v))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "truncated JSON")
	}
	return badRequest("", "invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
}

func orTop(field string) string {
	if field == "" {
		return "body"
	}
	return field
}

// decodeBody reads and strictly decodes a request body.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := readBody(w, r)
	if err != nil {
		return err
	}
	return decodeStrict(data, v)
}

// pathID parses the {id} path value.
func pathID(r *http.Request) (int64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("id", "job id %q: expected a positive integer", s)
	}
	return id, nil
}
