package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestLockedSQLiteIsUnavailable: another program holding the SQLite
// file's write lock (an sqlite3 shell in BEGIN EXCLUSIVE) makes the
// store's writes fail as unavailable once the busy timeout is over, so
// the master answers 503 rather than hold every request; the lock's
// release makes the store usable again (trial 2026-11-29b B3).
func TestLockedSQLiteIsUnavailable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", filepath.Join(dir, "allot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	err = s.Ping(ctx, asked)
	if err == nil || !IsUnavailable(err) {
		t.Fatalf("write while another program holds the lock: %v, want an unavailable error", err)
	}
	if waited := time.Since(asked); waited < sqliteBusyTimeout/2 {
		t.Errorf("failed after %v: before waiting out the busy timeout of %v", waited, sqliteBusyTimeout)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx, time.Now()); err != nil {
		t.Fatalf("write after the lock's release: %v", err)
	}
}
