package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testConfigChanges: a reload's changes are listed in their order for a
// window that holds the reload, oldest reload first, and for no other;
// recording the same reload again replaces them; an empty one is refused.
func testConfigChanges(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	later := t0.Add(10 * time.Minute)
	if err := s.RecordConfigChanges(ctx, later, []string{"pool a: policy fifo → backfill", "pool b removed"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordConfigChanges(ctx, t0, []string{"pool hpc: reservations easy → conservative"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordConfigChanges(ctx, later, []string{"pool a: policy fifo → priority", "pool b removed"}); err != nil {
		t.Fatalf("record again: %v", err)
	}
	if err := s.RecordConfigChanges(ctx, t0, []string{""}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an empty change: %v, want ErrInvalid", err)
	}
	cases := []struct {
		name        string
		from, until time.Time
		want        []string
	}{
		{"both reloads", t0.Add(-time.Hour), t0.Add(time.Hour),
			[]string{"pool hpc: reservations easy → conservative", "pool a: policy fifo → priority", "pool b removed"}},
		{"the second only", t0.Add(time.Minute), later, []string{"pool a: policy fifo → priority", "pool b removed"}},
		{"none", t0.Add(time.Minute), t0.Add(9 * time.Minute), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.ConfigChanges(ctx, c.from, c.until)
			if err != nil {
				t.Fatal(err)
			}
			var whats []string
			for _, g := range got {
				whats = append(whats, g.What)
			}
			if !slices.Equal(whats, c.want) {
				t.Fatalf("changes %q, want %q", whats, c.want)
			}
			if len(got) > 0 && !got[0].At.Equal(t0) && !got[0].At.Equal(later) {
				t.Errorf("first change at %s, want a reload's time", got[0].At)
			}
		})
	}
}
