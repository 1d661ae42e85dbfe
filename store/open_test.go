package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/allot-sched/allot/store/pgtest"
)

func TestSQLitePath(t *testing.T) {
	cases := []struct {
		dsn, dataDir   string
		wantPath, sync string
		wantErr        bool
	}{
		{"", "/data", "/data/allot.db", "FULL", false},
		{"sqlite:", "/data", "/data/allot.db", "FULL", false},
		{"sqlite://state.db", "/data", "/data/state.db", "FULL", false},
		{"sqlite:///var/lib/allot/a.db", "", "/var/lib/allot/a.db", "FULL", false},
		{"sqlite://a.db?synchronous=normal", "/data", "/data/a.db", "NORMAL", false},
		{"sqlite://a.db?synchronous=off", "/data", "", "", true},
		{"sqlite://a.db?cache=shared", "/data", "", "", true},
		{"", "", "", "", true},
	}
	for _, c := range cases {
		t.Run(c.dsn+"|"+c.dataDir, func(t *testing.T) {
			path, sync, err := sqlitePath(c.dsn, c.dataDir)
			if c.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("error %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil || path != c.wantPath || sync != c.sync {
				t.Fatalf("got %q %q %v, want %q %q", path, sync, err, c.wantPath, c.sync)
			}
		})
	}
}

func TestOpenRejectsUnknownDatabases(t *testing.T) {
	for _, dsn := range []string{"mysql://root@localhost/allot", "allot.db", "postgres:/x"} {
		_, err := Open(context.Background(), dsn, t.TempDir())
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), dsn) {
			t.Errorf("Open(%q): error %v, want ErrInvalid naming the DSN", dsn, err)
		}
	}
}

func TestRedactHidesPasswords(t *testing.T) {
	got := redact("postgres://allot:s3cret@db:5432/allot?sslmode=require")
	if strings.Contains(got, "s3cret") || !strings.Contains(got, "allot:xxxxx@db:5432") {
		t.Fatalf("redact gave %q", got)
	}
}

func TestPostgresPlaceholders(t *testing.T) {
	d := newPostgresDialect()
	cases := map[string]string{
		"SELECT 1":                             "SELECT 1",
		"UPDATE t SET a = ? WHERE b IN (?, ?)": "UPDATE t SET a = $1 WHERE b IN ($2, $3)",
	}
	for in, want := range cases {
		for range 2 { // the second time from the cache
			if got := d.q(in); got != want {
				t.Fatalf("q(%q) = %q, want %q", in, got, want)
			}
		}
	}
	if got := newSQLiteDialect().q("a = ?"); got != "a = ?" {
		t.Fatalf("sqlite q rewrote to %q", got)
	}
}

// openRaw opens a backend and returns its store for internal inspection.
func openRaw(t *testing.T, dsn, dir string) *sqlStore {
	t.Helper()
	s, err := Open(context.Background(), dsn, dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(*sqlStore)
}

type backend struct {
	name string
	dsn  func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
}

func TestMigrationsApplyOnceAndRefuseNewerSchemas(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn, dir := b.dsn(t), t.TempDir()
			s := openRaw(t, dsn, dir)
			ms, err := loadMigrations(s.d)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			s = openRaw(t, dsn, dir) // a second Open applies nothing
			var n, max int
			if err := s.w.QueryRowContext(ctx, "SELECT COUNT(*), MAX(version) FROM schema_migrations").Scan(&n, &max); err != nil {
				t.Fatal(err)
			}
			if n != len(ms) || max != len(ms) {
				t.Fatalf("schema_migrations has %d rows up to %d, want %d", n, max, len(ms))
			}
			if _, err := s.w.ExecContext(ctx, s.d.q("INSERT INTO schema_migrations (version, name, applied_ns) VALUES (?, 'future', 0)"),
				len(ms)+1); err != nil {
				t.Fatal(err)
			}
			s.Close()
			_, err = Open(ctx, dsn, dir)
			if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
				t.Fatalf("opening a newer schema: error %v, want a refusal", err)
			}
		})
	}
}

// TestDialectsStayInStep checks that both dialects' migrations create the
// same tables with the same columns.
func TestDialectsStayInStep(t *testing.T) {
	columns := map[string]map[string][]string{}
	for _, b := range backends {
		s := openRaw(t, b.dsn(t), t.TempDir())
		query := `SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
			WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
		if s.d.name == "postgres" {
			query = `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`
		}
		rows, err := s.w.QueryContext(context.Background(), query)
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		cols := map[string][]string{}
		for rows.Next() {
			var table, col string
			if err := rows.Scan(&table, &col); err != nil {
				t.Fatal(err)
			}
			cols[table] = append(cols[table], col)
		}
		rows.Close()
		for _, c := range cols {
			sort.Strings(c)
		}
		// The master lock's fencing row, which the lock's session creates
		// on PostgreSQL only (pgfence.go): SQLite has no lock to fence.
		delete(cols, "master_epoch")
		columns[b.name] = cols
	}
	lite, pg := columns["sqlite"], columns["postgres"]
	if len(lite) < 8 {
		t.Fatalf("sqlite has %d tables, want at least 8", len(lite))
	}
	for table, c := range lite {
		if strings.Join(c, ",") != strings.Join(pg[table], ",") {
			t.Errorf("table %s: sqlite columns %v, postgres %v", table, c, pg[table])
		}
	}
	if len(lite) != len(pg) {
		t.Errorf("sqlite has %d tables, postgres %d", len(lite), len(pg))
	}
}

// TestDescribe: the master's log names its database, never a password.
func TestDescribe(t *testing.T) {
	cases := []struct{ name, dsn, want string }{
		{"default SQLite", "", "sqlite /data/allot.db"},
		{"SQLite file", "sqlite://state.db?synchronous=normal", "sqlite /data/state.db"},
		{"PostgreSQL", "postgres://allot:s3cret@db:5432/allot?sslmode=require", "postgres://allot:xxxxx@db:5432/allot?sslmode=require"},
		{"PostgreSQL without password", "postgresql://allot@db/allot", "postgresql://allot@db/allot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Describe(c.dsn, "/data"); got != c.want {
				t.Errorf("Describe(%q) = %q, want %q", c.dsn, got, c.want)
			}
		})
	}
}

func TestSQLiteFileIsInDataDir(t *testing.T) {
	dir := t.TempDir()
	openRaw(t, "", dir)
	if matches, _ := filepath.Glob(filepath.Join(dir, DefaultSQLiteFile)); len(matches) != 1 {
		t.Fatalf("no %s in the data directory", DefaultSQLiteFile)
	}
	var mode string
	if err := openRaw(t, "", dir).w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q (%v), want wal", mode, err)
	}
}

func TestNewSQLiteFileIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	raw := openRaw(t, "", dir)
	if _, err := raw.w.Exec("CREATE TABLE IF NOT EXISTS privacy_probe (x INTEGER)"); err != nil {
		t.Fatal(err) // a write, so that the WAL file exists too
	}
	for _, name := range []string{DefaultSQLiteFile, DefaultSQLiteFile + "-wal"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v under umask 022, want readable by its owner only", name, perm)
		}
	}
}
