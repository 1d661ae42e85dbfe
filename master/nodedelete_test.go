package master

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// tokenIDs returns the IDs of the tokens of a kind (user, join, node),
// and of those the live ones.
func (h *harness) tokenIDs(kind string) (all, live []int64) {
	h.t.Helper()
	var toks []api.Token
	if code := h.do("GET", "/api/v1/tokens?kind="+kind, nil, &toks); code != http.StatusOK {
		h.t.Fatalf("GET /tokens?kind=%s: %d", kind, code)
	}
	for _, tk := range toks {
		all = append(all, tk.ID)
		if tk.RevokedAt == nil {
			live = append(live, tk.ID)
		}
	}
	return all, live
}

// deleteNode deletes node name over the API, with ?revoke=true when
// revoke says so, and returns the answer.
func (h *harness) deleteNode(name string, revoke bool) api.DeletedNode {
	h.t.Helper()
	path := "/api/v1/nodes/" + name
	if revoke {
		path += "?revoke=true"
	}
	var d api.DeletedNode
	if code := h.do("DELETE", path, nil, &d); code != http.StatusOK {
		h.t.Fatalf("DELETE %s: %d", path, code)
	}
	return d
}

// registerAs sends node name's registration with token and returns the
// status and the credential header of the answer.
func (h *harness) registerAs(token, name string) (int, string) {
	h.t.Helper()
	body, _ := json.Marshal(api.Register{Name: name, GPUs: []api.GPU{{Index: 0, UUID: "GPU-" + name, Type: "h100"}}})
	req, err := http.NewRequestWithContext(h.ctx, "POST", h.srv.URL+"/api/v1/agents/register", bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(api.CredentialHeader)
}

// TestDeleteNodeLiveAgent (trial o F19): deleting a node whose agent is
// alive says so, and how to keep it out (its credential's token, and
// the live join token that issued it); the agent comes back as said.
// --revoke revokes the node's credential in the deletion, audited, so
// that the agent is refused as revoked (which makes agentd kill what it
// still runs: agentd/disown.go); a node whose agent was not heard
// recently is told only that its credential is still live.
func TestDeleteNodeLiveAgent(t *testing.T) {
	withFile, _ := withConfigFile(t, "agent_timeout: 30s\n")
	h := newHarness(t, withFile)
	a := h.agent("n1", 1)
	_, joins := h.tokenIDs("join")
	if len(joins) != 1 {
		t.Fatalf("live join tokens %v, want the harness's one", joins)
	}
	join := joins[0]
	credOf := func() int64 {
		_, live := h.tokenIDs("node")
		if len(live) != 1 {
			t.Fatalf("live node credentials %v, want 1", live)
		}
		return live[0]
	}
	cred := credOf()

	t.Run("an alive agent, no revoke", func(t *testing.T) {
		h.clock.Advance(3 * time.Second)
		d := h.deleteNode("n1", false)
		if d.AgentSeenS == nil || *d.AgentSeenS != 3 {
			t.Fatalf("agent_seen_s %v, want 3", d.AgentSeenS)
		}
		if fmt.Sprint(d.Credentials, d.Revoked, d.JoinTokens) != fmt.Sprint([]int64{cred}, []int64(nil), []int64{join}) {
			t.Fatalf("credentials %v revoked %v join tokens %v, want [%d] [] [%d]", d.Credentials, d.Revoked, d.JoinTokens, cred, join)
		}
		for _, want := range []string{
			fmt.Sprintf("Its agent (heard 3s ago) registers again at its next sync, with its credential (token %d), as a new node", cred),
			fmt.Sprintf("allot token revoke %d (allot node delete --revoke does both at once)", cred),
			fmt.Sprintf("Join token %d, which issued the node's credential, is still live", join),
			fmt.Sprintf("revoke it too (allot token revoke %d)", join),
		} {
			if !strings.Contains(d.Note, want) {
				t.Errorf("note %q\nwant it to say %q", d.Note, want)
			}
		}
		if e := h.newestAudit("DELETE /api/v1/nodes/n1"); strings.Contains(e.Detail, "revoked") {
			t.Errorf("audit detail %q: nothing was revoked", e.Detail)
		}
		// As the note says: the agent is back, with the same credential.
		if _, err := a.Rejoin(h.ctx); err != nil {
			t.Fatalf("the agent registering again: %v", err)
		}
		if got := credOf(); got != cred {
			t.Fatalf("credential after the comeback %d, want %d", got, cred)
		}
	})

	t.Run("revoke", func(t *testing.T) {
		d := h.deleteNode("n1", true)
		if fmt.Sprint(d.Credentials, d.Revoked) != fmt.Sprint([]int64(nil), []int64{cred}) {
			t.Fatalf("credentials %v revoked %v, want none live and [%d] revoked", d.Credentials, d.Revoked, cred)
		}
		for _, want := range []string{
			fmt.Sprintf("Revoked its credential (token %d): its agent (heard 0s ago) is refused from its next request on", cred),
			"kills at once, with no checkpoint grace, any task it still runs there",
			fmt.Sprintf("revoke it too (allot token revoke %d)", join),
		} {
			if !strings.Contains(d.Note, want) {
				t.Errorf("note %q\nwant it to say %q", d.Note, want)
			}
		}
		if e := h.newestAudit("DELETE /api/v1/nodes/n1"); !strings.HasSuffix(e.Detail, fmt.Sprintf("; revoked node credential %d", cred)) {
			t.Errorf("audit detail %q, want it to name the revoked credential %d", e.Detail, cred)
		}
		if _, live := h.tokenIDs("node"); len(live) != 0 {
			t.Fatalf("live node credentials after --revoke: %v", live)
		}
		// The agent's comeback is refused as revoked: agentd then stops
		// what it runs and sends nothing more (agentd/disown.go).
		if _, err := a.Rejoin(h.ctx); err == nil {
			t.Fatal("the agent registered again with its revoked credential")
		}
		code, hdr := h.registerAs(a.Credential(), "n1")
		if code != http.StatusUnauthorized || hdr != api.CredentialRevoked {
			t.Fatalf("register with the revoked credential: %d %s=%q, want 401 %s", code, api.CredentialHeader, hdr, api.CredentialRevoked)
		}
		var nodes []api.Node
		if h.do("GET", "/api/v1/nodes", nil, &nodes); len(nodes) != 0 {
			t.Fatalf("nodes after a revoking delete and the agent's try: %+v", nodes)
		}
		// As the note says too: the join token still joins, as a new node.
		fresh := &mastertest.Agent{Master: h.srv.URL, Name: "n1", GPUs: 1, Token: h.join}
		if _, err := fresh.Register(h.ctx); err != nil {
			t.Fatalf("the live join token: %v", err)
		}
	})

	t.Run("an agent not heard recently", func(t *testing.T) {
		cred := credOf()
		h.clock.Advance(time.Hour)
		h.m.Tick(h.ctx)
		d := h.deleteNode("n1", false)
		if d.AgentSeenS != nil {
			t.Fatalf("agent_seen_s %v for an agent silent for an hour", *d.AgentSeenS)
		}
		want := fmt.Sprintf("Its credential (token %d) is still live: should its agent start again, it registers as a new node; "+
			"allot token revoke %d keeps it out.", cred, cred)
		if !strings.HasPrefix(d.Note, want) {
			t.Fatalf("note %q\nwant it to start %q", d.Note, want)
		}
	})

	t.Run("a malformed revoke", func(t *testing.T) {
		h.agent("n2", 1)
		var e api.Error
		if code := h.do("DELETE", "/api/v1/nodes/n2?revoke=yes", nil, &e); code != http.StatusBadRequest || e.Field != "revoke" {
			t.Fatalf("revoke=yes: %d %+v, want 400 on field revoke", code, e)
		}
		if n := h.node("n2"); n.Name != "n2" {
			t.Fatalf("node n2 after a refused delete: %+v", n)
		}
	})
}
