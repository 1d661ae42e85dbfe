package master

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestSyncHeartbeats: a held sync that asks for heartbeats
// (api.SyncHeartbeatHeader) gets its headers when the hold begins, then
// whitespace while it is held, then the reply, so that the agent hears
// the master all through the hold; an agent that does not ask (older
// than the header) gets the reply as before, at the hold's end. A node
// deleted during the hold cannot turn the 200 already sent into a 404:
// the body says it (SyncReply.Status), and nothing else.
func TestSyncHeartbeats(t *testing.T) {
	maxSyncHeartbeat = 50 * time.Millisecond
	t.Cleanup(func() { maxSyncHeartbeat = time.Second })
	const hold = 2 * time.Second
	h := newHarness(t, func(o *Options) { o.SyncWait = hold })
	h.agent("n1", 1)
	h.agent("n2", 1)
	tests := []struct {
		name     string
		node     string
		ask      bool
		del      bool // delete the node during the hold
		beats    bool // headers at once, then whitespace
		status   int  // SyncReply.Status
		fullHold bool // the reply comes at the hold's end
	}{
		{"asked: heartbeats through the hold", "n1", true, false, true, 0, true},
		{"not asked (an older agent): the reply at the end", "n1", false, false, false, 0, true},
		{"node deleted during the hold: 404 in the body", "n2", true, true, true, http.StatusNotFound, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.heldSync(tt.node, int(hold/time.Second), tt.ask, func() {
				if tt.del {
					if code := h.do("DELETE", "/api/v1/nodes/"+tt.node, nil, nil); code != http.StatusOK {
						t.Errorf("delete %s: %d", tt.node, code)
					}
				}
			})
			if r.code != http.StatusOK {
				t.Fatalf("status %d, want 200", r.code)
			}
			early := r.headers < hold/2
			if early != tt.beats || (r.heartbeat != "") != tt.beats {
				t.Errorf("headers after %s with %s %q; want them at once with the header: %v",
					r.headers, api.SyncHeartbeatHeader, r.heartbeat, tt.beats)
			}
			if spaces := len(r.body) - len(bytes.TrimLeft(r.body, " ")); tt.beats && tt.fullHold && spaces < 5 || !tt.beats && spaces > 0 {
				t.Errorf("%d heartbeats before the reply %q over a %s hold", spaces, r.body, hold)
			}
			if (r.done >= hold*9/10) != tt.fullHold {
				t.Errorf("reply done after %s; want the full hold of %s: %v", r.done, hold, tt.fullHold)
			}
			var reply api.SyncReply
			if err := json.Unmarshal(r.body, &reply); err != nil {
				t.Fatalf("reply %q: %v", r.body, err)
			}
			if reply.Status != tt.status || (tt.status != 0) != (reply.Error != "") || (tt.status == 0) != (reply.Fence != nil) {
				t.Errorf("reply %+v; want status %d, an error only with it, and a fence only without", reply, tt.status)
			}
		})
	}
}

// heldRaw is what heldSync saw of a sync's answer.
type heldRaw struct {
	code      int
	proto     int           // HTTP's major version: 2 over HTTPS
	heartbeat string        // the reply's api.SyncHeartbeatHeader
	headers   time.Duration // after the request, when the headers came
	done      time.Duration // and when the body was read
	body      []byte
}

// heldSync sends an empty sync of node name's agent asking the master to
// hold it waitS, with or without asking for heartbeats, and runs during
// once the headers came or the hold is half over, whichever is first.
func (h *harness) heldSync(name string, waitS int, ask bool, during func()) heldRaw {
	h.t.Helper()
	r, err := h.heldSyncOn(h.srv.URL, http.DefaultClient, name, waitS, ask, during)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// heldSyncOn is heldSync sent to the master at base with hc; it returns
// the error of sending the sync or of reading its reply.
func (h *harness) heldSyncOn(base string, hc *http.Client, name string, waitS int, ask bool, during func()) (heldRaw, error) {
	h.t.Helper()
	path := "/api/v1/agents/" + name + "/sync"
	body, err := json.Marshal(api.Sync{WaitS: waitS})
	if err != nil {
		h.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.tokenFor(path, nil))
	req.Header.Set("Content-Type", "application/json")
	if ask {
		req.Header.Set(api.SyncHeartbeatHeader, "1")
	}
	start := time.Now()
	half := time.AfterFunc(time.Duration(waitS)*time.Second/2, during)
	resp, err := hc.Do(req)
	if err != nil {
		half.Stop()
		return heldRaw{}, err
	}
	defer resp.Body.Close()
	r := heldRaw{code: resp.StatusCode, proto: resp.ProtoMajor, heartbeat: resp.Header.Get(api.SyncHeartbeatHeader), headers: time.Since(start)}
	if half.Stop() {
		during()
	}
	if r.body, err = io.ReadAll(resp.Body); err != nil {
		return r, fmt.Errorf("reading the reply of a sync held %ds (HTTP/%d): %w", waitS, r.proto, err)
	}
	r.done = time.Since(start)
	return r, nil
}
