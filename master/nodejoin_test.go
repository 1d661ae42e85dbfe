package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestJoinTokenTakeoverAudited: a join token's registration of a node
// name is audited as the join token's, with what it did: a new node, or a
// takeover of a lost one (its state and last contact, the old credential
// revoked, the new one issued); the node's registration time becomes the
// takeover's; the old host's refusals are its node's (node:NAME).
func TestJoinTokenTakeoverAudited(t *testing.T) {
	withFile, _ := withConfigFile(t, "agent_timeout: 30s\n")
	h := newHarness(t, withFile)
	old := h.agent("n1", 1)
	oldCred := old.Credential()
	register := "POST /api/v1/agents/register"
	var toks []api.Token
	h.do("GET", "/api/v1/tokens?kind=join", nil, &toks)
	if len(toks) != 1 {
		t.Fatalf("join tokens %+v", toks)
	}
	actor := fmt.Sprintf("join-token:%d", toks[0].ID)
	t.Run("a new node", func(t *testing.T) {
		e := h.newestAudit(register)
		if e.Actor != actor || !strings.HasPrefix(e.Detail, "joined as n1 (a new node); issued ") {
			t.Fatalf("audit %s %q, want %s joined as n1 (a new node)", e.Actor, e.Detail, actor)
		}
	})
	h.clock.Advance(40 * time.Second)
	h.m.Tick(h.ctx)
	takenAt := h.clock.Now()
	fresh := &mastertest.Agent{Master: h.srv.URL, Name: "n1", GPUs: 1, Token: h.join}
	if _, err := fresh.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("a takeover", func(t *testing.T) {
		e := h.newestAudit(register)
		if e.Actor != actor || !strings.HasPrefix(e.Detail, "joined as n1 (was lost, last seen 40s ago); revoked node credential ") ||
			!strings.Contains(e.Detail, ", issued ") {
			t.Fatalf("audit %s %q", e.Actor, e.Detail)
		}
	})
	t.Run("REGISTERED is the takeover's", func(t *testing.T) {
		if n := h.node("n1"); !n.RegisteredAt.Equal(takenAt) {
			t.Fatalf("registered_at %s, want %s", n.RegisteredAt, takenAt)
		}
	})
	t.Run("the old host's refusal", func(t *testing.T) {
		if code := h.doAs(oldCred, "POST", "/api/v1/agents/n1/sync", api.Sync{}, nil); code != http.StatusUnauthorized {
			t.Fatalf("old credential: %d, want 401", code)
		}
		if e := h.newestAudit("POST /api/v1/agents/n1/sync"); e.Actor != "node:n1" || !strings.Contains(e.Detail, "was revoked at") {
			t.Fatalf("audit %s %q", e.Actor, e.Detail)
		}
	})
	t.Run("the new host's own re-registration", func(t *testing.T) {
		if _, err := fresh.Rejoin(h.ctx); err != nil {
			t.Fatal(err)
		}
		if e := h.newestAudit(register); e.Actor != "node:n1" || e.Detail != "" {
			t.Fatalf("audit %s %q, want node:n1 with no detail", e.Actor, e.Detail)
		}
	})
}
