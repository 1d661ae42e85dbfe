package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
)

// withPassword adds a password to dsn (the test servers trust every
// local connection and ignore it), so that messages can be checked not
// to show it.
func withPassword(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "s3cret")
	return u.String()
}

// TestMasterLockRefusesASecondStore: a second store on the database of
// an open one is refused, saying who holds it, until the first closes;
// another schema of the same database is another installation.
func TestMasterLockRefusesASecondStore(t *testing.T) {
	ctx := context.Background()
	dsn, other := withPassword(t, pgtest.DSN(t)), pgtest.DSN(t)
	first, err := Open(ctx, dsn, "")
	if err != nil {
		t.Fatalf("open the first store: %v", err)
	}
	firstName := first.(*sqlStore).lock.name
	steps := []struct {
		name    string
		dsn     string
		before  func()
		refused bool
	}{
		{"same database and schema", dsn, nil, true},
		{"another schema", other, nil, false},
		{"after the first closes", dsn, func() { first.Close() }, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.before != nil {
				st.before()
			}
			s, err := Open(ctx, st.dsn, "")
			if !st.refused {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("a second store opened on a database whose master lock is held")
			}
			msg := err.Error()
			for _, want := range []string{"another allot master holds the database", redact(dsn), firstName, "stop that master first"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if !errors.Is(err, ErrLocked) || strings.Contains(msg, "s3cret") {
				t.Errorf("error %q: want ErrLocked, without the password", msg)
			}
		})
	}
}

// writeJob is one write through the store; right after a restart of the
// server the pool's old connections fail first, so it tries a few times
// and returns the last error.
func writeJob(ctx context.Context, s Store) error {
	var err error
	for try := 0; try < 5; try++ {
		_, err = s.CreateJob(ctx, Job{Name: "j", Kind: KindCommand, Project: "p", User: "u", Pool: "default", Priority: 1,
			Weight: 1, Slots: 1, Entrypoint: "true"}, make([]Task, 1))
		if err == nil || errors.Is(err, ErrLocked) {
			return err
		}
	}
	return err
}

// holdsLock reports whether the session named name holds a master lock.
func holdsLock(t *testing.T, base, name string) bool {
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::int8::oid AND a.application_name = $2`,
		int64(masterLockClass), name).Scan(&n)
	return err == nil && n == 1
}

// TestMasterLockAcrossARestartOfTheServer: after PostgreSQL crashed and
// came back, a store takes its lock back before writing again (on its
// next new connection, or by its watch); if another store took the lock
// in between, it refuses every write and reports the loss.
func TestMasterLockAcrossARestartOfTheServer(t *testing.T) {
	cases := []struct {
		name  string
		every time.Duration // the watch's interval
		// other opens a second store in between; it must then win.
		other bool
		// wait for the watch to take the lock back before writing.
		waitWatch bool
	}{
		{name: "taken back before the next write", every: time.Hour},
		{name: "taken back by the watch", every: 100 * time.Millisecond, waitWatch: true},
		{name: "taken by another store meanwhile", every: time.Hour, other: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			srv := pgtest.Start(t, pgtest.Options{})
			dsn, err := srv.NewSchema()
			if err != nil {
				t.Fatal(err)
			}
			old := lockCheckEvery.Swap(int64(c.every))
			s, err := Open(ctx, dsn, "")
			lockCheckEvery.Store(old)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer s.Close()
			lost := LockLost(s)
			if err := srv.Kill(); err != nil {
				t.Fatal(err)
			}
			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			if c.waitWatch {
				deadline := time.Now().Add(time.Minute)
				for !holdsLock(t, srv.URL(), s.(*sqlStore).lock.name) {
					if time.Now().After(deadline) {
						t.Fatal("the watch did not take the lock back within a minute")
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			if c.other {
				second, err := Open(ctx, dsn, "")
				if err != nil {
					t.Fatalf("open a second store while the first lost its lock: %v", err)
				}
				defer second.Close()
				if err := writeJob(ctx, s); !errors.Is(err, ErrLocked) {
					t.Fatalf("the first store wrote %v after losing its lock; want ErrLocked", err)
				}
				if err := <-lost; !errors.Is(err, ErrLocked) {
					t.Fatalf("LockLost gave %v, want ErrLocked", err)
				}
				if err := writeJob(ctx, second); err != nil {
					t.Fatalf("the second store cannot write: %v", err)
				}
				return
			}
			if err := writeJob(ctx, s); err != nil {
				t.Fatalf("writing after the restart: %v", err)
			}
			if second, err := Open(ctx, dsn, ""); !errors.Is(err, ErrLocked) {
				if err == nil {
					second.Close()
				}
				t.Fatalf("a second store after the restart: error %v, want ErrLocked", err)
			}
			select {
			case err := <-lost:
				t.Fatalf("LockLost gave %v though the lock was taken back", err)
			default:
			}
		})
	}
}
