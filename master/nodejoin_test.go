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

// TestJoinTokenTakeoverLease: a join token takes a node's name only once
// the agent timeout has run out on the master's own clock of the node:
// a restarted master gives every node a full agent timeout to come back,
// so its downtime is not the node's silence (trial 2026-11-29a A12: a
// duplicate agent took a healthy node in the first second after a
// restart); the refusal and the audit name the real last contact (A6,
// not the registration), and the attempts of the old host that the new
// one does not run end saying the node was taken over (A7).
func TestJoinTokenTakeoverLease(t *testing.T) {
	withFile, _ := withConfigFile(t, "agent_timeout: 30s\nlost_node_grace: 5m\n")
	h := newHarness(t, withFile)
	old := h.agent("n1", 2)
	held := h.submit(jobSpec("notebook", 1, `, "preemptible": false`))
	h.step()
	h.sync(old, old)
	h.clock.Advance(20 * time.Second)
	h.sync(old) // the last contact, 20 s after the registration
	h.clock.Advance(36 * time.Second)
	h.start() // the master was down 36 s, longer than agent_timeout
	old.Master = h.srv.URL
	fresh := &mastertest.Agent{Master: h.srv.URL, Name: "n1", GPUs: 2, Token: h.join}

	t.Run("refused while the restart's lease runs", func(t *testing.T) {
		h.clock.Advance(time.Second)
		_, err := fresh.Register(h.ctx)
		for _, want := range []string{"409", "last seen 37s ago", "(in 29s: after the master's restart or a store outage"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("takeover 1 s after the restart: %v, want a refusal saying %q", err, want)
			}
		}
	})
	var heldTo time.Time // the end of the held attempt's lost_node_grace
	t.Run("taken once the node is lost", func(t *testing.T) {
		h.clock.Advance(31 * time.Second)
		h.m.Tick(h.ctx)
		heldTo = h.clock.Now().Add(5 * time.Minute)
		if _, err := fresh.Register(h.ctx); err != nil {
			t.Fatal(err)
		}
		if e := h.newestAudit("POST /api/v1/agents/register"); !strings.HasPrefix(e.Detail, "joined as n1 (was lost, last seen 1m8s ago)") {
			t.Fatalf("audit %q, want the last contact 68s before", e.Detail)
		}
	})
	t.Run("the old host's attempt ends as taken over", func(t *testing.T) {
		h.sync(fresh)
		j := h.job(held)
		a := j.TaskList[0].Attempts[0]
		if a.EndState != "lost" || !strings.Contains(a.Reason, "node n1 was taken over at ") ||
			!strings.Contains(a.Reason, "by a new agent with join token ") {
			t.Fatalf("attempt %+v, want it lost, saying the node was taken over", a)
		}
		// What stops the old host's processes, and when (trial 2026-11-29b B13).
		for _, want := range []string{"the new agent stops it at once when on the same host",
			"its task shim's fence stops it at " + msgTime(heldTo) + " (the end of lost_node_grace"} {
			if !strings.Contains(a.Reason, want) {
				t.Errorf("reason %q, want it to say %q", a.Reason, want)
			}
		}
	})
}
