package store

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/allot-sched/allot/plural"
)

// DefaultOpenWait is how long OpenWait waits for a PostgreSQL server that
// does not answer yet (the master's --db-wait): long enough for a
// database started with the same host, or restarted beside the master,
// to come up; short enough that a wrong address is reported while
// someone is still looking.
const DefaultOpenWait = 2 * time.Minute

// Backoff of OpenWait's tries: the first retry after openRetryFirst,
// doubling up to openRetryMax, so that the log gets a line per try at a
// rate an operator can read.
const (
	openRetryFirst = time.Second
	openRetryMax   = 15 * time.Second
)

// OpenWait opens the store as Open does, but waits for a PostgreSQL
// server that cannot be reached yet (IsUnavailable: connection refused,
// starting up, shutting down), retrying with backoff for up to wait and
// logging one line per failed try. Any other failure (a wrong password,
// a missing database, a master lock held by another master) is returned
// at once, as is every failure to open SQLite, a file the master opens
// itself. A wait of zero or less tries once. waiting, when not nil, is
// told of each failed try that will be retried, with its time, so that
// the master can say why it is not serving yet.
func OpenWait(ctx context.Context, dsn, dataDir string, wait time.Duration, log *slog.Logger,
	waiting func(time.Time, error)) (Store, error) {
	if !isPostgres(dsn) {
		return Open(ctx, dsn, dataDir)
	}
	w := opener{
		open:  func(ctx context.Context) (Store, error) { return Open(ctx, dsn, dataDir) },
		now:   time.Now,
		sleep: sleepCtx,
		log:   log,
		what:  redact(dsn),
		tell:  waiting,
	}
	return w.run(ctx, wait)
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// opener is OpenWait's loop, with the opening, the clock and the sleep
// its tests replace.
type opener struct {
	open  func(context.Context) (Store, error)
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	log   *slog.Logger
	what  string // the database, password hidden
	tell  func(time.Time, error)
}

func (o opener) run(ctx context.Context, wait time.Duration) (Store, error) {
	start := o.now()
	deadline := start.Add(wait)
	delay := openRetryFirst
	for try := 1; ; try++ {
		s, err := o.open(ctx)
		if err == nil {
			if try > 1 {
				o.log.Info("the database answered", "db", o.what, "waited", o.now().Sub(start).Round(time.Millisecond))
			}
			return s, nil
		}
		if !IsUnavailable(err) {
			return nil, err
		}
		left := deadline.Sub(o.now())
		if left <= 0 {
			return nil, fmt.Errorf("gave up waiting for the database after %s and %s (--db-wait %s; "+
				"is PostgreSQL running and listening there?): %w",
				o.now().Sub(start).Round(time.Second), plural.Count(try, "try"), wait, err)
		}
		delay = min(delay, left)
		if o.tell != nil {
			o.tell(o.now(), err)
		}
		o.log.Warn(fmt.Sprintf("waiting for the database: %v; retrying in %s", err, delay.Round(time.Millisecond)),
			"db", o.what, "try", try, "gives_up_in", left.Round(time.Second))
		if err := o.sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("waiting for the database %s: %w", o.what, err)
		}
		delay = min(2*delay, openRetryMax)
	}
}

// sleepCtx sleeps for d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
