package master

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// readsDownStore fails the reads of credentials and users too while
// down, as a stopped database does (flakyStore fails only writes).
type readsDownStore struct{ flakyStore }

func (s *readsDownStore) CredentialByHash(ctx context.Context, hash string) (store.Credential, error) {
	if s.down.Load() {
		return store.Credential{}, errStoreDown
	}
	return s.Store.CredentialByHash(ctx, hash)
}

func (s *readsDownStore) User(ctx context.Context, name string) (store.User, error) {
	if s.down.Load() {
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
	h := newHarness(t, func(o *Options) { rs = &readsDownStore{flakyStore{Store: o.Store}}; o.Store = rs })
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

	rs.down.Store(true)
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

	rs.down.Store(false)
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
	h := newHarness(t, func(o *Options) { rs = &readsDownStore{flakyStore{Store: o.Store}}; o.Store = rs })
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

	rs.down.Store(true)
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
