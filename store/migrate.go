package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrationFiles embed.FS

// migration is one numbered schema change, NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrationLockKey is the PostgreSQL advisory lock that serialises masters
// migrating the same database at once.
const migrationLockKey = 0x616c6c6f74 // "allot"

// loadMigrations reads the dialect's migrations, numbered 1, 2, 3...
// without gaps.
func loadMigrations(d *dialect) ([]migration, error) {
	dir := path.Join("migrations", d.name)
	entries, err := migrationFiles.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations %s: %w", dir, err)
	}
	var ms []migration
	for _, e := range entries {
		num, rest, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(rest, ".sql") {
			return nil, fmt.Errorf("migration %s/%s: name is not NNNN_name.sql", dir, e.Name())
		}
		body, err := migrationFiles.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s/%s: %w", dir, e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(rest, ".sql"), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations %s: expected version %d, found %d (%s)", dir, i+1, m.version, m.name)
		}
	}
	return ms, nil
}

// migrate applies every pending migration, each in its own transaction
// together with its schema_migrations row, so a crash leaves each one
// either applied and recorded or not at all. Running it again is a no-op.
func migrate(ctx context.Context, db *sql.DB, d *dialect) error {
	ms, err := loadMigrations(d)
	if err != nil {
		return err
	}
	for {
		done, err := migrateNext(ctx, db, d, ms)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateNext applies the first pending migration; done reports that there
// was none.
func migrateNext(ctx context.Context, db *sql.DB, d *dialect, ms []migration) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback()
	if d.name == "postgres" {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLockKey); err != nil {
			return false, fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_ns BIGINT NOT NULL)`); err != nil {
		return false, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return false, fmt.Errorf("migrate: read schema version: %w", err)
	}
	if current > len(ms) {
		return false, fmt.Errorf("migrate: database schema version %d is newer than this binary's %d: upgrade allot", current, len(ms))
	}
	if current == len(ms) {
		return true, tx.Commit()
	}
	m := ms[current]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("migrate: apply %04d_%s: %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, d.q("INSERT INTO schema_migrations (version, name, applied_ns) VALUES (?, ?, ?)"),
		m.version, m.name, time.Now().UnixNano()); err != nil {
		return false, fmt.Errorf("migrate: record %04d_%s: %w", m.version, m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate: commit %04d_%s: %w", m.version, m.name, err)
	}
	return false, nil
}
