package master

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
	"github.com/allot-sched/allot/store/storetest"
)

// readsDownStore fails the reads of credentials and users too while
// down, as a stopped database does (flakyStore fails only writes).
type readsDownStore struct{ flakyStore }

func (s *readsDownStore) CredentialByHash(ctx context.Context, hash string) (store.Credential, error) {
	if s.Down.Load() {
		return store.Credential{}, errStoreDown
	}
	return s.Store.CredentialByHash(ctx, hash)
}

func (s *readsDownStore) User(ctx context.Context, name string) (store.User, error) {
	if s.Down.Load() {
		return store.User{}, errStoreDown
	}
	return s.Store.User(ctx, name)
}

// TestReadsThroughStoreOutage: while the store is down, longer than the
// credential cache's TTL, the requests the master answers from memory
// (jobs, a job, nodes) still pass with a token it resolved before the
// outage; writes get 503; a token it never saw gets 503 (it cannot tell
// whether it is valid), and one whose expiry passed during the outage
// 401, as ever.
func TestReadsThroughStoreOutage(t *testing.T) {
	var rs *readsDownStore
	h := newHarness(t, func(o *Options) { rs = &readsDownStore{flakyStore{&storetest.Flaky{Store: o.Store}}}; o.Store = rs })
	h.m.health.minGap = 0
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a, a)
	ana := h.as("ana")
	h.as("bob")
	short, err := newCredential(h.ctx, h.st, store.Credential{Kind: store.CredUser, Subject: "bob",
		CreatedAt: h.clock.Now(), ExpiresAt: h.clock.Now().Add(30 * time.Second)}, "allot_u_")
	if err != nil {
		t.Fatal(err)
	}
	jobPath := "/api/v1/jobs/" + strconv.FormatInt(id, 10)
	for _, tok := range []string{h.admin, ana, short} { // resolved, and cached, before the outage
		if code := h.doAs(tok, "GET", jobPath, nil, nil); code != 200 {
			t.Fatalf("GET %s before the outage: %d", jobPath, code)
		}
	}

	rs.Down.Store(true)
	h.m.Tick(h.ctx)
	if !h.m.health.isDown() {
		t.Fatal("the tick's probe did not notice the store was down")
	}
	h.clock.Advance(time.Minute) // past the cache's TTL, and bob's short token's expiry
	for _, c := range []struct {
		name, token, method, path, body string
		want                            int
		says                            string
	}{
		{name: "an admin lists jobs", token: h.admin, method: "GET", path: "/api/v1/jobs", want: 200, says: `"train"`},
		{name: "a member reads a job", token: ana, method: "GET", path: jobPath, want: 200, says: `"train"`},
		{name: "an admin lists nodes", token: h.admin, method: "GET", path: "/api/v1/nodes", want: 200, says: `"n1"`},
		{name: "a member submits", token: ana, method: "POST", path: "/api/v1/jobs", body: jobSpec("late", 1, ""), want: 503,
			says: "store is unavailable"},
		{name: "a token never seen", token: "allot_u_unknown", method: "GET", path: "/api/v1/jobs", want: 503},
		{name: "a token expired meanwhile", token: short, method: "GET", path: "/api/v1/jobs", want: 401, says: "expired"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			code, got := h.rawAs(c.token, c.method, c.path, body)
			if code != c.want || !strings.Contains(got, c.says) {
				t.Fatalf("%s %s: %d %s, want %d with %q", c.method, c.path, code, got, c.want, c.says)
			}
		})
	}

	rs.Down.Store(false)
	h.m.Tick(h.ctx)
	var jobs []api.Job
	if code := h.doAs(ana, "GET", "/api/v1/jobs", nil, &jobs); code != 200 || len(jobs) != 1 {
		t.Fatalf("after the outage: %d %+v, want the one job", code, jobs)
	}
}

