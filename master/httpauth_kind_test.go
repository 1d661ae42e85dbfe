package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestAgentCredentialOnTheAPI: a node's credential or a join token sent
// to the user's API is refused as the agent's credential it is, not as
// an "invalid API token", and the refusal says what the API takes; on
// the agents' protocol a dead node credential names its node (trial r
// R13). A user's token keeps "invalid API token".
func TestAgentCredentialOnTheAPI(t *testing.T) {
	h := newHarness(t)
	h.as("ann")
	cases := []struct {
		name    string
		kind    store.CredentialKind
		subject string
		revoked time.Duration // 0: live
		path    string
		code    int
		want    []string
		not     string
	}{
		{"a live node credential", store.CredNode, "n3", 0, "/api/v1/jobs", 403,
			[]string{"this is node n3's agent credential (allot_n_...), for the agents' protocol only, not a user's API token: send a user's API token (allot login"},
			"invalid API token"},
		{"a revoked node credential", store.CredNode, "n3", -time.Minute, "/api/v1/jobs", 401,
			[]string{"invalid node credential: this is node n3's agent credential", "was revoked at", "send a user's API token (allot login"},
			"invalid API token"},
		{"a revoked node credential on the agents' protocol", store.CredNode, "n3", -time.Minute, "/api/v1/agents/n3/sync", 401,
			[]string{"invalid node credential of node n3: the token (id", "was revoked at", "the agent needs its node credential"},
			"invalid API token"},
		{"a live join token", store.CredJoin, "root", 0, "/api/v1/whoami", 403,
			[]string{"this is a join token (allot_j_...), for registering agents only, not a user's API token: send a user's API token"}, "invalid API token"},
		{"a revoked join token", store.CredJoin, "root", -time.Minute, "/api/v1/whoami", 401,
			[]string{"invalid join token: this is a join token", "was revoked at", "allot login"}, "invalid API token"},
		{"a revoked user token", store.CredUser, "ann", -time.Minute, "/api/v1/whoami", 401,
			[]string{"invalid API token: the token (id", "was revoked at"}, "agent"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			secret := "agent-cred-" + string(rune('a'+i))
			deadCredential(t, h, c.kind, c.subject, secret, 0, c.revoked)
			var e api.Error
			code := h.doAs(secret, "GET", c.path, nil, &e)
			if code != c.code {
				t.Fatalf("GET %s: %d %q, want %d", c.path, code, e.Error, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(e.Error, w) {
					t.Errorf("refusal %q: want it to say %q", e.Error, w)
				}
			}
			if strings.Contains(e.Error, c.not) {
				t.Errorf("refusal %q: want no %q", e.Error, c.not)
			}
		})
	}
}
