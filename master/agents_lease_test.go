package master

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestRestartedMasterSaysTheLease: a restarted master answers the sync
// of an agent that has not registered with it yet 404, saying how much
// longer it waits for the registration before it loses the node (one
// agent timeout from its start): the agent's fence counts that as
// contact. Once it has lost the node it says nothing, as its attempts may
// run elsewhere; nor to a registered node's sync, which is answered.
func TestRestartedMasterSaysTheLease(t *testing.T) {
	withFile, _ := withConfigFile(t, "agent_timeout: 40s\n")
	h := newHarness(t, withFile)
	a := h.agent("n1", 2)
	h.agent("n2", 2)
	h.sync(a)
	h.clock.Advance(30 * time.Second)
	h.start() // a restart: every node gets one agent timeout from now
	h.clock.Advance(15 * time.Second)
	if code, lease := h.syncLease("n1"); code != http.StatusNotFound || lease != "25000" {
		t.Fatalf("sync of a node not registered since the restart: %d, lease %q; want 404, lease 25000 (ms)", code, lease)
	}
	a.Master = h.srv.URL
	if _, err := a.Rejoin(h.ctx); err != nil {
		t.Fatal(err)
	}
	if code, lease := h.syncLease("n1"); code != http.StatusOK || lease != "" {
		t.Fatalf("sync of a registered node: %d, lease %q; want 200 and no lease", code, lease)
	}
	h.clock.Advance(30 * time.Second)
	h.m.Tick(h.ctx) // n2 is lost: 45 s since the restart
	if n := h.node("n2"); n.State != "lost" {
		t.Fatalf("n2 is %s, want lost", n.State)
	}
	if code, lease := h.syncLease("n2"); code != http.StatusNotFound || lease != "" {
		t.Fatalf("sync of a lost node: %d, lease %q; want 404 and no lease", code, lease)
	}
}

// syncLease sends an empty sync of node name's agent and returns the
// status and what the reply says of the node's lease
// (api.NodeLeaseHeader).
func (h *harness) syncLease(name string) (int, string) {
	h.t.Helper()
	path := "/api/v1/agents/" + name + "/sync"
	body, err := json.Marshal(api.Sync{})
	if err != nil {
		h.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, h.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.tokenFor(path, nil))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(api.NodeLeaseHeader)
}
