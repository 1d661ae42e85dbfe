package master

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestRevokedNodeCredentialMarked: the 401 refusing a revoked node
// credential carries api.CredentialHeader, so that its agent knows it no
// longer holds the node; an expired or unknown one, a revoked join token
// and a revoked user token do not.
func TestRevokedNodeCredentialMarked(t *testing.T) {
	h := newHarness(t)
	h.as("ann")
	for i, c := range []struct {
		name             string
		kind             store.CredentialKind
		expires, revoked time.Duration // from now; 0: never
		path             string
		want             string
	}{
		{"revoked node credential, sync", store.CredNode, 0, -time.Minute, "/api/v1/agents/gone/sync", api.CredentialRevoked},
		{"revoked node credential, register", store.CredNode, 0, -time.Minute, "/api/v1/agents/register", api.CredentialRevoked},
		{"revoked node credential, logs", store.CredNode, 0, -time.Minute, "/api/v1/agents/gone/logs", api.CredentialRevoked},
		{"expired node credential", store.CredNode, -time.Hour, 0, "/api/v1/agents/gone/sync", ""},
		{"expired before it was revoked", store.CredNode, -time.Hour, -time.Minute, "/api/v1/agents/gone/sync", ""},
		{"revoked join token", store.CredJoin, 0, -time.Minute, "/api/v1/agents/register", ""},
		{"revoked user token", store.CredUser, 0, -time.Minute, "/api/v1/whoami", ""},
		{"unknown token", "", 0, 0, "/api/v1/agents/gone/sync", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			secret := "refused-" + string(rune('a'+i))
			if c.kind != "" {
				subject := "gone"
				if c.kind == store.CredUser {
					subject = "ann"
				}
				deadCredential(t, h, c.kind, subject, secret, c.expires, c.revoked)
			}
			method, body := http.MethodPost, `{"name": "gone"}`
			if c.path == "/api/v1/whoami" {
				method, body = http.MethodGet, ""
			}
			req, err := http.NewRequestWithContext(h.ctx, method, h.srv.URL+c.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+secret)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			if got := resp.Header.Get(api.CredentialHeader); got != c.want {
				t.Errorf("%s = %q, want %q", api.CredentialHeader, got, c.want)
			}
		})
	}
}
