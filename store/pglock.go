package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrLocked says that another master holds the database's master lock.
var ErrLocked = errors.New("another allot master holds the database")

// masterLockClass is the first key of the master lock, a PostgreSQL
// session-level advisory lock on (masterLockClass, hash of the schema):
// "allt" in ASCII. The second key keeps installations in different
// schemas of one database (and parallel tests) apart.
const masterLockClass = 0x616c6c74

// Lock timings. The check interval bounds how long a master goes on
// after its lock session alone was cut while the server stayed up (a
// restart of the server is caught before the next write, see verify);
// none of its writes commits once another master has taken the lock
// (the fencing epoch, pgfence.go).
var (
	lockCheckEvery atomic.Int64 // nanoseconds; set by init, tests shorten or lengthen it
	lockOpenWait   = 2 * time.Second
	lockMaxBackoff = 15 * time.Second
)

func init() { lockCheckEvery.Store(int64(time.Second)) }

var lockSeq atomic.Int64

// masterLock holds the master lock on a connection of its own, outside the
// pool, for the life of the store. verify and ensure gate the store's new
// connections and writes on it; watch notices a lost session and takes
// the lock back when the server returns, or declares it lost for good
// when another master took it in between.
type masterLock struct {
	cfg  *pgx.ConnConfig // the lock connection's: application_name set
	name string          // that application_name: "allot-master HOST:PID#N"
	// holder is what this master writes in the fencing row as it takes
	// the lock: name and a random token, unique even where two hosts
	// share a name and PID (containers).
	holder string
	db     string // the database, without its password, for messages

	mu   sync.Mutex
	conn *pgx.Conn // the session holding the lock; nil when not held
	held atomic.Bool
	// epoch is the fencing epoch this master set when it last took the
	// lock (pgfence.go), 0 before; guarded by mu, and mirrored in
	// epochNow for the writes' check, which reads it without mu.
	epoch    int64
	epochNow atomic.Int64
	// lost is closed, and lostErr set, when another master took the lock.
	lost    chan struct{}
	lostErr error
	stop    chan struct{}
	done    chan struct{}
	closing sync.Once
}

func newMasterLock(cfg *pgx.ConnConfig, db string) *masterLock {
	host, _ := os.Hostname()
	if len(host) > 32 {
		host = host[:32] // application_name is cut at 63 bytes
	}
	name := fmt.Sprintf("allot-master %s:%d#%d", host, os.Getpid(), lockSeq.Add(1))
	cfg = cfg.Copy()
	cfg.RuntimeParams["application_name"] = name
	token := make([]byte, 8)
	rand.Read(token) // never fails (crypto/rand)
	return &masterLock{cfg: cfg, name: name, db: db, holder: name + " " + hex.EncodeToString(token),
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
}

// take acquires the lock at Open, waiting a moment for a holder that is
// going away (the session of a master killed just before), and starts
// watching it.
func (l *masterLock) take(ctx context.Context) error {
	deadline := time.Now().Add(lockOpenWait)
	for {
		l.mu.Lock()
		err := l.acquire(ctx)
		l.mu.Unlock()
		if err == nil {
			go l.watch(time.Duration(lockCheckEvery.Load()))
			return nil
		}
		if !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// acquire connects and tries the lock once; l.mu is held.
func (l *masterLock) acquire(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return fmt.Errorf("master lock: connect: %w", err)
	}
	key, ok, err := tryLock(ctx, conn)
	if err == nil && !ok {
		err = l.lockedError(ctx, conn, key)
	}
	var epoch int64
	if err == nil {
		// Taking it back, the row must still name this master: another
		// master that held the lock in between may have written, and
		// this one's state is stale, as when it finds the lock taken.
		epoch, err = bumpEpoch(ctx, conn, l.holder, l.epoch != 0)
	}
	if err != nil {
		conn.Close(context.Background())
		return err
	}
	l.conn = conn
	l.epoch = epoch
	l.epochNow.Store(epoch)
	l.held.Store(true)
	return nil
}

// tryLock takes the lock of the session's schema if it is free.
func tryLock(ctx context.Context, conn *pgx.Conn) (key int32, ok bool, err error) {
	var current *string
	var schema, db string
	if err := conn.QueryRow(ctx, "SELECT current_schema(), current_setting('search_path'), current_database()").
		Scan(&current, &schema, &db); err != nil {
		return 0, false, fmt.Errorf("master lock: read the schema: %w", err)
	}
	if current == nil {
		// Every table would fail to be made, with PostgreSQL's "no
		// schema has been selected to create in", which names neither.
		create := "CREATE SCHEMA ..."
		if name := strings.Trim(strings.TrimSpace(schema), `"`); name != "" && !strings.ContainsAny(name, ",$") {
			create = "CREATE SCHEMA " + name
		}
		return 0, false, fmt.Errorf("the DSN's search_path %q names no schema that exists in database %q: "+
			"create the schema (%s) or fix search_path in the DSN (?search_path=NAME)", schema, db, create)
	}
	h := fnv.New32a()
	h.Write([]byte(*current))
	key = int32(h.Sum32() & 0x7fffffff)
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1::int4, $2::int4)", int32(masterLockClass), key).Scan(&ok); err != nil {
		return 0, false, fmt.Errorf("master lock: %w", err)
	}
	return key, ok, nil
}

