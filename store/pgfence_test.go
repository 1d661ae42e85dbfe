package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// cutLockSession ends the session that holds store s's master lock, as a
// network cut of that one connection would, leaving its pool's alone.
func cutLockSession(t *testing.T, dsn string, s Store) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`,
		s.(*sqlStore).lock.name).Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminate the lock session: %d sessions, %v", n, err)
	}
	// The server ends the session after pg_terminate_backend returns;
	// until then the lock is still held and a take-back or a second
	// store would find it so.
	waitUnlocked(t, dsn, s.(*sqlStore).lock.name)
}

// openUnwatched opens a store on dsn whose lock watch is not due for an
// hour, so that only the test decides when the lock is checked again.
func openUnwatched(ctx context.Context, t *testing.T, dsn string) Store {
	t.Helper()
	old := lockCheckEvery.Swap(int64(time.Hour))
	s, err := Open(ctx, dsn, "")
	lockCheckEvery.Store(old)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

// TestFencingAfterTheLockSessionAloneIsCut: when only the master lock's
// session of a store is cut, its pool's connections alive and its watch
// not due yet, and a second store takes the database over meanwhile, the
// first's next write, of any kind, fails with ErrFenced (and ErrLocked),
// writes nothing, and LockLost reports it, while the second writes on.
// Without a second store, the first writes on. A second store that came
// and went is found as the first takes its lock back: the epoch moved by
// more than its own increment.
func TestFencingAfterTheLockSessionAloneIsCut(t *testing.T) {
	writes := []struct {
		name  string
		write func(ctx context.Context, s Store, job int64) error
	}{
		{"job submission (one statement)", func(ctx context.Context, s Store, _ int64) error {
			_, err := s.CreateJob(ctx, testJob("late"), make([]Task, 1))
			return err
		}},
		{"update with events", func(ctx context.Context, s Store, job int64) error {
			p := 7
			_, err := s.UpdateJob(ctx, JobUpdate{ID: job, Priority: &p})
			return err
		}},
		{"update without events", func(ctx context.Context, s Store, _ int64) error {
			return s.Ping(ctx, time.Unix(1, 0))
		}},
	}
	for _, w := range writes {
		for _, other := range []string{"none", "takes over", "came and went"} {
			t.Run(w.name+", other master: "+other, func(t *testing.T) {
				ctx := context.Background()
				dsn := pgtest.DSN(t)
				first := openUnwatched(ctx, t, dsn)
				defer first.Close()
				lost := LockLost(first)
				job, err := first.CreateJob(ctx, testJob("before"), make([]Task, 1)) // the pool's connection
				if err != nil {
					t.Fatal(err)
				}
				cutLockSession(t, dsn, first)
				var second Store
				if other != "none" {
					if second, err = Open(ctx, dsn, ""); err != nil {
						t.Fatalf("open a second store: %v", err)
					}
					defer second.Close()
				}
				if other == "came and went" {
					name := second.(*sqlStore).lock.name
					second.Close()
					waitUnlocked(t, dsn, name)
					err := first.(*sqlStore).lock.verify(ctx) // the watch's check
					if !errors.Is(err, ErrFenced) {
						t.Fatalf("taking the lock back after another master: %v, want ErrFenced", err)
					}
				}
				err = w.write(ctx, first, job.ID)
				if other == "none" {
					if err != nil {
						t.Fatalf("write with the lock session cut, no other master: %v", err)
					}
					return
				}
				if !errors.Is(err, ErrFenced) || !errors.Is(err, ErrLocked) {
					t.Fatalf("the first store's write after another master took over: %v, want ErrFenced", err)
				}
				if err := <-lost; !errors.Is(err, ErrFenced) {
					t.Fatalf("LockLost gave %v, want ErrFenced", err)
				}
				if err := w.write(ctx, first, job.ID); !errors.Is(err, ErrLocked) {
					t.Fatalf("a later write: %v, want ErrLocked", err)
				}
				checkUnwritten(ctx, t, dsn, job.ID)
				if other == "takes over" {
					if err := w.write(ctx, second, job.ID); err != nil {
						t.Fatalf("the second store cannot write: %v", err)
					}
				}
			})
		}
	}
}

// testJob is a job of one task named name.
func testJob(name string) Job {
	return Job{Name: name, Kind: KindCommand, Project: "p", User: "u", Pool: "default", Priority: 1,
		Weight: 1, Slots: 1, Entrypoint: "true"}
}

// checkUnwritten checks that none of the fenced writes of
// TestFencingAfterTheLockSessionAloneIsCut was stored: no job "late",
// job's priority unchanged, no probe.
func checkUnwritten(ctx context.Context, t *testing.T, dsn string, job int64) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var late, changed, probes int
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM jobs WHERE name = 'late'),
		(SELECT count(*) FROM jobs WHERE id = $1 AND priority <> 1),
		(SELECT count(*) FROM store_probe)`, job).Scan(&late, &changed, &probes)
	if err != nil {
		t.Fatal(err)
	}
	if late+changed+probes != 0 {
		t.Fatalf("fenced writes stored: %d late jobs, %d priorities changed, %d probes", late, changed, probes)
	}
}

// TestFenceSettle: what a write that found an epoch other than the one
// it loaded fails with, once its transaction has ended: its own master's
// epoch, set as it took its lock back meanwhile, leaves the lock held
// (the write may be tried again); a later one, while the lock session is
// held, is another master's, and the lock is lost for good; a later one
// while the session is down may be this master's own increment whose
// reply was lost: nothing is decided until the lock is taken back.
func TestFenceSettle(t *testing.T) {
	for _, c := range []struct {
		name      string
		found     int64 // this master's epoch is 3
		sessionUp bool
		want      error // nil: the lock is lost
	}{
		{"this master's own, set since", 3, true, errRetaken},
		{"an older one of this master's", 2, true, errRetaken},
		{"another master's", 4, true, nil},
		{"a later one, the lock session down", 4, false, errUnsettled},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newMasterLock(&pgx.ConnConfig{Config: pgconn.Config{RuntimeParams: map[string]string{}}}, "db")
			l.epoch = 3
			l.epochNow.Store(3)
			if c.sessionUp {
				l.conn = new(pgx.Conn) // settle only looks whether there is one
			}
			if err := l.checkEpoch(3); err != nil {
				t.Fatalf("the epoch loaded: %v", err)
			}
			err := l.settle(c.found)
			if c.want != nil {
				if !errors.Is(err, c.want) || errors.Is(err, ErrLocked) || l.lostErr != nil {
					t.Fatalf("settle: %v (lost: %v), want %v, the lock kept", err, l.lostErr, c.want)
				}
				return
			}
			select {
			case <-l.lost:
			default:
				t.Fatal("the lock is not declared lost")
			}
			if !errors.Is(err, ErrFenced) || !errors.Is(err, ErrLocked) || l.held.Load() {
				t.Fatalf("settle: %v (held %v), want ErrFenced", err, l.held.Load())
			}
		})
	}
}
