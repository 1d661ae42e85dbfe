package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Fencing. The master lock alone leaves a window: when only its session
// is cut (the pool's connections survive, the server stays up), another
// master can take the lock at once, while this one notices only at its
// watch's next check and may write meanwhile. A fencing token closes it:
// one row, master_epoch, holds an epoch that a master increments each
// time it takes the lock, and every write transaction of the store reads
// that row FOR SHARE just before its commit and fails unless the epoch is
// still the one this master set. The row lock orders the two: an
// increment waits for the transactions that read the row before it, and
// every transaction that reads it after sees the new epoch, so no write
// of the old master commits once the new one has taken over; the old one
// then stops, as when it finds the lock taken (ErrFenced matches
// ErrLocked, and LockLost reports it).
//
// The table is created by the lock's session right after it takes the
// lock (CREATE TABLE IF NOT EXISTS), not by a migration: the lock is
// taken before anything is migrated, so on a new database no migration
// has run when the first epoch is set. The lock being held, no other
// master runs that DDL at the same time.

// ErrFenced says that a write found that another master took the
// database over (the fencing epoch is no longer this master's). It
// matches ErrLocked.
var ErrFenced = fmt.Errorf("%w (it took over from this one)", ErrLocked)

// fenceRead reads the fencing epoch and locks its row until the
// transaction ends. Writes put it just before their commit (flushEvents,
// createJobPG), where it costs no round trip of its own when the
// transaction writes events.
const fenceRead = `SELECT epoch FROM master_epoch WHERE id = 1 FOR SHARE`

// bumpEpoch creates the fencing row if need be and increments its epoch,
// on conn, the lock's session, which has just taken the lock. The
// increment waits for the transactions that read the row already (those
// of a master that held the lock before) to end.
func bumpEpoch(ctx context.Context, conn *pgx.Conn) (int64, error) {
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS master_epoch (
		id INTEGER PRIMARY KEY CHECK (id = 1),
		epoch BIGINT NOT NULL)`); err != nil {
		return 0, fmt.Errorf("master lock: create the fencing table: %w", err)
	}
	var epoch int64
	if err := conn.QueryRow(ctx, `INSERT INTO master_epoch (id, epoch) VALUES (1, 1)
		ON CONFLICT (id) DO UPDATE SET epoch = master_epoch.epoch + 1 RETURNING epoch`).Scan(&epoch); err != nil {
		return 0, fmt.Errorf("master lock: set the fencing epoch: %w", err)
	}
	return epoch, nil
}

// checkEpoch accepts epoch, read by a write with fenceRead, when it is
// the one this master set last; otherwise it returns an *epochMoved, and
// the write must end its transaction (giving up its row lock) before it
// calls settle, which takes mu: a master taking its lock back holds mu
// while its increment waits for those row locks.
func (l *masterLock) checkEpoch(epoch int64) error {
	if epoch == l.epochNow.Load() {
		return nil
	}
	return &epochMoved{epoch: epoch}
}

// epochMoved is a write's finding that the fencing epoch is not the one
// its master set last.
type epochMoved struct{ epoch int64 }

func (e *epochMoved) Error() string { return fmt.Sprintf("the master epoch moved to %d", e.epoch) }

// errRetaken says that a write read the epoch of this master's own
// taking back of its lock, which it had not seen set yet: nothing was
// written, and the write may be tried again.
var errRetaken = errors.New("this master took its lock back while the transaction ran, so nothing was written: try again")

// settle decides what a write that found epoch, and has ended its
// transaction, fails with: errRetaken when the epoch is this master's
// own (set as it took the lock back, under mu), else the loss of the
// lock for good, as another master has taken over.
func (l *masterLock) settle(epoch int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr != nil {
		return l.lostErr
	}
	if epoch <= l.epoch {
		return errRetaken
	}
	l.lose(fmt.Errorf("%w: the master epoch is %d, this master's %d", ErrFenced, epoch, l.epoch))
	return l.lostErr
}