// lockedError says who holds the lock, as far as the server tells us (a
// role that is neither superuser nor pg_read_all_stats sees no client
// address or name of another role's sessions).
func (l *masterLock) lockedError(ctx context.Context, conn *pgx.Conn, key int32) error {
	var pid int32
	var app, addr *string
	var since *time.Time
	err := conn.QueryRow(ctx, `SELECT l.pid, a.application_name, host(a.client_addr), a.backend_start
		FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
		  AND l.classid = $1::int8::oid AND l.objid = $2::int8::oid
		  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		LIMIT 1`, int64(masterLockClass), int64(key)).Scan(&pid, &app, &addr, &since)
	holder := "an unknown session"
	if err == nil {
		holder = "server process " + strconv.Itoa(int(pid))
		if app != nil && *app != "" {
			holder += fmt.Sprintf(" (%q", *app)
			if addr != nil {
				holder += " from " + *addr
			}
			if since != nil {
				holder += ", connected " + since.UTC().Format(time.RFC3339)
			}
			holder += ")"
		}
	}
	if app != nil && *app == l.name {
		// Our own session from before a network cut, not yet noticed by
		// the server: not another master. It goes when the server sees the
		// connection dead; until then, wait as if the database were down.
		return fmt.Errorf("master lock on %s: still held by this master's previous session, %s", l.db, holder)
	}
	return fmt.Errorf("%w: its master lock is held by %s; stop that master first, or give this one another database or schema",
		ErrLocked, holder)
}

// verify makes sure that the lock is held, by asking the server: every
// new connection of the store's pool goes through it, so after a restart
// of the server (which drops the lock with every connection) nothing is
// written before the lock is taken back.
func (l *masterLock) verify(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr != nil {
		return l.lostErr
	}
	if l.conn != nil {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := l.conn.Ping(pctx)
		cancel()
		if err == nil {
			return nil
		}
		l.drop()
	}
	return l.reacquire(ctx)
}

// ensure is the gate of every write: it asks the server only when the
// lock is known to be missing.
func (l *masterLock) ensure(ctx context.Context) error {
	if l.held.Load() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr != nil {
		return l.lostErr
	}
	if l.conn != nil {
		return nil
	}
	return l.reacquire(ctx)
}

// reacquire takes the lock back after losing its session; l.mu is held.
// Another master holding it now, or having held it in between (the
// fencing epoch moved on), is final: this one must stop.
func (l *masterLock) reacquire(ctx context.Context) error {
	err := l.acquire(ctx)
	if errors.Is(err, ErrLocked) {
		l.lose(err)
		return l.lostErr
	}
	return err
}

// lose declares the lock lost for good with cause, which matches
// ErrLocked: every write fails from now on and LockLost reports it.
// l.mu is held.
func (l *masterLock) lose(cause error) {
	if l.lostErr != nil {
		return
	}
	l.lostErr = fmt.Errorf("lost the master lock on %s: %w", l.db, cause)
	l.held.Store(false)
	close(l.lost)
}

// drop forgets a dead lock session; l.mu is held.
func (l *masterLock) drop() {
	l.held.Store(false)
	l.conn.Close(context.Background())
	l.conn = nil
}

// watch checks the lock session now and then, and takes the lock back,
// backing off, while the database is away.
func (l *masterLock) watch(every time.Duration) {
	defer close(l.done)
	wait := every
	for {
		select {
		case <-l.stop:
			return
		case <-time.After(wait):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := l.verify(ctx)
		cancel()
		switch {
		case err == nil:
			wait = every
		case errors.Is(err, ErrLocked):
			return
		default:
			wait = min(2*wait, max(lockMaxBackoff, every))
		}
	}
}

// close stops the watch and ends the lock session, which releases it.
// Closing twice does nothing more.
func (l *masterLock) close() {
	l.closing.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.conn != nil {
			l.drop()
		}
	})
}

// LockLost returns a channel that receives an error matching ErrLocked
// when s, a PostgreSQL store, has lost its master lock to another master
// for good (after the database came back, the other took it first). The
// master must then stop: the store refuses every write from then on. For
// other stores, and once s is closed, nothing is ever sent.
func LockLost(s Store) <-chan error {
	ss, ok := s.(*sqlStore)
	if !ok || ss.lock == nil {
		return nil
	}
	l := ss.lock
	out := make(chan error, 1)
	go func() {
		select {
		case <-l.lost:
			l.mu.Lock()
			out <- l.lostErr
			l.mu.Unlock()
		case <-l.stop:
		}
	}()
	return out
}
