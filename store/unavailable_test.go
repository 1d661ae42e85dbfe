package store

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/allot-sched/allot/store/pgtest"
)

func TestIsUnavailable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "connect: connection refused"}}
	pg := func(code string) error { return &pgconn.PgError{Severity: "FATAL", Code: code, Message: "m"} }
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"ErrUnavailable wrapped", fmt.Errorf("read jobs: %w", ErrUnavailable), true},
		{"admin shutdown 57P01", fmt.Errorf("authenticate: read credential: %w", pg("57P01")), true},
		{"crash shutdown 57P02", pg("57P02"), true},
		{"starting up 57P03", pg("57P03"), true},
		{"connection failure 08006", pg("08006"), true},
		{"cannot connect 08001", pg("08001"), true},
		{"protocol violation 08P01", pg("08P01"), false},
		{"unique violation 23505", pg("23505"), false},
		{"wrong password 28P01", pg("28P01"), false},
		{"no such database 3D000", pg("3D000"), false},
		{"query canceled 57014", pg("57014"), false},
		{"dial refused", fmt.Errorf("store transaction: begin: %w", refused), true},
		{"ECONNREFUSED", fmt.Errorf("x: %w", syscall.ECONNREFUSED), true},
		{"ECONNRESET", fmt.Errorf("x: %w", syscall.ECONNRESET), true},
		{"DNS", &net.DNSError{Err: "no such host", Name: "db"}, true},
		{"conn closed", fmt.Errorf("store logs: %w", pgconn.ErrConnClosed), true},
		{"bad conn", driver.ErrBadConn, true},
		{"unexpected EOF", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), true},
		{"not found", ErrNotFound, false},
		{"conflict", &ConflictError{What: "job 1"}, false},
		{"context canceled", context.Canceled, false},
		{"a plain error", errors.New("disk I/O error"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := IsUnavailable(c.err); got != c.want {
				t.Fatalf("IsUnavailable(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}

// TestIsUnavailableOfARealDial: the error pgx gives for a port where
// nothing listens is one.
func TestIsUnavailableOfARealDial(t *testing.T) {
	dsn := "postgres://allot:secret@127.0.0.1:" + closedPort(t) + "/allot?sslmode=disable&connect_timeout=5"
	_, err := Open(context.Background(), dsn, "")
	if err == nil || !IsUnavailable(err) {
		t.Fatalf("open against a closed port: %v, want an unavailable error", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Fatalf("the error shows the password: %v", err)
	}
}

// closedPort is a port on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return port
}

// fakeClock is the wait loop's clock: sleeping moves it on.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) sleep(_ context.Context, d time.Duration) error {
	c.now = c.now.Add(d)
	return nil
}

func TestOpenerWaits(t *testing.T) {
	down := fmt.Errorf("open postgres store postgres://db/allot: %w", &pgconn.ConnectError{})
	refused := fmt.Errorf("master lock: %w", errors.New("its master lock is held by another master"))
	for _, c := range []struct {
		name      string
		fails     int   // tries that fail with fail
		fail      error // the failure of those tries
		wait      time.Duration
		wantTries int
		wantErr   string
		wantDelay []time.Duration // the sleeps between tries
	}{
		{name: "up at once", wait: time.Minute, wantTries: 1},
		{name: "up after four tries", fails: 4, fail: down, wait: time.Minute, wantTries: 5,
			wantDelay: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{name: "gives up at the wait", fails: 100, fail: down, wait: 40 * time.Second, wantTries: 7,
			wantErr:   "gave up waiting for the database after 40s and 7 tries (--db-wait 40s",
			wantDelay: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second, 10 * time.Second}},
		{name: "a refusal is not waited for", fails: 1, fail: refused, wait: time.Minute, wantTries: 1,
			wantErr: "held by another master"},
		{name: "no wait tries once", fails: 1, fail: down, wait: 0, wantTries: 1, wantErr: "gave up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)}
			var logs bytes.Buffer
			var slept []time.Duration
			tries := 0
			var told []time.Time
			o := opener{
				open: func(context.Context) (Store, error) {
					tries++
					if tries <= c.fails {
						return nil, c.fail
					}
					return nil, nil
				},
				now: clock.Now,
				sleep: func(ctx context.Context, d time.Duration) error {
					slept = append(slept, d)
					return clock.sleep(ctx, d)
				},
				log:  slog.New(slog.NewTextHandler(&logs, nil)),
				what: "postgres://db/allot",
				tell: func(at time.Time, err error) {
					if !errors.Is(err, c.fail) {
						t.Errorf("told of %v, want %v", err, c.fail)
					}
					told = append(told, at)
				},
			}
			_, err := o.run(context.Background(), c.wait)
			if tries != c.wantTries {
				t.Errorf("%d tries, want %d", tries, c.wantTries)
			}
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("error %v, want one with %q", err, c.wantErr)
			}
			if fmt.Sprint(slept) != fmt.Sprint(c.wantDelay) {
				t.Errorf("slept %v, want %v", slept, c.wantDelay)
			}
			if len(told) != len(c.wantDelay) {
				t.Errorf("told of %d failed tries (%v), want one per retry (%d)", len(told), told, len(c.wantDelay))
			}
			if n := strings.Count(logs.String(), "waiting for the database"); n != len(c.wantDelay) {
				t.Errorf("%d waiting lines, want one per retry (%d):\n%s", n, len(c.wantDelay), logs.String())
			}
		})
	}
}

// TestOpenWaitsForPostgres: a master started while PostgreSQL is down
// opens its store once the server is up, within --db-wait.
func TestOpenWaitsForPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	dsn, err := srv.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	type opened struct {
		s   Store
		err error
	}
	done := make(chan opened, 1)
	go func() {
		s, err := OpenWait(context.Background(), dsn, "", 30*time.Second, log, nil)
		done <- opened{s, err}
	}()
	time.Sleep(1500 * time.Millisecond) // a try or two fail first
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatalf("OpenWait: %v\n%s", o.err, logs.String())
		}
		defer o.s.Close()
		if err := o.s.Ping(context.Background(), time.Now()); err != nil {
			t.Fatalf("ping after the wait: %v", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("OpenWait did not return within 40s")
	}
	if !strings.Contains(logs.String(), "waiting for the database") || !strings.Contains(logs.String(), "the database answered") {
		t.Fatalf("the log does not say it waited:\n%s", logs.String())
	}
}