// TestOutageReadsSurviveOthersChanges: a change to one user or
// credential (a role, a disabled user, a revoked token, a node that
// joins) drops only the cached entries it concerns, so the other users'
// tokens still read through a store outage that follows; the changed
// ones get what the store would answer, or 503 when it cannot (never a
// stale 200).
func TestOutageReadsSurviveOthersChanges(t *testing.T) {
	var rs *readsDownStore
	h := newHarness(t, func(o *Options) { rs = &readsDownStore{flakyStore{&storetest.Flaky{Store: o.Store}}}; o.Store = rs })
	h.m.health.minGap = 0
	ana, bob, cay, dan := h.as("ana"), h.as("bob"), h.as("cay"), h.as("dan")
	for _, tok := range []string{h.admin, ana, bob, cay, dan} {
		if code := h.doAs(tok, "GET", "/api/v1/jobs", nil, nil); code != 200 {
			t.Fatalf("GET /jobs before the changes: %d", code)
		}
	}
	cred, err := h.st.CredentialByHash(h.ctx, auth.Hash(dan))
	if err != nil {
		t.Fatal(err)
	}
	changes := []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/api/v1/users/bob", map[string]any{"roles": map[string]string{"*": "viewer"}}},
		{"PATCH", "/api/v1/users/cay", map[string]any{"disabled": true}},
		{"POST", "/api/v1/tokens/" + strconv.FormatInt(cred.ID, 10) + "/revoke", nil},
	}
	for _, c := range changes {
		if code := h.do(c.method, c.path, c.body, nil); code/100 != 2 {
			t.Fatalf("%s %s: %d", c.method, c.path, code)
		}
	}
	if _, err := h.agent("n2", 1).Register(h.ctx); err != nil { // a join
		t.Fatal(err)
	}

	rs.Down.Store(true)
	h.m.Tick(h.ctx)
	h.clock.Advance(time.Minute) // past the cache's TTL
	for _, c := range []struct {
		name, token string
		want        int
	}{
		{"the admin who made the changes", h.admin, 200},
		{"a user nothing changed", ana, 200},
		{"the user whose role changed: unknown while the store is down", bob, 503},
		{"the disabled user", cay, 503},
		{"the revoked token", dan, 503},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, body := h.rawAs(c.token, "GET", "/api/v1/jobs", nil); code != c.want {
				t.Fatalf("GET /jobs during the outage: %d %s, want %d", code, body, c.want)
			}
		})
	}
}

// deadStore fails every call while down with the error a stopped
// PostgreSQL gives (57P01, the connection terminated by a shutdown),
// reads included: nothing the store holds can be read.
type deadStore struct {
	store.Store
	down atomic.Bool
}

var errAdminShutdown = fmt.Errorf("store transaction: begin: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01",
	Message: "terminating connection due to administrator command"})

func (s *deadStore) err() error {
	if s.down.Load() {
		return errAdminShutdown
	}
	return nil
}

func (s *deadStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.Update(ctx, fn)
}

func (s *deadStore) Ping(ctx context.Context, at time.Time) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.Ping(ctx, at)
}

func (s *deadStore) CreateJob(ctx context.Context, j store.Job, ts []store.Task) (store.Job, error) {
	if err := s.err(); err != nil {
		return store.Job{}, err
	}
	return s.Store.CreateJob(ctx, j, ts)
}

func (s *deadStore) TransitionTask(ctx context.Context, t store.TaskTransition) (store.Task, error) {
	return unlessDead(s, func() (store.Task, error) { return s.Store.TransitionTask(ctx, t) })
}

func (s *deadStore) Heartbeat(ctx context.Context, name string, at time.Time) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.Heartbeat(ctx, name, at)
}

func (s *deadStore) AppendAudit(ctx context.Context, e store.AuditEntry) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.AppendAudit(ctx, e)
}

func (s *deadStore) AppendLogs(ctx context.Context, lines []store.LogLine) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.AppendLogs(ctx, lines)
}

func (s *deadStore) CredentialByHash(ctx context.Context, hash string) (store.Credential, error) {
	return unlessDead(s, func() (store.Credential, error) { return s.Store.CredentialByHash(ctx, hash) })
}

func (s *deadStore) User(ctx context.Context, name string) (store.User, error) {
	return unlessDead(s, func() (store.User, error) { return s.Store.User(ctx, name) })
}

func (s *deadStore) Job(ctx context.Context, id int64) (store.Job, error) {
	return unlessDead(s, func() (store.Job, error) { return s.Store.Job(ctx, id) })
}

func (s *deadStore) Jobs(ctx context.Context, f store.JobFilter) ([]store.Job, error) {
	return unlessDead(s, func() ([]store.Job, error) { return s.Store.Jobs(ctx, f) })
}

func (s *deadStore) Tasks(ctx context.Context, f store.TaskFilter) ([]store.Task, error) {
	return unlessDead(s, func() ([]store.Task, error) { return s.Store.Tasks(ctx, f) })
}

func (s *deadStore) Attempts(ctx context.Context, f store.AttemptFilter) ([]store.Attempt, error) {
	return unlessDead(s, func() ([]store.Attempt, error) { return s.Store.Attempts(ctx, f) })
}

func (s *deadStore) JobRecords(ctx context.Context, id int64) (store.JobRecords, error) {
	return unlessDead(s, func() (store.JobRecords, error) { return s.Store.JobRecords(ctx, id) })
}

func (s *deadStore) Logs(ctx context.Context, q store.LogQuery) ([]store.LogLine, error) {
	return unlessDead(s, func() ([]store.LogLine, error) { return s.Store.Logs(ctx, q) })
}

