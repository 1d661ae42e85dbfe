package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/allot-sched/allot/lockfile"
	"github.com/allot-sched/allot/store"
)

// DataLockFile is the file in a data directory that allot master and
// allot dev lock while they use the directory.
const DataLockFile = "allot.lock"

// lockData takes the locks of a master's (or dev cluster's) data
// directory and, for SQLite, of its database file (db as --db gives it,
// "" for DATA/allot.db), so that a master pointed at another's database
// through its own data directory is refused too. release frees both.
func lockData(db, data string) (release func(), err error) {
	_, statErr := os.Stat(filepath.Join(data, DataLockFile))
	created := errors.Is(statErr, fs.ErrNotExist)
	dir, err := lockDataDir(data)
	if err != nil {
		return nil, err
	}
	file, err := lockSQLiteFile(db, data)
	if err != nil {
		if created {
			// Removed while still held, so that no other start locks
			// the file as it goes: a refused start leaves nothing.
			os.Remove(filepath.Join(data, DataLockFile))
		}
		dir.Release()
		return nil, err
	}
	return func() { file.Release(); dir.Release() }, nil
}

// lockDataDir keeps a second master or dev cluster off a data directory
// in use: two of them would share the SQLite database, the admin token
// and the agents' work directories. It refuses at once, naming the
// process that holds the directory, before anything is started.
func lockDataDir(data string) (*lockfile.Lock, error) {
	l, err := lockfile.Acquire(filepath.Join(data, DataLockFile))
	if who, path, ok := heldBy(err); ok {
		return nil, fmt.Errorf("--data %s: the data directory is in use by %s (an allot master or allot dev; %s is locked): stop it first, or give another --data",
			data, who, path)
	}
	return l, err
}

// heldBy names who holds a lock that Acquire could not take (err a
// lockfile.HeldError), and the lock file; ok is false for any other err.
func heldBy(err error) (who, path string, ok bool) {
	var held *lockfile.HeldError
	if !errors.As(err, &held) {
		return "", "", false
	}
	who = "another process"
	if held.PID > 0 {
		who = fmt.Sprintf("process %d", held.PID)
	}
	return who, held.Path, true
}

// lockSQLiteFile keeps a second master off a SQLite database that it
// reaches through another data directory (--db sqlite:///PATH), which the
// data directory's lock does not see: it locks PATH.lock beside the
// database. It returns nil (a no-op to Release) for PostgreSQL, whose
// store takes a lock of its own in the database.
func lockSQLiteFile(db, data string) (*lockfile.Lock, error) {
	path, err := store.SQLiteFile(db, data)
	if err != nil {
		return nil, usageErrorf("--db %s: %w", db, err)
	}
	if path == "" {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	l, err := lockfile.Acquire(path + ".lock")
	if who, lock, ok := heldBy(err); ok {
		return nil, fmt.Errorf("--db: the SQLite database %s is in use by %s (another allot master, maybe with another --data; %s is locked): stop it first, or give another --db",
			path, who, lock)
	}
	return l, err
}
