package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
)

// TestSecondMasterOnOneDatabase starts a second master, with a data
// directory of its own, on the database of a running one, as an operator
// setting up a standby by mistake would: it must exit non-zero at once,
// saying that another master holds the database, and the first must go
// on scheduling, alone.
func TestSecondMasterOnOneDatabase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		postgres bool
		want     []string // in the second master's log
	}{
		{"postgres", true, []string{"another allot master holds the database", "allot-master ", "stop that master first"}},
		{"sqlite", false, []string{"the SQLite database", "is in use by process", "stop it first"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, clusterSpec{config: onePool, postgres: tc.postgres,
				agents: []agentSpec{{name: "node-1", pool: "default", gpus: 1}}})
			db := c.dsn
			if db == "" {
				db = "sqlite://" + filepath.Join(c.dir, "master", store.DefaultSQLiteFile)
			}
			second := c.start("master-b", c.dir, "master", "--listen", "127.0.0.1:0",
				"--data", filepath.Join(c.dir, "master-b"), "--config", filepath.Join(c.dir, "cluster.yaml"), "--db", db)
			second.setStopped() // its exit is the point
			c.poll(startTimeout, "the second master to exit", func(context.Context) (bool, string) {
				return second.exited(), "running"
			})
			second.mu.Lock()
			code := second.exitCode
			second.mu.Unlock()
			log := second.log()
			if code == 0 || masterServing.MatchString(log) {
				t.Fatalf("the second master exited %d (serving: %v), want non-zero without serving:\n%s",
					code, masterServing.MatchString(log), tail(log, 4000))
			}
			t.Logf("the second master said:\n%s", tail(log, 2000))
			for _, want := range tc.want {
				if !strings.Contains(log, want) {
					t.Errorf("the second master's log does not say %q:\n%s", want, tail(log, 4000))
				}
			}
			for i := range 2 {
				name := fmt.Sprintf("after-%d", i)
				id := c.submit(name, fmt.Sprintf(`{name: %s, entrypoint: "echo hi", resources: {slots: 1}}`, name))
				if j := c.waitEnded(id); j.State != "completed" {
					t.Fatalf("job %s on the first master: %s, want completed", name, describeJob(j))
				}
			}
		})
	}
}

// TestMasterStopsWhenAnotherTookTheDatabase: PostgreSQL restarts while
// the master is paused (SIGSTOP), so that it cannot take its lock back
// first, and a second master starts on the database and takes it. When
// the first resumes it must find the lock taken and exit non-zero,
// saying so, rather than schedule beside the second, which goes on.
func TestMasterStopsWhenAnotherTookTheDatabase(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t, pgtest.Options{})
	dsn, err := pg.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	c := newCluster(t, clusterSpec{config: onePool, dsn: dsn})
	first := c.master
	if err := first.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	second := c.start("master-b", c.dir, "master", "--listen", "127.0.0.1:0",
		"--data", filepath.Join(c.dir, "master-b"), "--config", filepath.Join(c.dir, "cluster.yaml"), "--db", dsn)
	url := "http://" + c.waitLogMatch(second, masterServing)
	first.setStopped() // its exit is the point
	if err := first.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	c.poll(startTimeout, "the first master to exit", func(context.Context) (bool, string) {
		return first.exited(), "running"
	})
	first.mu.Lock()
	code := first.exitCode
	first.mu.Unlock()
	log := first.log()
	t.Logf("the first master said:\n%s", tail(log, 2000))
	if code == 0 || !strings.Contains(log, "lost the master lock") || !strings.Contains(log, "another allot master holds the database") {
		t.Fatalf("the first master exited %d; want non-zero, saying it lost the master lock to another master:\n%s", code, tail(log, 4000))
	}
	c.url = url
	c.poll(startTimeout, "the second master's /readyz to answer 200", func(ctx context.Context) (bool, string) {
		code := readyz(ctx, url)
		return code == 200, fmt.Sprint(code)
	})
}
