package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
)

// TestMasterAnswersWhileWaitingForTheDatabase: a master started while
// its PostgreSQL is down answers at once while it waits (trial
// 2026-11-29e E7): /livez 200, /readyz and /healthz 503 with the cause,
// the API 503 with the same words, which the CLI prints at once; once the
// database is up it serves.
func TestMasterAnswersWhileWaitingForTheDatabase(t *testing.T) {
	pg := pgtest.Start(t, pgtest.Options{})
	dsn, err := pg.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- runMaster(ctx, logs, masterFlags{data: t.TempDir(), listen: addr, logLevel: "info",
			db: dsn, dbWait: 2 * time.Minute})
	}()
	base := "http://" + addr
	// The master answers "opening the database" until its first try fails.
	waitMaster(t, logs, done, func() bool {
		_, body := getURL(t, base+"/readyz")
		return strings.Contains(body, "waiting for the database since")
	})
	for _, c := range []struct {
		path, want string
		status     int
	}{
		{"/livez", "ok: waiting for the database since", http.StatusOK},
		{"/readyz", ": connection refused\n", http.StatusServiceUnavailable},
		{"/healthz", "waiting for the database since", http.StatusServiceUnavailable},
		{"/api/v1/jobs", `"error":"the master is starting, waiting for the database since`, http.StatusServiceUnavailable},
	} {
		t.Run(c.path, func(t *testing.T) {
			status, body := getURL(t, base+c.path)
			if status != c.status || !strings.Contains(body, c.want) {
				t.Errorf("GET %s: %d %q, want %d with %q", c.path, status, body, c.status, c.want)
			}
			if strings.Contains(body, "postgres") || strings.Contains(body, "127.0.0.1") {
				t.Errorf("GET %s names the database: %q", c.path, body)
			}
		})
	}
	t.Run("the CLI says it at once", func(t *testing.T) {
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		start := time.Now()
		_, errOut, err := run(t, "--master", base, "jobs")
		want := "master: 503 Service Unavailable: the master is starting, waiting for the database since "
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("allot jobs: %v, want %q and the cause", err, want)
		}
		if errOut != "" {
			t.Errorf("allot jobs retried (stderr %q): a wait at start may last minutes", errOut)
		}
		t.Logf("allot jobs answered in %s: %v", time.Since(start).Round(time.Millisecond), err)
	})
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	waitMaster(t, logs, done, func() bool { return strings.Contains(logs.String(), "master serving") })
	if status, body := getURL(t, base+"/readyz"); status != http.StatusOK {
		t.Errorf("GET /readyz once the database is up: %d %q, want 200", status, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("runMaster: %v\n%s", err, logs.String())
	}
}

// freeAddr is a 127.0.0.1 address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// getURL fetches url and returns its status and body; 0 when nothing
// answered within a few seconds.
func getURL(t *testing.T, url string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitMaster polls ok for up to a minute, failing the test when the master
// stopped or ok never held.
func waitMaster(t *testing.T, logs *lockedBuffer, done <-chan error, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); {
		select {
		case err := <-done:
			t.Fatalf("the master stopped: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not so after a minute; the master's log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
