package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// maxGroup bounds how many Updates share one commit, and so how long the
// first of them waits for it.
const maxGroup = 64

// groupCommitter lets concurrent Updates share one database transaction
// and so one commit (one fsync), for a single-writer database (SQLite).
//
// Writers take turns holding a token. The holder runs its function inside
// the open transaction (beginning one if none is open), within a savepoint
// that is rolled back if the function fails, panics or exits the
// goroutine. Then, if other writers are waiting and the group is not full,
// it hands the token and the open transaction to the next writer;
// otherwise it commits and wakes every writer of the group. Each function
// runs on its caller's goroutine, and every Update returns only once its
// writes are committed, exactly as without grouping; the one difference is
// that a failed commit fails the whole group.
type groupCommitter struct {
	db    *sql.DB
	token chan struct{} // holds the token when no writer has it

	mu      sync.Mutex
	waiting int    // writers waiting for the token
	open    *group // the open transaction, or nil
}

// group is one transaction shared by several Updates.
type group struct {
	tx      *sql.Tx
	members int           // savepoints taken so far
	done    chan struct{} // closed once committed or rolled back
	err     error         // the commit's outcome, for members that succeeded
}

func newGroupCommitter(db *sql.DB) *groupCommitter {
	g := &groupCommitter{db: db, token: make(chan struct{}, 1)}
	g.token <- struct{}{}
	return g
}

// update runs fn in the shared transaction and waits for its commit.
func (g *groupCommitter) update(ctx context.Context, fn func(*sql.Tx) error) error {
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	select {
	case <-g.token:
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	case <-ctx.Done():
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		// A holder may have handed us the token just now: pass it on.
		select {
		case <-g.token:
			g.pass()
		default:
		}
		return fmt.Errorf("store transaction: %w", ctx.Err())
	}
	grp, err := g.current()
	if err != nil {
		g.pass()
		return err
	}
	if err := g.runMember(ctx, grp, fn); err != nil {
		return err
	}
	<-grp.done
	return grp.err
}

// current returns the open group, beginning one if needed. The caller
// holds the token.
func (g *groupCommitter) current() (*group, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open != nil {
		return g.open, nil
	}
	// Not the caller's context: the transaction outlives the first member.
	tx, err := g.db.BeginTx(context.Background(), nil)
	if err != nil {
		return nil, fmt.Errorf("store transaction: begin: %w", err)
	}
	g.open = &group{tx: tx, done: make(chan struct{})}
	return g.open, nil
}

// runMember runs fn in a savepoint of grp, then passes the token on. It
// returns fn's error (after undoing fn's writes), or a savepoint failure
// (after abandoning the whole group); nil means fn succeeded and the
// caller must wait for grp.done.
func (g *groupCommitter) runMember(ctx context.Context, grp *group, fn func(*sql.Tx) error) (err error) {
	grp.members++
	sp := fmt.Sprintf("member%d", grp.members)
	if _, err := grp.tx.ExecContext(ctx, "SAVEPOINT "+sp); err != nil {
		g.abandon(grp, fmt.Errorf("store transaction: savepoint: %w", err))
		return grp.err
	}
	finished := false
	defer func() {
		if finished && err == nil {
			g.pass()
			return
		}
		// fn failed, panicked or called runtime.Goexit: undo its writes
		// and keep the group going for the others.
		_, rbErr := grp.tx.Exec("ROLLBACK TO SAVEPOINT " + sp)
		if rbErr == nil {
			_, rbErr = grp.tx.Exec("RELEASE SAVEPOINT " + sp)
		}
		if rbErr != nil {
			g.abandon(grp, fmt.Errorf("store transaction: roll back a failed update: %w", rbErr))
			return
		}
		g.pass()
	}()
	err = fn(grp.tx)
	finished = true
	if err == nil {
		if _, relErr := grp.tx.ExecContext(ctx, "RELEASE SAVEPOINT "+sp); relErr != nil {
			err = fmt.Errorf("store transaction: release savepoint: %w", relErr)
		}
	}
	return err
}

// pass hands the token to a waiting writer, or commits the open group
// when none waits or it is full. The caller holds the token.
func (g *groupCommitter) pass() {
	g.mu.Lock()
	grp := g.open
	if grp != nil && (g.waiting == 0 || grp.members >= maxGroup) {
		g.open = nil
		g.mu.Unlock()
		if err := grp.tx.Commit(); err != nil {
			grp.err = fmt.Errorf("store transaction: commit: %w", err)
		}
		close(grp.done)
		g.token <- struct{}{}
		return
	}
	g.token <- struct{}{}
	g.mu.Unlock()
}

// abandon rolls back the whole group after its transaction broke, failing
// every member, and passes the token on. The caller holds the token.
func (g *groupCommitter) abandon(grp *group, err error) {
	g.mu.Lock()
	g.open = nil
	g.mu.Unlock()
	grp.tx.Rollback()
	grp.err = err
	close(grp.done)
	g.token <- struct{}{}
}
