package master

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// Go's HTTP/2 server resets a stream whose write deadline passes, even
// with no write under way and whatever deadline is set after (a timer per
// stream), where HTTP/1 only fails a later write. A sync hold that set
// its writes' deadline at its very end therefore lost the reply of most
// full holds over HTTPS with RST_STREAM INTERNAL_ERROR (trial 29c C8),
// which the plain-HTTP tests could not see.

// TestSyncHoldDeadlineOutlivesHold: no write deadline that the hold sets
// passes before the hold has moved it on, the rule that HTTP/2 needs.
// The writer does what Go's HTTP/2 server does, deterministically: a
// deadline that has passed when the next one is set or written under
// counts as a reset stream.
func TestSyncHoldDeadlineOutlivesHold(t *testing.T) {
	const wait = 300 * time.Millisecond
	tests := []struct {
		name string
		wake time.Duration // close wake after this; 0: never (the full hold)
	}{
		{"the full hold", 0},
		{"woken early by a command", wait / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &deadlineWriter{ResponseRecorder: httptest.NewRecorder()}
			st := &syncStream{w: w, asked: true, every: 20 * time.Millisecond}
			wake := make(chan struct{})
			if tt.wake > 0 {
				time.AfterFunc(tt.wake, func() { close(wake) })
			}
			st.hold(context.Background(), wait, wake)
			if w.reset != "" {
				t.Fatalf("the stream would be reset: %s", w.reset)
			}
			if w.sets < 3 || w.deadline.Before(time.Now().Add(writeTimeout/2)) {
				t.Errorf("%d deadlines set, the last %s; want heartbeats and then the reply's write timeout",
					w.sets, time.Until(w.deadline).Round(time.Millisecond))
			}
		})
	}
}

// deadlineWriter is a response writer that takes write deadlines and
// says, in reset, when one passed before it was replaced or written under.
type deadlineWriter struct {
	*httptest.ResponseRecorder
	deadline time.Time
	sets     int
	reset    string
}

func (w *deadlineWriter) SetWriteDeadline(d time.Time) error {
	w.check("set another")
	w.deadline = d
	w.sets++
	return nil
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.check("write")
	return w.ResponseRecorder.Write(p)
}

func (w *deadlineWriter) check(what string) {
	if late := time.Since(w.deadline); !w.deadline.IsZero() && late > 0 && w.reset == "" {
		w.reset = "deadline passed " + late.String() + " before the hold went on to " + what
	}
}

// TestSyncHoldOverHTTP2: over HTTPS, where the agent's client
// (client.HTTPClient) and the master's server speak HTTP/2, a sync held
// for its full wait gets its reply, hold after hold.
func TestSyncHoldOverHTTP2(t *testing.T) {
	maxSyncHeartbeat = 50 * time.Millisecond
	t.Cleanup(func() { maxSyncHeartbeat = time.Second })
	const hold = time.Second
	h := newHarness(t, func(o *Options) { o.SyncWait = hold })
	h.agent("n1", 1)
	base, hc := serveHTTPS(t, h)
	tests := []struct {
		name string
		ask  bool
	}{
		{"heartbeats asked, as agents do", true},
		{"no heartbeats (an older agent)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 3 {
				r, err := h.heldSyncOn(base, hc, "n1", int(hold/time.Second), tt.ask, func() {})
				if err != nil {
					t.Fatalf("hold %d: %v", i, err)
				}
				if r.proto != 2 || r.code != http.StatusOK {
					t.Fatalf("hold %d: HTTP/%d status %d; want HTTP/2 200", i, r.proto, r.code)
				}
				if r.done < hold*9/10 {
					t.Errorf("hold %d: reply after %s; want the full hold of %s", i, r.done, hold)
				}
				var reply api.SyncReply
				if err := json.Unmarshal(r.body, &reply); err != nil || reply.Status != 0 || reply.Fence == nil {
					t.Errorf("hold %d: reply %q (%+v, %v); want a fence and no error", i, r.body, reply, err)
				}
			}
		})
	}
}

// serveHTTPS serves h's master over HTTPS as `allot master --tls-cert`
// does (NewServer, Serve) and returns its URL and the agent's client for
// it, which trusts its self-signed certificate as with `--ca`.
func serveHTTPS(t *testing.T, h *harness) (string, *http.Client) {
	t.Helper()
	cert, key := selfSigned(t)
	opt := ServerOptions{TLSCert: cert, TLSKey: key}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h.m.Handler(), opt, nil)
	go Serve(srv, ln, opt)
	t.Cleanup(func() { srv.Close() })
	hc, err := client.HTTPClient(cert)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hc.CloseIdleConnections)
	return "https://" + ln.Addr().String(), hc
}
