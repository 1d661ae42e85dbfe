package client

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestRetriesStoreOutage: a 503 with Retry-After (the master's store
// refused the request and nothing changed) is sent again, with the same
// body; a 503 without it, or any other error, is not.
func TestRetriesStoreOutage(t *testing.T) {
	tests := []struct {
		name       string
		failures   int
		retryAfter string
		wantCalls  int
		wantErr    bool
	}{
		{"two refusals then created", 2, "1", 3, false},
		{"refused every time", 10, "1", 1 + maxUnavailableRetries, true},
		{"no Retry-After", 1, "", 1, true},
		{"garbage Retry-After", 1, "soon", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				data, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, string(data))
				n := len(bodies)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				if n <= tt.failures {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.WriteHeader(http.StatusServiceUnavailable)
					io.WriteString(w, `{"error": "the master's store is unavailable"}`)
					return
				}
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, `{"id": 7, "tasks": 1}`)
			}))
			t.Cleanup(srv.Close)
			c, err := New(srv.URL, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Submit(ctx(t), []byte(`{"name": "x"}`))
			if (err != nil) != tt.wantErr || (!tt.wantErr && r.ID != 7) {
				t.Fatalf("Submit = %+v, %v; want error %v", r, err, tt.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) != tt.wantCalls {
				t.Fatalf("%d requests, want %d", len(bodies), tt.wantCalls)
			}
			for _, b := range bodies {
				if b != `{"name":"x"}` {
					t.Fatalf("a retry sent %q, want the same body", b)
				}
			}
		})
	}
}

// TestRetryNotesAndReadWording: each retry of a 503 is announced on the
// notes writer, and a read that is still refused ends with an error that
// does not say "nothing was changed", which only a change can mean; a
// change still refused says it was retried, not to retry in a few seconds.
func TestRetryNotesAndReadWording(t *testing.T) {
	const refusal = `{"error": "the master's store is unavailable (since 2026-05-01T12:00:00Z): nothing was changed; retry in a few seconds"}`
	tests := []struct {
		name     string
		call     func(c *Client) error
		want     []string // in the error
		wantNot  string
		wantNote string
	}{
		{"read", func(c *Client) error { _, err := c.Identity().Whoami(ctx(t)); return err },
			[]string{"store is unavailable (since 2026-05-01T12:00:00Z)", "still so after 3 retries"}, "nothing was changed",
			"master: store unavailable, retrying in 1s (1/3)..."},
		{"write", func(c *Client) error { _, err := c.Submit(ctx(t), []byte(`{"name": "x"}`)); return err },
			[]string{"nothing was changed", "still so after 3 retries: try again later"}, "retry in a few seconds", "master: store unavailable, retrying in 1s (1/3)..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, refusal)
			}))
			t.Cleanup(srv.Close)
			c, err := New(srv.URL, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			var notes strings.Builder
			err = tt.call(c.WithNotes(&notes))
			if err == nil {
				t.Fatal("no error, want the refusal")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tt.wantNot != "" && strings.Contains(err.Error(), tt.wantNot) {
				t.Errorf("error %q says %q", err, tt.wantNot)
			}
			lines := strings.Split(strings.TrimSpace(notes.String()), "\n")
			if len(lines) != maxUnavailableRetries || lines[0] != tt.wantNote {
				t.Errorf("notes %q, want %d lines, the first %q", notes.String(), maxUnavailableRetries, tt.wantNote)
			}
		})
	}
}

// TestPartialAnswerNoted: a 200 the master answered from its memory
// during a store outage (api.PartialHeader) is decoded as usual and its
// note reaches the notes writer, so that a list lacking the ended jobs
// is not taken for the whole; an answer without the header notes nothing.
func TestPartialAnswerNoted(t *testing.T) {
	const note = "the master's store is unavailable: ended jobs that left the master's memory are not listed until it is back"
	tests := []struct {
		name     string
		header   string
		wantNote string
	}{
		{"partial", note, "note: " + note + "\n"},
		{"whole", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tt.header != "" {
					w.Header().Set(api.PartialHeader, tt.header)
				}
				io.WriteString(w, `{"user": "alice"}`)
			}))
			t.Cleanup(srv.Close)
			c, err := New(srv.URL, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			var notes strings.Builder
			who, err := c.WithNotes(&notes).Identity().Whoami(ctx(t))
			if err != nil || who.User != "alice" {
				t.Fatalf("Whoami = %+v, %v; want alice", who, err)
			}
			if notes.String() != tt.wantNote {
				t.Errorf("notes %q, want %q", notes.String(), tt.wantNote)
			}
		})
	}
}
