package master

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/version"
)

// TestVersionReported: every answer carries X-Allot-Version, /healthz
// stays "ok" for plain clients and names the version for JSON ones, and
// the nodes list shows each agent's version from its registration.
func TestVersionReported(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 2)
	want := version.String()
	tests := []struct {
		name, path, accept string
		status             int
		body               string // exact body; "" to skip
		contentType        string
	}{
		{"healthz plain", "/healthz", "", 200, "ok\n", "text/plain; charset=utf-8"},
		{"healthz text accept", "/healthz", "text/plain", 200, "ok\n", "text/plain; charset=utf-8"},
		{"healthz json", "/healthz", "application/json", 200, `{"status":"ok","version":"` + want + `","ready":true,"store":{"up":true}}` + "\n", "application/json"},
		{"healthz json among others", "/healthz", "text/html, application/json;q=0.9", 200, "", "application/json"},
		{"api answer", "/api/v1/pools", "", 200, "", "application/json"},
		{"unknown endpoint", "/api/v1/nosuch", "", 404, "", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", h.srv.URL+tt.path, nil)
			req.Header.Set("Authorization", "Bearer "+h.admin)
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if got := resp.Header.Get(VersionHeader); got != want {
				t.Errorf("%s = %q, want %q", VersionHeader, got, want)
			}
			if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, tt.contentType) {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			if tt.body != "" && string(body) != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
		})
	}
	t.Run("node version", func(t *testing.T) {
		var nodes []api.Node
		if code := h.do("GET", "/api/v1/nodes", nil, &nodes); code != 200 || len(nodes) != 1 {
			t.Fatalf("nodes: %d %v", code, nodes)
		}
		if nodes[0].Version != "mastertest" {
			b, _ := json.Marshal(nodes[0])
			t.Errorf("node version %q, want the registration's \"mastertest\": %s", nodes[0].Version, b)
		}
	})
}
