package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
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
