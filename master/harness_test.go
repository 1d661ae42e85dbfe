package master

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is a master on a store in a temporary directory, served by an
// httptest server, with a fake clock. Tests drive passes with step.
type harness struct {
	t     testing.TB
	ctx   context.Context
	dir   string
	dsn   string
	st    store.Store
	clock *fakeClock
	m     *Master
	srv   *httptest.Server
	opt   Options
	// states watches m's tasks' changes of state (watchTaskStates),
	// which must stay on the graph.
	states *stateWatch
	// jobStates watches m's jobs' changes of state (watchJobStates),
	// restore's included, which must stay on the graph.
	jobStates *jobWatch
	// admin is an admin's API token, and join a join token, made at the
	// harness's start; tokens holds the tokens of users made by as.
	admin, join string
	tokens      map[string]string
	creds       map[string]string // node → its credential, once issued
}

type harnessOption func(*Options)

func withConfig(cfg *config.Config) harnessOption { return func(o *Options) { o.Config = cfg } }

// withConfigFile writes text to a configuration file in a temporary
// directory and starts the master on it, as allot master --config does;
// it returns the file's path too, for a test that changes the file and
// reloads it (writeConfig).
func withConfigFile(t testing.TB, text string) (harnessOption, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "allot.yaml")
	writeConfig(t, path, text)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return func(o *Options) { o.Config, o.ConfigPath = cfg, path }, path
}

// writeConfig replaces the configuration file at path with text.
func writeConfig(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newHarness(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	return newHarnessOn(t, "", t.TempDir(), opts...)
}

func newHarnessOn(t testing.TB, dsn, dir string, opts ...harnessOption) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	st, err := store.Open(ctx, dsn, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &harness{t: t, ctx: ctx, dir: dir, dsn: dsn, st: st,
		clock: &fakeClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}}
	h.opt = Options{Store: st, DataDir: dir, Clock: h.clock, Logger: slog.New(slog.DiscardHandler), SyncWait: time.Second}
	for _, o := range opts {
		o(&h.opt)
	}
	h.start()
	return h
}

// start (re)creates the master on the harness's store, as after a restart.
func (h *harness) start() {
	h.t.Helper()
	if h.srv != nil {
		h.srv.Close()
	}
	opt := h.opt
	h.jobStates = watchJobStates(h.t, &opt)
	m, err := New(h.ctx, opt)
	if err != nil {
		h.t.Fatal(err)
	}
	h.m = m
	h.jobStates.on(m)
	h.states = watchTaskStates(h.t, m)
	h.srv = httptest.NewServer(m.Handler())
	h.t.Cleanup(h.srv.Close)
	if h.admin == "" {
		var err error
		if h.admin, err = BootstrapAdmin(h.ctx, h.st, "root", "harness", false, h.clock.Now()); err != nil {
			h.t.Fatal(err)
		}
		if h.join, err = NewJoinToken(h.ctx, h.st, "root", "harness", 0, h.clock.Now()); err != nil {
			h.t.Fatal(err)
		}
		h.tokens, h.creds = map[string]string{}, map[string]string{}
	}
}

// as returns the API token of user (made at its first use) with roles
// given as PROJECT=ROLE; by default a member of every project.
func (h *harness) as(user string, roles ...string) string {
	h.t.Helper()
	if tok, ok := h.tokens[user]; ok {
		return tok
	}
	if len(roles) == 0 {
		roles = []string{"*=member"}
	}
	rm := map[string]store.Role{}
	for _, r := range roles {
		p, role, _ := strings.Cut(r, "=")
		rm[p] = store.Role(role)
	}
	if _, err := h.st.CreateUser(h.ctx, store.User{Name: user, Roles: rm, CreatedAt: h.clock.Now()}); err != nil {
		h.t.Fatal(err)
	}
	tok, err := newCredential(h.ctx, h.st, store.Credential{Kind: store.CredUser, Subject: user, CreatedAt: h.clock.Now()}, "allot_u_")
	if err != nil {
		h.t.Fatal(err)
	}
	h.tokens[user] = tok
	return tok
}

func (h *harness) step() { h.m.Step(h.ctx) }

func (h *harness) agent(name string, gpus int) *mastertest.Agent {
	a := &mastertest.Agent{Master: h.srv.URL, Name: name, GPUs: gpus, Token: h.tokenFor("/api/v1/agents/"+name, nil)}
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		h.t.Fatal(err)
	}
	if cred := a.Credential(); cred != "" {
		h.creds[name] = cred
	}
	return a
}

// sync runs one sync of each agent without waiting.
func (h *harness) sync(agents ...*mastertest.Agent) {
	h.t.Helper()
	for _, a := range agents {
		a.Master = h.srv.URL
		if _, err := a.Sync(h.ctx, 0); err != nil {
			h.t.Fatalf("sync %s: %v", a.Name, err)
		}
	}
}

// do sends a request as the admin and decodes a JSON answer into out
// (when not nil), returning the status.
func (h *harness) do(method, path string, body any, out any) int {
	h.t.Helper()
	return h.doAs(h.tokenFor(path, body), method, path, body, out)
}

// tokenFor picks the credential a real client would send: the node's own
// for the agents' protocol (a join token before the node has one), an
// admin's API token for the rest.
func (h *harness) tokenFor(path string, body any) string {
	rest, ok := strings.CutPrefix(path, "/api/v1/agents/")
	if !ok {
		return h.admin
	}
	name, _, _ := strings.Cut(rest, "/")
	if reg, ok := body.(api.Register); ok && rest == "register" {
		name = reg.Name
	}
	if cred := h.creds[name]; cred != "" {
		return cred
	}
	return h.join
}

// doAs sends a request with the bearer token (none when "").
func (h *harness) doAs(token, method, path string, body any, out any) int {
	h.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewBufferString(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(h.ctx, method, h.srv.URL+path, r)
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: decoding %q: %v", method, path, data, err)
		}
	}
	return resp.StatusCode
}

// submit submits a job file given as JSON and returns the job id.
func (h *harness) submit(spec string) int64 {
	h.t.Helper()
	var reply api.SubmitReply
	if code := h.do("POST", "/api/v1/jobs", spec, &reply); code != http.StatusCreated {
		var e api.Error
		h.do("POST", "/api/v1/jobs", spec, &e)
		h.t.Fatalf("submit: status %d: %+v", code, e)
	}
	return reply.ID
}

func (h *harness) job(id int64) api.Job {
	h.t.Helper()
	var j api.Job
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10), nil, &j); code != http.StatusOK {
		h.t.Fatalf("get job %d: status %d", id, code)
	}
	return j
}

// taskState is a task's state as the store has it.
func (h *harness) taskState(id int64, index int) store.TaskState {
	h.t.Helper()
	tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: id})
	if err != nil {
		h.t.Fatal(err)
	}
	return tasks[index].State
}

func jobSpec(name string, slots int, extra string) string {
	return fmt.Sprintf(`{"name": %q, "entrypoint": "python train.py", "resources": {"slots": %d%s}}`, name, slots, extra)
}

func tid(job int64, index, attempt int) agent.TaskID {
	return agent.TaskID{JobID: strconv.FormatInt(job, 10), TaskIndex: index, Attempt: attempt}
}

func storeJobFilter() store.JobFilter { return store.JobFilter{} }

// raw sends a request as the admin with a raw body ("" for none) and
// returns the status, the body and the headers.
func (h *harness) raw(method, path, body string) (int, string, http.Header) {
	h.t.Helper()
	req, err := http.NewRequestWithContext(h.ctx, method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, string(data), resp.Header
}
