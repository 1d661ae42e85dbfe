package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCLIConventions runs the built binary against `allot dev` as a user
// would: a second allot dev on the same data directory refuses at once
// naming the first, exit codes tell usage errors (2) from failures (1),
// an unknown filter value is an error that lists the valid ones, and the
// version is reported by the CLI, /healthz, every response's header and
// each agent's registration.
func TestCLIConventions(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "dev-data")
	c := startDev(t, data)

	t.Run("data directory in use", func(t *testing.T) {
		r := c.cli("dev", "--listen", "127.0.0.1:0", "--data", data)
		want := "the data directory is in use by process " + strconv.Itoa(c.master.pid())
		if r.code != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Errorf("second allot dev: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, %q", r.code, r.stdout, r.stderr, want)
		}
		if strings.Contains(r.stderr, "--work-dir") {
			t.Errorf("second allot dev suggests a flag it does not have: %s", r.stderr)
		}
	})

	version := strings.TrimSpace(strings.TrimPrefix(c.cliOK("--version"), "allot "))
	if version == "" {
		t.Fatal("allot --version printed no version")
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{"unknown pool", []string{"jobs", "--pool", "nosuch"}, 1, `pool "nosuch": no such pool (pools: default, batch, shared)`, ""},
		{"unknown project", []string{"jobs", "--project", "nosuch"}, 1, `no such project (projects: default, vision, nlp)`, ""},
		{"unknown node", []string{"jobs", "--node", "nosuch"}, 1, `no such node (nodes: dev-1, dev-2, dev-3)`, ""},
		{"unknown user", []string{"jobs", "--user", "nosuch"}, 1, `user "nosuch": no such user (users: admin)`, ""},
		{"known node", []string{"jobs", "--node", "dev-1"}, 0, "", "POS"},
		{"unknown flag", []string{"jobs", "--bogus"}, 2, "unknown flag: --bogus", ""},
		{"unknown command", []string{"nosuch"}, 2, `unknown command "nosuch"`, ""},
		{"bad argument", []string{"job", "show", "abc"}, 2, "job ID: expected a positive integer", ""},
		{"missing job", []string{"job", "show", "999"}, 1, "404", ""},
		{"agent versions", []string{"nodes", "-o", "wide"}, 0, "", version},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.cli(tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("allot %s: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					strings.Join(tt.args, " "), r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}

	t.Run("healthz and header", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", c.url+"/healthz", nil)
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var h struct{ Status, Version string }
		if err := json.Unmarshal(body, &h); err != nil || h.Status != "ok" || h.Version != version {
			t.Errorf("/healthz as JSON: %s (%v), want status ok, version %s", body, err, version)
		}
		if got := resp.Header.Get("X-Allot-Version"); got != version {
			t.Errorf("X-Allot-Version = %q, want %q", got, version)
		}
	})
}
