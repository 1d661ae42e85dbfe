package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
)

// cutProxy forwards TCP connections to a PostgreSQL server. Armed with a
// marker, it passes on the first request from a client that holds it,
// then drops the server's reply and cuts that connection on both sides,
// as a network cut right after the server sent its reply would: the
// server has done (and, for a statement outside a transaction,
// committed) what it answers, and the client never learns it.
// PostgreSQL sends its reply when it is ready for the next query, after
// the commit.
type cutProxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu     sync.Mutex
	marker []byte
	cuts   int
}

func startCutProxy(t *testing.T, dsn string) (*cutProxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{t: t, ln: ln, target: u.Host}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	u.Host = ln.Addr().String()
	return p, u.String()
}

// arm makes the proxy cut the next connection whose server sends marker.
func (p *cutProxy) arm(marker string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker = []byte(marker)
}

// cut reports how many connections the proxy has cut.
func (p *cutProxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

func (p *cutProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		var cutNext atomic.Bool
		go p.requests(client, server, &cutNext)
		go p.replies(client, server, &cutNext)
	}
}

// requests forwards what client sends to server, noting the marker.
func (p *cutProxy) requests(client, server net.Conn, cutNext *atomic.Bool) {
	defer server.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if p.marker != nil && bytes.Contains(buf[:n], p.marker) {
				p.marker = nil
				cutNext.Store(true) // before the server can answer
			}
			p.mu.Unlock()
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// replies forwards what server sends to client until the reply to the
// marked request, which it drops, cutting both.
func (p *cutProxy) replies(client, server net.Conn, cutNext *atomic.Bool) {
	defer client.Close()
	defer server.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 && cutNext.Load() {
			p.mu.Lock()
			p.cuts++
			p.mu.Unlock()
			return
		}
		if n > 0 {
			if _, err := client.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// fenceRow reads the fencing row: its epoch and holder.
func fenceRow(t *testing.T, dsn string) (epoch int64, holder string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT epoch, holder FROM master_epoch WHERE id = 1`).Scan(&epoch, &holder); err != nil {
		t.Fatal(err)
	}
	return epoch, holder
}

// waitUnlocked waits until no session named name holds a master lock:
// the server ends a cut session when it reads its end.
func waitUnlocked(t *testing.T, dsn, name string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); holdsLock(t, dsn, name); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("session %q still holds the lock a minute after its cut or close", name)
		}
	}
}

// namedJobs counts the jobs named name.
func namedJobs(t *testing.T, dsn, name string) int {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM jobs WHERE name = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTakeoverAfterALostReply: a master whose own increment of the
// fencing epoch commits but whose reply is lost (the connection cut
// right after the commit) finds its own name in the row as it takes the
// lock again, and goes on writing; a restarted master's Open does the
// same after such a loss at Open. Another master that took over in
// between, or came and went, is found as before: the first fails its
// writes with ErrLocked or ErrFenced, writes nothing, LockLost says so,
// and it closes cleanly.
func TestTakeoverAfterALostReply(t *testing.T) {
	for _, c := range []struct {
		name  string
		other string // another master: "none", "takes over", "came and went"
	}{
		{"taking the lock back, alone", "none"},
		{"taking the lock back, another master takes over", "takes over"},
		{"taking the lock back, another master came and went", "came and went"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := pgtest.DSN(t)
			proxy, via := startCutProxy(t, dsn)
			first := openUnwatched(ctx, t, via)
			defer first.Close()
			l := first.(*sqlStore).lock
			lost := LockLost(first)
			job, err := first.CreateJob(ctx, testJob("before"), make([]Task, 1))
			if err != nil {
				t.Fatal(err)
			}
			proxy.arm(l.holder) // sent with the increment
			cutLockSession(t, dsn, first)
			if err := l.verify(ctx); err == nil || errors.Is(err, ErrLocked) {
				t.Fatalf("taking the lock back, its reply lost: %v, want an error, not ErrLocked", err)
			}
			if epoch, holder := fenceRow(t, dsn); proxy.cut() != 1 || epoch != 2 || holder != l.holder {
				t.Fatalf("after the lost reply: %d cuts, epoch %d by %q; want 1 cut, epoch 2 by %q", proxy.cut(), epoch, holder, l.holder)
			}
			waitUnlocked(t, dsn, l.name)
			var second Store
			if c.other != "none" {
				if second, err = Open(ctx, dsn, ""); err != nil {
					t.Fatalf("open a second store: %v", err)
				}
				defer second.Close()
			}
			if c.other == "came and went" {
				name := second.(*sqlStore).lock.name
				second.Close()
				waitUnlocked(t, dsn, name)
			}
			_, err = first.CreateJob(ctx, testJob("late"), make([]Task, 1))
			if c.other == "none" {
				if err != nil {
					t.Fatalf("write after its own lost increment: %v", err)
				}
				if epoch, holder := fenceRow(t, dsn); epoch != 3 || holder != l.holder || l.epochNow.Load() != 3 {
					t.Fatalf("epoch %d by %q, the store's %d; want 3, its own", epoch, holder, l.epochNow.Load())
				}
				checkStillLocked(ctx, t, dsn, lost)
				return
			}
			want := ErrLocked
			if c.other == "came and went" {
				want = ErrFenced
			}
			if !errors.Is(err, want) {
				t.Fatalf("write after another master took over: %v, want %v", err, want)
			}
			if err := <-lost; !errors.Is(err, want) {
				t.Fatalf("LockLost gave %v, want %v", err, want)
			}
			p := 9
			if _, err := first.UpdateJob(ctx, JobUpdate{ID: job.ID, Priority: &p}); !errors.Is(err, ErrLocked) {
				t.Fatalf("a later write: %v, want ErrLocked", err)
			}
			checkUnwritten(ctx, t, dsn, job.ID)
			if err := first.Close(); err != nil {
				t.Fatalf("closing the fenced store: %v", err)
			}
			if c.other == "takes over" {
				if _, err := second.CreateJob(ctx, testJob("second's"), make([]Task, 1)); err != nil {
					t.Fatalf("the second store cannot write: %v", err)
				}
			}
		})
	}
}

// checkStillLocked checks that the store whose LockLost is lost kept its
// lock: a second store is refused.
func checkStillLocked(ctx context.Context, t *testing.T, dsn string, lost <-chan error) {
	t.Helper()
	if s, err := Open(ctx, dsn, ""); !errors.Is(err, ErrLocked) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("a second store: %v, want ErrLocked", err)
	}
	select {
	case err := <-lost:
		t.Fatalf("LockLost gave %v", err)
	default:
	}
}

// TestOpenAfterALostReply: a master whose increment at Open commits but
// whose reply is lost fails to open, and opens when started again.
func TestOpenAfterALostReply(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	proxy, via := startCutProxy(t, dsn)
	// The next lock's holder: "allot-master HOST:PID#N TOKEN", sent with
	// the increment; the space after N is in no other request.
	proxy.arm(fmt.Sprintf(":%d#%d ", os.Getpid(), lockSeq.Load()+1))
	if s, err := Open(ctx, via, ""); err == nil || errors.Is(err, ErrLocked) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("open, the increment's reply lost: %v, want an error, not ErrLocked", err)
	}
	if epoch, holder := fenceRow(t, dsn); proxy.cut() != 1 || epoch != 1 || holder == "" {
		t.Fatalf("after the lost reply: %d cuts, epoch %d by %q; want 1 cut, epoch 1 by the failed store", proxy.cut(), epoch, holder)
	}
	s, err := Open(ctx, via, "")
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	defer s.Close()
	if _, err := s.CreateJob(ctx, testJob("after"), make([]Task, 1)); err != nil {
		t.Fatalf("write: %v", err)
	}
	if epoch, holder := fenceRow(t, dsn); epoch != 2 || holder != s.(*sqlStore).lock.holder {
		t.Fatalf("epoch %d by %q; want 2 by the store opened again", epoch, holder)
	}
}

// TestTwoMastersRaceToTakeOver: a master whose lock session was cut and
// a new one take the lock at once; whichever wins writes, and the other
// writes nothing: its writes fail with ErrLocked (the first's LockLost
// says so), or it does not open.
func TestTwoMastersRaceToTakeOver(t *testing.T) {
	for round := range 4 {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			ctx := context.Background()
			dsn := pgtest.DSN(t)
			first := openUnwatched(ctx, t, dsn)
			defer first.Close()
			lost := LockLost(first)
			cutLockSession(t, dsn, first)
			var second Store
			var openErr error
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				second, openErr = Open(ctx, dsn, "")
			}()
			go func() {
				defer wg.Done()
				<-start
				first.(*sqlStore).lock.verify(ctx) // the watch's check; either outcome
			}()
			close(start)
			wg.Wait()
			if second != nil {
				defer second.Close()
			}
			firstErr := writeNamed(ctx, first, "first's")
			var secondErr error = openErr
			if openErr == nil {
				secondErr = writeNamed(ctx, second, "second's")
			}
			if (firstErr == nil) == (secondErr == nil) {
				t.Fatalf("first's write: %v; second: %v; want exactly one to write", firstErr, secondErr)
			}
			loser, loserErr := "first's", firstErr
			if firstErr == nil {
				loser, loserErr = "second's", secondErr
			} else if err := <-lost; !errors.Is(err, ErrLocked) {
				t.Fatalf("LockLost gave %v, want ErrLocked", err)
			}
			if !errors.Is(loserErr, ErrLocked) || namedJobs(t, dsn, loser) != 0 {
				t.Fatalf("the loser (%s) wrote %d jobs, error %v; want none, ErrLocked", loser, namedJobs(t, dsn, loser), loserErr)
			}
			t.Logf("the %s lost: %v", strings.TrimSuffix(loser, "'s"), loserErr)
		})
	}
}

// writeNamed is writeJob with a job named name.
func writeNamed(ctx context.Context, s Store, name string) error {
	var err error
	for try := 0; try < 5; try++ {
		if _, err = s.CreateJob(ctx, testJob(name), make([]Task, 1)); err == nil || errors.Is(err, ErrLocked) {
			return err
		}
	}
	return err
}