func (s *deadStore) Usage(ctx context.Context, f store.UsageFilter) ([]store.Usage, error) {
	return unlessDead(s, func() ([]store.Usage, error) { return s.Store.Usage(ctx, f) })
}

func (s *deadStore) Events(ctx context.Context, f store.EventFilter) ([]store.Event, error) {
	return unlessDead(s, func() ([]store.Event, error) { return s.Store.Events(ctx, f) })
}

func (s *deadStore) Metrics(ctx context.Context, f store.MetricFilter) ([]store.Metric, error) {
	return unlessDead(s, func() ([]store.Metric, error) { return s.Store.Metrics(ctx, f) })
}

// TestReadsThroughDeadStore: with a store that fails every call with a
// connection error, from its first failed call on (before any probe):
// the job list and a live job's view and explanation answer from memory,
// marked partial; what only the store holds (an ended job, logs,
// metrics, usage) and every write get 503 with Retry-After, never 500;
// the store is marked down at once, and the log has the one line that
// says so.
func TestReadsThroughDeadStore(t *testing.T) {
	var ds *deadStore
	logs := &lockedBuffer{}
	h := newHarness(t, func(o *Options) {
		ds = &deadStore{Store: o.Store}
		o.Store = ds
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	a := h.agent("n1", 1)
	done := h.submit(jobSpec("done", 1, ""))
	h.step()
	h.sync(a, a)
	a.Exit(tid(done, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	run := h.submit(jobSpec("train", 1, ""))
	wait := h.submit(jobSpec("waits", 1, ""))
	h.step()
	h.sync(a, a)
	if h.taskState(run, 0) != store.TaskRunning || h.m.pub.reads().job(done) != nil {
		t.Fatalf("setup: job %d %s, want running; job %d still in memory", run, h.taskState(run, 0), done)
	}
	h.m.Tick(h.ctx) // a probe finds the store up: the next is a second away
	logs.take()

	ds.down.Store(true) // no probe sees it before the requests below
	h.clock.Advance(time.Minute)
	id := func(n int64) string { return "/api/v1/jobs/" + strconv.FormatInt(n, 10) }
	for _, c := range []struct {
		name, method, path string
		want               int
		says, notSays      string
		partial            bool
	}{
		{name: "a live job (the first call, before any probe)", method: "GET", path: id(run), want: 200,
			says: `"placement":[{"node":"n1"`, partial: true},
		{name: "the job list", method: "GET", path: "/api/v1/jobs", want: 200, says: `"waits"`, notSays: `"done"`, partial: true},
		{name: "the list of ended jobs, paged", method: "GET", path: "/api/v1/jobs?state=completed,failed,killed&limit=50",
			want: 200, says: `"jobs":[]`, partial: true},
		// Nothing of it is missing, but no pass runs: the note says so.
		{name: "live jobs, filtered", method: "GET", path: "/api/v1/jobs?state=running", want: 200, says: `"train"`, partial: true},
		{name: "a waiting job's explanation", method: "GET", path: id(wait) + "/explain", want: 200,
			says: `"summary":"Scheduling is paused: the master's store has been unavailable since `, partial: true},
		{name: "a running job's explanation", method: "GET", path: id(run) + "/explain", want: 200, says: `"store_unavailable_since"`, partial: true},
		{name: "an ended job that left memory", method: "GET", path: id(done), want: 503, says: "store is unavailable"},
		{name: "logs", method: "GET", path: id(run) + "/logs", want: 503, says: "a job's logs are kept there"},
		{name: "metrics", method: "GET", path: id(run) + "/metrics", want: 503, says: "store is unavailable"},
		{name: "usage", method: "GET", path: "/api/v1/usage", want: 503, says: "the usage records are kept there"},
		{name: "a submission", method: "POST", path: "/api/v1/jobs", want: 503, says: "nothing was changed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := ""
			if c.method == "POST" {
				body = jobSpec("late", 1, "")
			}
			code, got, hdr := h.raw(c.method, c.path, body)
			if code != c.want || !strings.Contains(got, c.says) || c.notSays != "" && strings.Contains(got, c.notSays) {
				t.Fatalf("%s %s: %d %s\nwant %d with %q, without %q", c.method, c.path, code, got, c.want, c.says, c.notSays)
			}
			if p := hdr.Get(api.PartialHeader); (p != "") != c.partial || c.partial && (!strings.Contains(p, "scheduling is paused") || !strings.Contains(p, "time limits still end jobs")) {
				t.Fatalf("%s: %s %q, want it set: %v, saying scheduling is paused and time limits act", c.path, api.PartialHeader, p, c.partial)
			}
			if code == 503 && hdr.Get("Retry-After") == "" {
				t.Fatalf("%s: 503 without Retry-After", c.path)
			}
		})
	}
	if !h.m.health.isDown() {
		t.Fatal("the store is not marked down after requests failed on it")
	}
	code, _, _ := h.raw("GET", "/api/v1/whoami", "")
	if code != 200 {
		t.Fatalf("whoami during the outage: %d", code)
	}
	var tokenNeverSeen = "allot_u_unknown"
	if code := h.doAs(tokenNeverSeen, "GET", "/api/v1/jobs", nil, nil); code != 503 {
		t.Fatalf("a token never seen: %d, want 503", code)
	}
	lines := logs.take()
	if len(lines) != 1 || !strings.Contains(lines[0], "store unavailable") {
		t.Fatalf("log during the outage:\n%s\nwant the one line saying the store is unavailable", strings.Join(lines, "\n"))
	}

	ds.down.Store(false)
	h.m.health.mu.Lock()
	h.m.health.minGap = 0 // the tick's probe finds it back at once
	h.m.health.mu.Unlock()
	h.m.Tick(h.ctx)
	if code, got, hdr := h.raw("GET", "/api/v1/jobs", ""); code != 200 || !strings.Contains(got, `"done"`) || hdr.Get(api.PartialHeader) != "" {
		t.Fatalf("after the outage: %d %s, want every job, not partial", code, got)
	}
}

// TestReadsThroughPostgresStop is TestReadsThroughDeadStore against a
// real PostgreSQL stopped under the master (a fast shutdown, as pg_ctl
// -m fast stop): the first request after the stop, before any probe,
// gets the live job from memory or 503, never 500.
func TestReadsThroughPostgresStop(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	dsn, err := srv.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, dsn, t.TempDir())
	a := h.agent("n1", 1)
	run := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a, a)
	h.m.Tick(h.ctx) // a probe finds the store up: the next is a second away
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	id := "/api/v1/jobs/" + strconv.FormatInt(run, 10)
	for _, c := range []struct {
		method, path string
		want         int
		says         string
	}{
		{"GET", id, 200, `"train"`},
		{"GET", "/api/v1/jobs", 200, `"train"`},
		{"GET", id + "/explain", 200, `"summary"`},
		{"GET", id + "/logs", 503, "logs are kept there"},
		{"POST", "/api/v1/jobs", 503, "nothing was changed"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			body := ""
			if c.method == "POST" {
				body = jobSpec("late", 1, "")
			}
			if code, got, _ := h.raw(c.method, c.path, body); code != c.want || !strings.Contains(got, c.says) {
				t.Fatalf("%d %s, want %d with %q", code, got, c.want, c.says)
			}
		})
	}
	if !h.m.health.isDown() {
		t.Fatal("the store is not marked down")
	}
}

