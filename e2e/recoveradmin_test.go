package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRecoverAdmin: the first admin's token file is lost; allot master
// recover-admin refuses while the master runs, and once it is stopped
// writes a new token that works against the restarted master's API (and
// is in its audit log), the lost one staying valid (docs/security.md). On
// PostgreSQL, a master started with a new --data on the database says in
// its log that it wrote no token and how to recover.
func TestRecoverAdmin(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name     string
		postgres bool
	}{{"sqlite", false}, {"postgres", true}} {
		t.Run(db.name, func(t *testing.T) {
			c := newCluster(t, clusterSpec{config: authConfig, postgres: db.postgres})
			data := filepath.Join(c.dir, "master")
			if err := os.Remove(filepath.Join(data, "admin.token")); err != nil {
				t.Fatal(err)
			}
			recoverArgs := []string{"master", "recover-admin", "--data", data}
			if c.dsn != "" {
				recoverArgs = append(recoverArgs, "--db", c.dsn)
			}
			if r := runCLI(t, "", c.marker, c.dir, "", recoverArgs...); r.code == 0 || !strings.Contains(r.stderr, "the master must be stopped first") {
				t.Fatalf("recover-admin beside a running master: exit %d, stderr %q; want a refusal", r.code, r.stderr)
			}
			lost := c.token
			c.stopClean(c.master)
			c.master.setStopped()
			if db.postgres {
				newDataDir(t, c)
			}
			r := runCLI(t, "", c.marker, c.dir, "", recoverArgs...)
			if r.code != 0 || !strings.Contains(r.stdout, "New API token") {
				t.Fatalf("recover-admin: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			c.restartMaster("master-2")
			c.login(filepath.Join(data, "admin.token"))
			if out := c.cliOK("audit"); !strings.Contains(out, "allot master recover-admin") {
				t.Fatalf("audit with the new token:\n%s\nwant the recovery", out)
			}
			if r := c.as(lost).cli("user", "list"); r.code != 0 {
				t.Fatalf("the lost token: exit %d, %s; want it still valid", r.code, r.stderr)
			}
		})
	}
}

// newDataDir starts a master with a new --data on c's database, which
// has users already, checks that it says it wrote no token and how to
// recover, and stops it.
func newDataDir(t *testing.T, c *cluster) {
	other := filepath.Join(c.dir, "other")
	p := c.start("master-new-data", c.dir, "master", "--listen", "127.0.0.1:0", "--data", other, "--db", c.dsn,
		"--config", filepath.Join(c.dir, "cluster.yaml"))
	c.waitLogMatch(p, regexp.MustCompile(`msg="no admin token written(.*)`))
	if log := p.log(); !strings.Contains(log, "recover-admin --data "+other+" --db <this master's --db>") {
		t.Fatalf("log of a master on a new --data:\n%s\nwant the recovery command", tail(log, 4000))
	}
	if _, err := os.Stat(filepath.Join(other, "admin.token")); !os.IsNotExist(err) {
		t.Fatalf("a token file in the new --data: %v", err)
	}
	c.stopClean(p)
	p.setStopped()
}
