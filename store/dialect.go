package store

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// dialect holds the few things that differ between SQLite and PostgreSQL.
// Queries are written once, with ? placeholders, in the SQL both accept.
type dialect struct {
	name string // "sqlite" or "postgres"
	// dollar: rewrite ? placeholders to $1, $2...
	dollar bool
	// maxParams bounds the parameters of one statement (multi-row inserts).
	maxParams int
	// forUpdate locks the rows a SELECT reads until the transaction ends
	// (SQLite needs nothing: its writer holds the database lock).
	forUpdate string
	rebound   sync.Map // query → rewritten query
}

func newSQLiteDialect() *dialect {
	return &dialect{name: "sqlite", maxParams: 32766}
}

func newPostgresDialect() *dialect {
	return &dialect{name: "postgres", dollar: true, maxParams: 65535, forUpdate: " FOR UPDATE"}
}

// q returns query in the dialect's placeholder syntax. Queries never hold
// a ? inside a literal.
func (d *dialect) q(query string) string {
	if !d.dollar {
		return query
	}
	if v, ok := d.rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	out := b.String()
	d.rebound.Store(query, out)
	return out
}

// constraintViolation reports whether err is a foreign-key, unique or
// check constraint failure, i.e. the caller's data did not fit.
func constraintViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.Code, "23") // integrity_constraint_violation class
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code()&0xff == 19 // SQLITE_CONSTRAINT and its extended codes
	}
	return false
}
