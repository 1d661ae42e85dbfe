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
// Taking over is one statement on the lock's session, after it took the
// lock: it increments the epoch and records the master's holder (its
// application name and a random token) in the row. A master that takes
// its lock back (after its session was cut) increments the epoch only if
// the row still names it: anyone else's name there means that another
// master took over in between, and may have written, so this one is
// fenced. That record makes a lost reply harmless: when the increment
// commits but the session is cut before its reply arrives, the master
// does not know its epoch, but the next taking back finds its own name
// and increments again, under the lock, this time with the reply. Until
// then a write that finds an epoch it does not know fails without
// deciding anything (errUnsettled): with the session down, the epoch may
// be this master's own.
//
// The table is created by the lock's session right after it takes the
// lock (CREATE TABLE IF NOT EXISTS), not by a migration: the lock is
// taken before anything is migrated, so on a new database no migration
// has run when the first epoch is set. The lock being held, no other
// master runs that DDL at the same time. A table from before the holder
// column gets it there too.

// ErrFenced says that a write found that another master took the
// database over (the fencing epoch is no longer this master's). It
// matches ErrLocked.
var ErrFenced = fmt.Errorf("%w (it took over from this one)", ErrLocked)

// fenceRead reads the fencing epoch and locks its row until the
// transaction ends. Writes put it just before their commit (flushEvents,
// createJobPG), where it costs no round trip of its own when the
// transaction writes events.
const fenceRead = `SELECT epoch FROM master_epoch WHERE id = 1 FOR SHARE`

// bumpEpoch creates the fencing row if need be, increments its epoch and
// records holder as the master that did, on conn, the lock's session,
// which has just taken the lock. The increment waits for the
// transactions that read the row already (those of a master that held
// the lock before) to end. With retake (this master held the lock
// before) it increments only if the row names holder; if another master
// took over since, it returns ErrFenced and changes nothing.
func bumpEpoch(ctx context.Context, conn *pgx.Conn, holder string, retake bool) (int64, error) {
	if err := createFenceTable(ctx, conn); err != nil {
		return 0, err
	}
	var epoch int64
	err := conn.QueryRow(ctx, `INSERT INTO master_epoch (id, epoch, holder) VALUES (1, 1, $1)
		ON CONFLICT (id) DO UPDATE SET epoch = master_epoch.epoch + 1, holder = excluded.holder
		WHERE NOT $2::bool OR master_epoch.holder = excluded.holder
		RETURNING epoch`, holder, retake).Scan(&epoch)
	if errors.Is(err, pgx.ErrNoRows) {
		var other string
		if err := conn.QueryRow(ctx, `SELECT epoch, holder FROM master_epoch WHERE id = 1`).Scan(&epoch, &other); err != nil {
			return 0, fmt.Errorf("master lock: read the fencing epoch: %w", err)
		}
		return 0, fmt.Errorf("%w: the master epoch is %d, set by %q while this master did not hold the lock",
			ErrFenced, epoch, other)
	}
	if err != nil {
		return 0, fmt.Errorf("master lock: set the fencing epoch: %w", err)
	}
	return epoch, nil
}

// createFenceTable creates master_epoch if need be, and adds the holder
// column to one from before it.
func createFenceTable(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS master_epoch (
		id INTEGER PRIMARY KEY CHECK (id = 1),
		epoch BIGINT NOT NULL,
		holder TEXT NOT NULL DEFAULT '')`); err != nil {
		return fmt.Errorf("master lock: create the fencing table: %w", err)
	}
	// Checked first: ALTER TABLE takes its lock even when the column is
	// there, and would queue every write behind the old master's.
	var has bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'master_epoch'::regclass AND attname = 'holder' AND NOT attisdropped)`).Scan(&has); err != nil {
		return fmt.Errorf("master lock: read the fencing table: %w", err)
	}
	if !has {
		if _, err := conn.Exec(ctx, `ALTER TABLE master_epoch ADD COLUMN IF NOT EXISTS holder TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("master lock: add the fencing holder: %w", err)
		}
	}
	return nil
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

// errUnsettled says that a write found an epoch that this master did
// not set as far as it knows, while its lock session is down: it may be
// its own increment whose reply was lost, or another master's. Nothing
// was written; taking the lock back decides (bumpEpoch).
var errUnsettled = errors.New("the master epoch moved while this master's lock session was down, so nothing was written; taking the lock back tells whether another master took over")

// settle decides what a write that found epoch, and has ended its
// transaction, fails with: errRetaken when the epoch is this master's
// own (set as it took the lock back, under mu); errUnsettled when it is
// later but the lock session is down (the next taking back decides);
// else the loss of the lock for good, as another master has taken over:
// while this master holds its session, it made no increment it does not
// know of.
func (l *masterLock) settle(epoch int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr != nil {
		return l.lostErr
	}
	if epoch <= l.epoch {
		return errRetaken
	}
	if l.conn == nil {
		return errUnsettled
	}
	l.lose(fmt.Errorf("%w: the master epoch is %d, this master's %d", ErrFenced, epoch, l.epoch))
	return l.lostErr
}
