package pgtest_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// exec runs statements on dsn.
func exec(t *testing.T, dsn, stmts string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), stmts); err != nil {
		t.Fatalf("%s: %v", stmts, err)
	}
}

// query runs one scalar query on dsn.
func query(t *testing.T, dsn, q string) string {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out string
	if err := db.QueryRowContext(ctx, q).Scan(&out); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func TestDSNGivesEachTestItsOwnSchema(t *testing.T) {
	a, b := pgtest.DSN(t), pgtest.DSN(t)
	sa, sb := query(t, a, "SELECT current_schema()"), query(t, b, "SELECT current_schema()")
	if sa == sb || !strings.HasPrefix(sa, "allot_test_") {
		t.Fatalf("schemas %q and %q: want two distinct allot_test_ schemas", sa, sb)
	}
	exec(t, a, "CREATE TABLE t (x int)")
	if got := query(t, b, "SELECT count(*)::text FROM pg_tables WHERE schemaname = current_schema()"); got != "0" {
		t.Fatalf("schema %s sees %s tables, want 0", sb, got)
	}
}

func TestServerSurvivesKillAndRestart(t *testing.T) {
	if os.Getenv(pgtest.EnvDSN) != "" {
		t.Log("a dedicated server is started even when " + pgtest.EnvDSN + " is set")
	}
	srv := pgtest.Start(t, pgtest.Options{})
	dsn, err := srv.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	exec(t, dsn, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)")
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := query(t, dsn, "SELECT x::text FROM kept"); got != "42" {
		t.Fatalf("after a crash the committed row reads %q, want 42", got)
	}
}