// TestUnavailableStoreIs503BeforeProbe: in the first second of an
// outage, before the next probe, a request whose store call fails with a
// connection-class error (store.IsUnavailable) gets 503 with Retry-After
// (the transaction failed: nothing changed), not 500; the store is
// marked down at once, and the log has the one line that says so, not
// an error per request.
func TestUnavailableStoreIs503BeforeProbe(t *testing.T) {
	for _, c := range []struct{ name, method, path, body string }{
		{"a submission", "POST", "/api/v1/jobs", jobSpec("late", 1, "")},
		{"an agent's sync", "POST", "/api/v1/agents/n1/sync", `{"running": []}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ds *deadStore
			logs := &lockedBuffer{}
			h := newHarness(t, func(o *Options) {
				ds = &deadStore{Store: o.Store}
				o.Store = ds
				o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
			})
			h.agent("n1", 1)
			h.m.Tick(h.ctx) // a probe finds the store up: the next is a second away
			logs.take()
			ds.down.Store(true)
			code, got, hdr := h.raw(c.method, c.path, c.body)
			if code != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(got, "nothing was changed") {
				t.Fatalf("%s %s: %d %s (Retry-After %q), want 503 with Retry-After", c.method, c.path, code, got, hdr.Get("Retry-After"))
			}
			if !h.m.health.isDown() {
				t.Fatal("the store is not marked down")
			}
			if lines := logs.take(); len(lines) != 1 || !strings.Contains(lines[0], "store unavailable") {
				t.Fatalf("log:\n%s\nwant the one line saying the store is unavailable", strings.Join(lines, "\n"))
			}
		})
	}
}

// unlessDead is read's answer, or the dead store's error while it fails.
func unlessDead[T any](s *deadStore, read func() (T, error)) (T, error) {
	if err := s.err(); err != nil {
		var zero T
		return zero, err
	}
	return read()
}
