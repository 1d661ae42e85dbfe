package master

import (
	"net/http"
	"strings"
	"testing"
)

// TestAuditActorFilter: an actor filter no entry could match, such as a
// bare user name, is refused (400, naming the forms), rather than
// answered with an empty log that reads as "nobody did anything".
func TestAuditActorFilter(t *testing.T) {
	h := newHarness(t)
	h.submit(jobSpec("a", 1, ""))
	cases := []struct {
		name, actor string
		status      int
		want        string
	}{
		{"a user", "user:root", 200, `"actor":"user:root"`},
		{"a node", "node:n1", 200, "[]"},
		{"a join token", "join-token:2", 200, "[]"},
		{"anonymous", "anonymous", 200, "[]"},
		{"a bare name", "root", 400, `actor \"root\": expected user:NAME, node:NAME, join-token:ID or anonymous (did you mean user:root?)`},
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
