package storetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testConcurrentUpdatesIsolateFailures runs many Updates at once, some of
// which fail, panic or exit their goroutine after writing: only their own
// writes may disappear.
func testConcurrentUpdatesIsolateFailures(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	const writers, each = 4, 12
	errBad := errors.New("bad update")
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				name := fmt.Sprintf("w%d-%d", w, i)
				mode := i % 4 // 0 ok, 1 error, 2 panic, 3 goexit
				err := updateOnce(ctx, s, name, mode, errBad)
				if (mode == 0) != (err == nil) {
					t.Errorf("update %s (mode %d): error %v", name, mode, err)
				}
			}
		}()
	}
	wg.Wait()
	jobs, err := s.Jobs(ctx, store.JobFilter{})
	if err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	kept := map[string]bool{}
	for _, j := range jobs {
		kept[j.Name] = true
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			name := fmt.Sprintf("w%d-%d", w, i)
			if kept[name] != (i%4 == 0) {
				t.Errorf("job %s stored: %v, want %v", name, kept[name], i%4 == 0)
			}
		}
	}
	if len(jobs) != writers*each/4 {
		t.Fatalf("%d jobs stored, want %d", len(jobs), writers*each/4)
	}
}

// updateOnce creates a job in an Update that then succeeds (mode 0),
// fails (1), panics (2) or calls runtime.Goexit (3), the last two on a
// goroutine of their own.
func updateOnce(ctx context.Context, s store.Store, name string, mode int, errBad error) error {
	fn := func(tx store.Tx) error {
		if _, err := tx.CreateJob(ctx, sampleJob(name), sampleTasks(1)); err != nil {
			return err
		}
		switch mode {
		case 1:
			return errBad
		case 2:
			panic(errBad)
		case 3:
			runtime.Goexit()
		}
		return nil
	}
	if mode < 2 {
		return s.Update(ctx, fn)
	}
	result := make(chan error, 1)
	go func() {
		defer func() {
			recover()
			result <- errBad // reached on panic and on Goexit alike
		}()
		s.Update(ctx, fn)
	}()
	return <-result
}

// testCanceledUpdate gives up on an Update that waits for a busy writer,
// and checks that the store carries on.
func testCanceledUpdate(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("busy"), 1)
	release, holding := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobRunning})
			close(holding)
			<-release
			return err
		})
	}()
	<-holding
	// This one waits on the first (for the row lock with PostgreSQL, for
	// the writer with SQLite) until its deadline.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err := s.Update(short, func(tx store.Tx) error {
		_, err := tx.TransitionJob(short, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled})
		return err
	})
	if err == nil {
		t.Fatal("an Update whose context expired while waiting succeeded")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the holding update failed: %v", err)
	}
	got, err := s.Job(ctx, job.ID)
	if err != nil || got.State != store.JobRunning {
		t.Fatalf("job %+v (error %v), want running: the canceled kill must not apply", got, err)
	}
	mustCreate(t, s, sampleJob("after"), 1)
}

// testPing: the write probe succeeds on a working store, again and again
// (the row is replaced, not added), and fails once the store is closed.
func testPing(t *testing.T, target Target) {
	ctx := ctxOf(t)
	s, err := store.Open(ctx, target.DSN, target.DataDir)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	for i := range 3 {
		if err := s.Ping(ctx, at(time.Duration(i)*time.Second)); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := s.Ping(ctx, at(time.Hour)); err == nil {
		t.Fatal("ping on a closed store succeeded")
	}
}
