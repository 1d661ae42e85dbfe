package cli

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
)

// realMaster starts a real master of configuration cfgYAML (its API
// handler over httptest), with no node, and returns its address and the
// admin's token.
func realMaster(t *testing.T, cfgYAML string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	cfg, err := config.Parse("allot.yaml", []byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	token, err := master.BootstrapAdmin(ctx, st, "root", "test", false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	m, err := master.New(ctx, master.Options{Store: st, Config: cfg, DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, token
}

// TestSubmitPriorityCapRealMaster (trial 2026-11-29c C1): a member's job
// file of priority_class HIGH, in a project capped at NORMAL, is refused
// by the real master at the file's priority_class line, as written, by
// allot submit and its --dry-run; one of priority 10 at its priority
// line. The CLI sends the parsed job, priority and priority_class both,
// which the earlier fix, tested against the fake master only, missed.
func TestSubmitPriorityCapRealMaster(t *testing.T) {
	addr, admin := realMaster(t, "default_project: vision\nprojects:\n  - {name: vision, max_priority_class: NORMAL}\n")
	t.Setenv(TokenEnv, admin)
	if _, _, err := run(t, "--master", addr, "user", "create", "alice", "--role", "vision=member"); err != nil {
		t.Fatal(err)
	}
	tok, _, err := run(t, "--master", addr, "token", "create", "--user", "alice")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(TokenEnv, strings.TrimSpace(tok))
	const why = "project vision caps its members' jobs at priority class NORMAL (max_priority_class), so HIGH work needs its lead or an admin (master: 403 Forbidden)"
	dir := t.TempDir()
	for _, tt := range []struct{ name, resources, want string }{
		{"priority_class", "  slots: 4\n  priority_class: HIGH\n", "hi.yaml:6: resources.priority_class: HIGH: " + why},
		{"priority", "  priority: 10\n  slots: 4\n", "hi.yaml:5: resources.priority: 10: " + why},
		{"flow style", "  {slots: 4, priority_class: HIGH}\n", "hi.yaml:4: resources.priority_class: HIGH: " + why},
	} {
		path := filepath.Join(dir, "hi.yaml")
		file := "name: hi\nentrypoint: sleep 600\nproject: vision\nresources:\n" + tt.resources
		if tt.name == "flow style" {
			file = "name: hi\nentrypoint: sleep 600\nproject: vision\nresources: " + strings.TrimSpace(tt.resources) + "\n"
		}
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"submit", path}, {"submit", "--dry-run", path}} {
			t.Run(tt.name+" "+strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
				_, _, err := run(t, append([]string{"--master", addr}, args...)...)
				want := strings.Replace(tt.want, "hi.yaml", path, 1)
				if err == nil || err.Error() != want {
					t.Errorf("error %v\nwant %s", err, want)
				}
			})
		}
	}
}
