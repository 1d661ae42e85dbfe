package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestAuditOfRefusedCredentials: a request refused for a credential the
// master knows (its user disabled, revoked, a node's revoked credential)
// is audited as whose it is, with the refusal as its detail, not as
// anonymous, which stays for unknown tokens; a dead credential's flood of
// refusals is written once a minute, the next entry counting those left
// out.
func TestAuditOfRefusedCredentials(t *testing.T) {
	h := newHarness(t)
	ana := h.as("ana", "lab=member")
	bo := h.as("bo", "lab=member")
	n1 := h.agent("n1", 1)
	nodeCred := n1.Credential()
	var ts []api.Token
	if code := h.do("GET", "/api/v1/tokens", nil, &ts); code != 200 {
		t.Fatalf("tokens: %d", code)
	}
	for _, tk := range ts {
		if (tk.Kind == api.TokenUser && tk.Subject == "bo") || (tk.Kind == api.TokenNode && tk.Subject == "n1") {
			if code := h.do("POST", fmt.Sprintf("/api/v1/tokens/%d/revoke", tk.ID), nil, nil); code != 200 {
				t.Fatalf("revoke %d: %d", tk.ID, code)
			}
		}
	}
	if code := h.do("PATCH", "/api/v1/users/ana", `{"disabled": true}`, nil); code != 200 {
		t.Fatalf("disable ana: %d", code)
	}
	sync := "/api/v1/agents/n1/sync"
	cases := []struct {
		name, token, method, path string
		actor, detail             string
	}{
		{"a disabled user's token", ana, "POST", "/api/v1/jobs/1/kill", "user:ana", `user "ana" is disabled`},
		{"a revoked user token", bo, "POST", "/api/v1/jobs/2/kill", "user:bo", "was revoked at"},
		{"a node's revoked credential", nodeCred, "POST", sync, "node:n1", "was revoked at"},
		{"an unknown token", "allot_u_nosuchtoken", "POST", "/api/v1/jobs/3/kill", "anonymous", "the token is not known"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code := h.doAs(tc.token, tc.method, tc.path, api.Sync{}, nil); code != http.StatusUnauthorized {
				t.Fatalf("%s %s: %d, want 401", tc.method, tc.path, code)
			}
			e := h.newestAudit(tc.method + " " + tc.path)
			if e.Actor != tc.actor || !strings.Contains(e.Detail, tc.detail) {
				t.Fatalf("audit entry %s %q, want %s with %q", e.Actor, e.Detail, tc.actor, tc.detail)
			}
		})
	}
	t.Run("a flood of one dead credential", func(t *testing.T) {
		count := func() int {
			var es []api.AuditEntry
			if code := h.do("GET", "/api/v1/audit?actor=node:n1", nil, &es); code != 200 {
				t.Fatalf("audit: %d", code)
			}
			n := 0
			for _, e := range es {
				if e.Action == "POST "+sync {
					n++
				}
			}
			return n
		}
		before := count()
		for range 5 {
			h.doAs(nodeCred, "POST", sync, api.Sync{}, nil)
		}
		if n := count(); n != before {
			t.Fatalf("5 refusals within the minute wrote %d entries, want none", n-before)
		}
		h.clock.Advance(deadCredWindow + time.Second)
		h.doAs(nodeCred, "POST", sync, api.Sync{}, nil)
		if n := count(); n != before+1 {
			t.Fatalf("a refusal after the minute wrote %d entries, want 1", n-before)
		}
		if e := h.newestAudit("POST " + sync); !strings.Contains(e.Detail, "(and 5 more refused requests with this credential since") {
			t.Fatalf("detail %q does not count the 5 left out", e.Detail)
		}
	})
}
