package master

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestAuditActorFilter: an actor filter no entry could match, such as a
// bare user name, is refused (400, naming the forms), rather than
// answered with an empty log that reads as "nobody did anything".
func TestAuditActorFilter(t *testing.T) {
	h := newHarness(t)
	h.submit(jobSpec("a", 1, ""))
	// recover-admin writes its entry as local:OSUSER (trial o F2).
	if _, err := RecoverAdmin(h.ctx, h.st, "root", false, "local:root", h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, actor string
		status      int
		want        string
	}{
		{"a user", "user:root", 200, `"actor":"user:root"`},
		{"a node", "node:n1", 200, "[]"},
		{"a join token", "join-token:2", 200, "[]"},
		{"anonymous", "anonymous", 200, "[]"},
		{"the master's own marks", "master", 200, `"action":"master start"`},
		{"recover-admin's local user", "local:root", 200, `"action":"allot master recover-admin"`},
		{"a bare name", "root", 400, `actor \"root\": expected user:NAME, node:NAME, join-token:ID, local:OSUSER (allot master recover-admin), master (its starts and store outages) or anonymous (did you mean user:root?)`},
		{"an unknown kind", "group:ops", 400, `actor \"group:ops\": expected user:NAME`},
		{"a kind without a name", "user:", 400, `actor \"user:\": expected`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := h.raw("GET", "/api/v1/audit?actor="+tc.actor, "")
			if code != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("GET /audit?actor=%s = %d %s, want %d with %q", tc.actor, code, body, tc.status, tc.want)
			}
			if code == http.StatusBadRequest && !strings.Contains(body, `"field":"actor"`) {
				t.Fatalf("the refusal %s does not name the field actor", body)
			}
		})
	}
}

// TestAuditLast: last=N answers the newest N entries, oldest first as
// every answer lists them, so that a long log need not be paged with
// after to see what happened recently; it takes the other filters, and
// with limit, or out of range, it is refused.
func TestAuditLast(t *testing.T) {
	h := newHarness(t)
	for i := range 5 {
		h.submit(jobSpec(fmt.Sprintf("j%d", i), 1, ""))
	}
	var all []api.AuditEntry
	if code := h.do("GET", "/api/v1/audit", nil, &all); code != 200 || len(all) < 5 {
		t.Fatalf("audit: %d, %d entries", code, len(all))
	}
	seqs := func(es []api.AuditEntry) []int64 {
		var out []int64
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	n := len(all)
	cases := []struct {
		name, query string
		status      int
		want        []int64
	}{
		{"newest two", "last=2", 200, seqs(all[n-2:])},
		{"more than there are", "last=10000", 200, seqs(all)},
		{"after", fmt.Sprintf("last=10&after=%d", all[n-3].Seq), 200, seqs(all[n-2:])},
		{"an actor's", "last=1&actor=user:root", 200, seqs(all[n-1:])},
		{"with limit", "last=2&limit=2", 400, nil},
		{"zero", "last=0", 400, nil},
		{"too many", "last=10001", 400, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.status != 200 {
				code, body, _ := h.raw("GET", "/api/v1/audit?"+tc.query, "")
				if code != tc.status || !strings.Contains(body, `"field":"last"`) {
					t.Fatalf("GET /audit?%s = %d %s, want %d naming last", tc.query, code, body, tc.status)
				}
				return
			}
			var got []api.AuditEntry
			if code := h.do("GET", "/api/v1/audit?"+tc.query, nil, &got); code != 200 {
				t.Fatalf("GET /audit?%s = %d", tc.query, code)
			}
			if g := seqs(got); !slices.Equal(g, tc.want) {
				t.Fatalf("GET /audit?%s = %v, want %v", tc.query, g, tc.want)
			}
		})
	}
}

// TestAuditLeavesOutRegisterAgain: after a master restart every agent's
// first sync is answered 404 "register again"; that is the protocol, not
// a refusal, so the audit log leaves it out, while a sync refused for
// what it sent stays in.
func TestAuditLeavesOutRegisterAgain(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 1)
	h.start() // a restart: n1 must register again
	cases := []struct {
		name    string
		body    api.Sync
		status  int
		audited bool
	}{
		{"first sync after the restart", api.Sync{}, http.StatusNotFound, false},
		{"a sync with a negative wait", api.Sync{WaitS: -1}, http.StatusBadRequest, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before []api.AuditEntry
			h.do("GET", "/api/v1/audit", nil, &before)
			if code := h.do("POST", "/api/v1/agents/n1/sync", tc.body, nil); code != tc.status {
				t.Fatalf("sync = %d, want %d", code, tc.status)
			}
			var after []api.AuditEntry
			h.do("GET", "/api/v1/audit", nil, &after)
			var syncs []api.AuditEntry
			for _, e := range after[len(before):] {
				if e.Action == "POST /api/v1/agents/n1/sync" {
					syncs = append(syncs, e)
				}
			}
			if got := len(syncs) == 1 && syncs[0].Status == tc.status; got != tc.audited || len(syncs) > 1 {
				t.Fatalf("audit entries for the sync = %+v, want audited %v", syncs, tc.audited)
			}
		})
	}
}

// TestAuditWindow: since and until keep the entries written in
// [since, until), read as /history's times (RFC 3339 or a duration ago);
// a bad time or an empty window is refused naming the parameter.
func TestAuditWindow(t *testing.T) {
	h := newHarness(t)
	h.submit(jobSpec("old", 1, ""))
	h.clock.Advance(2 * time.Hour)
	mid := h.clock.Now()
	h.submit(jobSpec("new", 1, ""))
	var all []api.AuditEntry
	if code := h.do("GET", "/api/v1/audit", nil, &all); code != 200 || len(all) < 2 {
		t.Fatalf("audit: %d, %d entries", code, len(all))
	}
	var before, after []int64
	for _, e := range all {
		if e.At.Before(mid) {
			before = append(before, e.Seq)
		} else {
			after = append(after, e.Seq)
		}
	}
	cases := []struct {
		name, query string
		status      int
		want        []int64
	}{
		{"since a duration ago", "since=1h", 200, after},
		{"until a time", "until=" + mid.UTC().Format(time.RFC3339), 200, before},
		{"since before until", "since=3h&until=1h", 200, before},
		{"a bad time", "since=yesterday", 400, nil},
		{"an empty window", "since=1h&until=2h", 400, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.status != 200 {
				code, body, _ := h.raw("GET", "/api/v1/audit?"+tc.query, "")
				if code != tc.status || !strings.Contains(body, `"field":"since"`) {
					t.Fatalf("GET /audit?%s = %d %s, want %d naming since", tc.query, code, body, tc.status)
				}
				return
			}
			var got []api.AuditEntry
			if code := h.do("GET", "/api/v1/audit?"+tc.query, nil, &got); code != 200 {
				t.Fatalf("GET /audit?%s = %d", tc.query, code)
			}
			var seqs []int64
			for _, e := range got {
				seqs = append(seqs, e.Seq)
			}
			if len(tc.want) == 0 || !slices.Equal(seqs, tc.want) {
				t.Fatalf("GET /audit?%s = %v, want %v", tc.query, seqs, tc.want)
			}
		})
	}
}
