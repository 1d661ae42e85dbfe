package store

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// ErrUnavailable marks a failure of the database itself (unreachable,
// shutting down, starting up, the connection lost) rather than of the
// request: a transaction that failed so was rolled back, so the request
// changed nothing and may be sent again once the database is back.
// Test it with IsUnavailable, which also recognises the drivers' errors
// that mean it.
var ErrUnavailable = errors.New("database unavailable")

// IsUnavailable reports whether err says the database could not be
// reached or dropped the connection: ErrUnavailable, a PostgreSQL error
// of class 08 (connection exception) or 57P01-57P03 (the server shutting
// down or not yet up), a refused, reset or failed dial, a closed or
// broken connection. A refusal of the request (a constraint, a
// conflict, a wrong password, a missing database) is not: retrying it
// would fail the same way. A SQLite file that stayed locked by another
// process past the busy timeout (sqliteBusy) is unavailable too: the
// master is the file's only writer (one connection, the master lock),
// so the lock is another program's (an sqlite3 shell in a transaction,
// a backup that writes, a stalled network disk), and the master must
// say so at once (503, the agents' fence told apart) rather than hold
// every request behind it (trial 2026-11-29b B3).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code()&0xff == sqliteBusy
	}
	// The server's own word comes first: a failed connection that the
	// server refused for a wrong password carries a PgError too.
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return unavailableCode(pg.Code)
	}
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(err, &op), errors.As(err, &dns),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return true
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) // could not connect, for no reason the server gave
}

// sqliteBusyTimeout is how long a SQLite statement waits for another
// connection's lock before it fails with SQLITE_BUSY: long enough for
// the master's own readers and checkpoints, short enough that the
// agents' fence hears the master's 503 before it takes the master for
// gone.
const sqliteBusyTimeout = 2 * time.Second

// sqliteBusy is SQLITE_BUSY, the primary code of a write that waited
// for another connection's lock for the whole busy timeout.
const sqliteBusy = 5

// unavailableCode reports whether a PostgreSQL SQLSTATE says the
// connection or the server is gone, not that the statement was refused.
func unavailableCode(code string) bool {
	switch code {
	case "57P01", // admin_shutdown: terminating connection due to administrator command
		"57P02", // crash_shutdown
		"57P03": // cannot_connect_now: the database system is starting up or shutting down
		return true
	}
	// Class 08 (connection_exception) but 08P01, a protocol violation,
	// which a retry would repeat.
	return strings.HasPrefix(code, "08") && code != "08P01"
}
