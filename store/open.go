package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultSQLiteFile is the database file that an empty DSN opens in the
// data directory.
const DefaultSQLiteFile = "allot.db"

// Open opens (creating if needed) the store that dsn names and applies the
// pending migrations:
//
//   - "" or "sqlite:" opens SQLite in dataDir/allot.db;
//   - "sqlite://PATH" opens SQLite at PATH, relative to dataDir unless
//     absolute ("sqlite:///var/lib/allot/allot.db"); the query parameter
//     synchronous=normal trades the last transactions before a power loss
//     (never before a process crash) for speed, the default being full;
//   - "postgres://..." or "postgresql://..." opens PostgreSQL (any
//     connection string pgx accepts in URL form).
func Open(ctx context.Context, dsn, dataDir string) (Store, error) {
	switch {
	case dsn == "" || dsn == "sqlite:" || strings.HasPrefix(dsn, "sqlite://"):
		return openSQLite(ctx, dsn, dataDir)
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		return openPostgres(ctx, dsn)
	}
	return nil, fmt.Errorf("open store: %w: database %q is neither sqlite:// nor postgres://", ErrInvalid, redact(dsn))
}

// SQLiteFile returns the database file that dsn opens, resolved against
// dataDir, or "" when dsn names PostgreSQL.
func SQLiteFile(dsn, dataDir string) (string, error) {
	if !(dsn == "" || dsn == "sqlite:" || strings.HasPrefix(dsn, "sqlite://")) {
		return "", nil
	}
	path, _, err := sqlitePath(dsn, dataDir)
	if err != nil {
		return "", fmt.Errorf("sqlite store: %w", err)
	}
	return path, nil
}

// sqlitePath resolves the database file and the synchronous mode.
func sqlitePath(dsn, dataDir string) (path, sync string, err error) {
	rest := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
	rest, rawQuery, _ := strings.Cut(rest, "?")
	sync = "FULL"
	if rawQuery != "" {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return "", "", fmt.Errorf("%w: sqlite options %q: %v", ErrInvalid, rawQuery, err)
		}
		for k, v := range q {
			if k != "synchronous" {
				return "", "", fmt.Errorf("%w: unknown sqlite option %q (known: synchronous)", ErrInvalid, k)
			}
			switch s := strings.ToUpper(v[0]); s {
			case "FULL", "NORMAL", "EXTRA":
				sync = s
			default:
				return "", "", fmt.Errorf("%w: sqlite synchronous=%q, want full, normal or extra", ErrInvalid, v[0])
			}
		}
	}
	path = rest
	if path == "" {
		path = DefaultSQLiteFile
	}
	if !filepath.IsAbs(path) {
		if dataDir == "" {
			return "", "", fmt.Errorf("%w: sqlite file %q is relative and no data directory is set", ErrInvalid, path)
		}
		path = filepath.Join(dataDir, path)
	}
	if strings.ContainsAny(path, "?#") {
		return "", "", fmt.Errorf("%w: sqlite path %q contains ? or #", ErrInvalid, path)
	}
	return path, sync, nil
}

