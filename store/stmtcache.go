package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// maxCachedStmts bounds the statement cache: the store's writes use a few
// dozen fixed statements, and a query built from a filter (an IN list of
// some length) past the bound simply runs unprepared.
const maxCachedStmts = 256

// stmtCache keeps each statement of the SQLite writer prepared, so that a
// transaction runs it without parsing and planning it again: with the
// pure-Go SQLite, preparing took a fifth of a busy master's CPU. SQLite
// has one writer connection, on which every cached statement is prepared
// once and which every transaction uses (database/sql's Tx.StmtContext
// reuses a statement already prepared on the transaction's connection).
//
// A statement is prepared in the background after its first use: inside a
// transaction the one connection is taken, and preparing on the database
// would wait for it forever.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
	// wanted are statements met but not yet prepared; preparing says the
	// goroutine that prepares them runs.
	wanted    map[string]bool
	preparing bool
	closed    bool
	done      sync.WaitGroup
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

// get returns query prepared, or nil while it is not (yet): the caller
// then runs it as text.
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	if c.closed || len(c.m)+len(c.wanted) >= maxCachedStmts || c.wanted[query] {
		return nil
	}
	c.wanted[query] = true
	if !c.preparing {
		c.preparing = true
		c.done.Add(1)
		go c.prepare()
	}
	return nil
}

// prepare prepares the wanted statements, each once the writer
// connection is free. A statement that does not prepare is not wanted
// again (it keeps running as text, which reports its error).
func (c *stmtCache) prepare() {
	defer c.done.Done()
	for {
		c.mu.Lock()
		var query string
		for q := range c.wanted {
			query = q
			break
		}
		if query == "" || c.closed {
			c.preparing = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		st, err := c.db.PrepareContext(ctx, query)
		cancel()
		c.mu.Lock()
		delete(c.wanted, query)
		switch {
		case err != nil:
			c.m[query] = nil
		case c.closed:
			st.Close()
		default:
			c.m[query] = st
		}
		c.mu.Unlock()
	}
}

// prepareTimeout bounds the wait for the writer connection to prepare a
// statement.
const prepareTimeout = 30 * time.Second

// close releases the prepared statements.
func (c *stmtCache) close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.done.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for q, st := range c.m {
		if st != nil {
			errs = append(errs, st.Close())
		}
		delete(c.m, q)
	}
	return errors.Join(errs...)
}

// cachedTx is a transaction of the writer that runs statements from the
// cache.
type cachedTx struct {
	tx *sql.Tx
	c  *stmtCache
}

func (t cachedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.c.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.c.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t cachedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.c.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}
