package master

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
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
