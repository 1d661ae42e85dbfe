package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testOutages: a recorded outage is listed for every window it overlaps
// and for no other, oldest first; recording one of the same start again
// replaces it; one that ends before it starts is refused.
func testOutages(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	outs := []store.StoreOutage{
		{From: t0.Add(10 * time.Minute), Until: t0.Add(12 * time.Minute), Refused: 3},
		{From: t0, Until: t0.Add(time.Minute), Refused: 0},
	}
	for _, o := range outs {
		if err := s.RecordOutage(ctx, o); err != nil {
			t.Fatalf("record %+v: %v", o, err)
		}
	}
	again := store.StoreOutage{From: t0.Add(10 * time.Minute), Until: t0.Add(13 * time.Minute), Refused: 5}
	if err := s.RecordOutage(ctx, again); err != nil {
		t.Fatalf("record again: %v", err)
	}
	if err := s.RecordOutage(ctx, store.StoreOutage{From: t0, Until: t0.Add(-time.Second)}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an outage that ends before it starts: %v, want ErrInvalid", err)
	}
	cases := []struct {
		name        string
		from, until time.Time
		want        []store.StoreOutage
	}{
		{"both", t0.Add(-time.Hour), t0.Add(time.Hour), []store.StoreOutage{outs[1], again}},
		{"inside the second", t0.Add(11 * time.Minute), t0.Add(11 * time.Minute), []store.StoreOutage{again}},
		{"touching the first's end", t0.Add(time.Minute), t0.Add(2 * time.Minute), []store.StoreOutage{outs[1]}},
		{"between", t0.Add(2 * time.Minute), t0.Add(9 * time.Minute), nil},
		{"after", t0.Add(14 * time.Minute), t0.Add(time.Hour), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Outages(ctx, c.from, c.until)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("outages %+v, want %+v", got, c.want)
			}
			for i := range got {
				if !got[i].From.Equal(c.want[i].From) || !got[i].Until.Equal(c.want[i].Until) || got[i].Refused != c.want[i].Refused {
					t.Fatalf("outage %d: %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}
