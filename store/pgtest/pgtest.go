package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvDSN names an existing server to use instead of a throwaway one.
const EnvDSN = "ALLOT_TEST_POSTGRES_DSN"

// EnvBin names the directory holding initdb and postgres.
const EnvBin = "ALLOT_TEST_POSTGRES_BIN"

var shared struct {
	inMain atomic.Bool
	once   sync.Once
	srv    *Server
	err    error
}

var schemaSeq atomic.Int64

// Main runs the tests and then stops the shared server, if one was
// started. Call it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	shared.inMain.Store(true)
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Remove(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		}
	}
	return code
}

// DSN returns a postgres:// URL whose search_path is a new, empty schema,
// dropped when the test ends. It fails the test when no server can run.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		if !shared.inMain.Load() {
			t.Fatal("pgtest.DSN: the package's TestMain must call pgtest.Main(m), which stops the shared server")
		}
		shared.once.Do(func() { shared.srv, shared.err = launch(Options{}) })
		if shared.err != nil {
			t.Fatalf("pgtest: cannot start PostgreSQL for the tests: %v", shared.err)
		}
		base = shared.srv.URL()
	}
	dsn, err := newSchema(base)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := dropSchema(dsn); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return dsn
}

// newSchema creates a uniquely named schema on the server base names and
// returns base with that schema as its search_path.
func newSchema(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvDSN, err)
	}
	name := fmt.Sprintf("allot_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, schemaSeq.Add(1))
	if err := execOn(base, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("create test schema: %w", err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func dropSchema(dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return err
	}
	q := u.Query()
	name := q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	if err := execOn(u.String(), "DROP SCHEMA IF EXISTS "+name+" CASCADE"); err != nil {
		return fmt.Errorf("drop test schema %s: %w", name, err)
	}
	return nil
}

func execOn(dsn, stmt string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, stmt)
	return err
}
