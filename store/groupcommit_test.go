package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestWaitingUpdatesShareOneTransaction holds the SQLite writer while
// five Updates queue up, then checks that all six ran in one transaction,
// and that the next Update after them gets a new one.
func TestWaitingUpdatesShareOneTransaction(t *testing.T) {
	s := openRaw(t, "", t.TempDir())
	ctx := context.Background()
	txOf := func(tx Tx) *sql.Tx { return tx.(*ops).q.(cachedTx).tx }
	release, holding := make(chan struct{}), make(chan *sql.Tx, 1)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs <- s.Update(ctx, func(tx Tx) error {
			holding <- txOf(tx)
			<-release
			return nil
		})
	}()
	first := <-holding
	seen := make(chan *sql.Tx, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Update(ctx, func(tx Tx) error {
				seen <- txOf(tx)
				_, err := tx.UpsertNode(ctx, Node{Name: fmt.Sprintf("n%d", i)})
				return err
			})
		}()
	}
	waitFor(t, func() bool {
		s.group.mu.Lock()
		defer s.group.mu.Unlock()
		return s.group.waiting == 5
	})
	close(release)
	wg.Wait()
	close(errs)
	close(seen)
	for err := range errs {
		if err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	for tx := range seen {
		if tx != first {
			t.Fatal("a queued update ran in a transaction of its own, want the holder's")
		}
	}
	if nodes, err := s.Nodes(ctx); err != nil || len(nodes) != 5 {
		t.Fatalf("%d nodes after the group committed (error %v), want 5", len(nodes), err)
	}
	var next *sql.Tx
	if err := s.Update(ctx, func(tx Tx) error { next = txOf(tx); return nil }); err != nil || next == first {
		t.Fatalf("update after the group: error %v, same transaction %v; want a new one", err, next == first)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 30s")
		}
		time.Sleep(time.Millisecond)
	}
}