func openSQLite(ctx context.Context, dsn, dataDir string) (Store, error) {
	path, sync, err := sqlitePath(dsn, dataDir)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open sqlite store: create directory: %w", err)
	}
	if err := checkNotEmpty(path); err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	_, statErr := os.Stat(path)
	isNew := errors.Is(statErr, fs.ErrNotExist)
	// The busy timeout is short: the master is the file's only writer,
	// so a lock held longer is another program's, and the master says
	// the store is unavailable (IsUnavailable) rather than hold every
	// request behind it.
	common := "?_pragma=busy_timeout(" + strconv.Itoa(int(sqliteBusyTimeout/time.Millisecond)) + ")&_pragma=foreign_keys(1)"
	// One writer connection: writes queue in Go rather than spinning on
	// SQLITE_BUSY, and BEGIN IMMEDIATE takes the write lock up front so a
	// transaction that reads then writes can never deadlock.
	w, err := sql.Open("sqlite", path+common+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous("+sync+")&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w%s", path, err, damageHint(err))
	}
	d := newSQLiteDialect()
	if err := migrate(ctx, w, d); err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w%s", path, err, damageHint(err))
	}
	if err := quickCheck(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w%s", path, err, damageHint(err))
	}
	if isNew {
		if err := makePrivate(path); err != nil {
			w.Close()
			return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
		}
	}
	// Readers run beside the writer thanks to WAL.
	r, err := sql.Open("sqlite", path+common+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite store %s (readers): %w", path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	s := newSQLStore(w, r, d)
	s.group = newGroupCommitter(w)
	s.stmts = newStmtCache(w)
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", redact(dsn), err)
	}
	// The master lock comes first: a second master is refused before it
	// reads or migrates anything.
	lock := newMasterLock(cfg, redact(dsn))
	if err := lock.take(ctx); err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", redact(dsn), err)
	}
	db := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(func(ctx context.Context, _ *pgx.Conn) error {
		return lock.verify(ctx)
	}))
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	fail := func(err error) (Store, error) {
		db.Close()
		lock.close()
		return nil, fmt.Errorf("open postgres store %s: %w", redact(dsn), err)
	}
	if err := db.PingContext(ctx); err != nil {
		return fail(err)
	}
	d := newPostgresDialect()
	if err := migrate(ctx, db, d); err != nil {
		return fail(err)
	}
	s := newSQLStore(db, db, d)
	s.lock = lock
	return s, nil
}

// Describe names the store that dsn opens, for the master's log: the
// SQLite file, resolved against dataDir, or the PostgreSQL URL with its
// password hidden, so that an operator sees which database a master
// serves from.
func Describe(dsn, dataDir string) string {
	path, err := SQLiteFile(dsn, dataDir)
	switch {
	case err != nil:
		return redact(dsn)
	case path != "":
		return "sqlite " + path
	}
	return redact(dsn)
}

// redact hides a password in a URL-form DSN so that errors can show it.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable database URL)"
	}
	if u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// checkNotEmpty refuses a database file of zero bytes: SQLite would take it
// for a new, empty database, and the master would start an empty cluster
// over what was lost (a truncated copy, a failed restore). A missing file
// is a new cluster; a zero-length one with a write-ahead log is a database
// whose pages are all still in the log, which SQLite recovers.
// makePrivate makes a database file this start created, and its WAL and
// shared-memory files, readable by their owner only: SQLite creates them
// with the umask's mode (0644 under the usual 022), and the database
// holds every job's environment (where users put API tokens), its logs
// and the audit log.
func makePrivate(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("make the database private: %w", err)
		}
	}
	return nil
}

func checkNotEmpty(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Size() > 0 {
		return nil // missing (a new database), or SQLite says what is wrong
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return nil
	}
	return fmt.Errorf("%w: the database file %s is empty (0 bytes), so it holds no cluster: "+
		"restore it from a backup, or remove it to start a new, empty cluster", ErrCorrupt, path)
}

// quickCheck runs SQLite's quick_check, which reads every page, so that a
// damaged file is refused at start rather than failing requests later.
func quickCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("%w: quick_check: %w", ErrCorrupt, err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("%w: quick_check: %w", ErrCorrupt, err)
		}
		if line != "ok" && len(problems) < 5 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("%w: quick_check: %w", ErrCorrupt, err)
	}
	rows.Close()
	if len(problems) > 0 {
		return fmt.Errorf("%w: quick_check found: %s", ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}

// damageHint tells the operator what to do with a damaged database.
func damageHint(err error) string {
	msg := err.Error()
	if errors.Is(err, ErrCorrupt) || strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") {
		return " (the database is damaged: restore it from a backup, or salvage it with `sqlite3 FILE .recover`; " +
			"the master does not start over a damaged database)"
	}
	return ""
}
