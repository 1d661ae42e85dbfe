package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
)

// TestFakeMasterErrorsAreReal: for a job that does not exist, or an id
// that is none, the fake master answers what a real master answers, status
// and body, so that the CLI tests check the messages users see.
func TestFakeMasterErrorsAreReal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	token, err := master.BootstrapAdmin(ctx, st, "root", "test", false, now)
	if err != nil {
		t.Fatal(err)
	}
	m, err := master.New(ctx, master.Options{Store: st, DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	real := httptest.NewServer(m.Handler())
	defer real.Close()
	fake := newFakeMaster(t)

	tests := []struct{ name, method, path, body string }{
		{"show", "GET", "/api/v1/jobs/99", ""},
		{"change", "PATCH", "/api/v1/jobs/77", `{"weight": 2}`},
		{"kill", "POST", "/api/v1/jobs/99/kill", ""},
		{"logs", "GET", "/api/v1/jobs/42/logs", ""},
		{"metrics", "GET", "/api/v1/jobs/99/metrics", ""},
		{"not an id", "GET", "/api/v1/jobs/x1", ""},
		{"zero", "GET", "/api/v1/jobs/0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode, want := answer(t, real.URL, token, tt.method, tt.path, tt.body)
			code, got := answer(t, fake.srv.URL, token, tt.method, tt.path, tt.body)
			if code != wantCode || got != want {
				t.Errorf("fake master: %d %s\nreal master: %d %s", code, got, wantCode, want)
			}
		})
	}
}

// answer sends one request and returns its status and body.
func answer(t *testing.T, base, token, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(bytes.TrimSpace(data))
}
