package sched

import (
	"slices"
	"strings"
	"testing"
)

// TestEASY is the textbook EASY example on four single-slot nodes: a
// running job holds two nodes until t=100; the head needs all four; a
// short job backfills, a long one would delay the head.
func TestEASY(t *testing.T) {
	build := func(t *testing.T, nodes int) (*cluster, int) {
		b := newCluster(t).pool("p", PolicyBackfill).nodes("p", nodes, 1, "")
		r := b.job("r", slots(2), waiting(0), timeLimit(100))
		b.running(r, start(0), on("p-1", 1), on("p-2", 1))
		head := b.job("head", slots(4), timeLimit(100), submit(1))
		return b, head
	}
	t.Run("short job backfills, long job would delay", func(t *testing.T) {
		b, head := build(t, 4)
		short := b.job("short", timeLimit(50), submit(2))
		long := b.job("long", timeLimit(200), submit(3))
		nolimit := b.job("nolimit", submit(4))
		s := b.snapshot()
		p := mustSchedule(t, s)
		pe := mustPending(t, s, &p, head, ReasonReserved)
		if pe.At != 100 {
			t.Fatalf("head reserved at %d, want the shadow time 100", pe.At)
		}
		if m := pe.Message(s); !strings.Contains(m, "in "+HumanDuration(100-s.Now)) {
			t.Errorf("message %q does not give the reserved time", m)
		}
		sts := startsOf(&p, short)
		if len(sts) != 1 || !sts[0].Backfill {
			t.Fatalf("short job not backfilled:\n%s", fmtPlan(s, &p))
		}
		if pl := mustPending(t, s, &p, long, ReasonWouldDelay); pl.Blocker != head {
			t.Fatalf("long blocker %d, want head", pl.Blocker)
		}
		if pl := mustPending(t, s, &p, nolimit, ReasonWouldDelay); pl.Blocker != head {
			t.Fatalf("nolimit blocker %d, want head", pl.Blocker)
		}
		if len(p.Starts) != 1 {
			t.Fatalf("starts:\n%s", fmtPlan(s, &p))
		}
	})
	t.Run("a long job on an extra node backfills", func(t *testing.T) {
		b, head := build(t, 5)
		long := b.job("long", timeLimit(200), submit(2))
		long2 := b.job("long2", timeLimit(200), submit(3))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if pe := mustPending(t, s, &p, head, ReasonReserved); pe.At != 100 {
			t.Fatalf("head reserved at %d, want 100", pe.At)
		}
		if sts := startsOf(&p, long); len(sts) != 1 || !sts[0].Backfill {
			t.Fatalf("long not backfilled on the extra node:\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, long2, ReasonWouldDelay)
	})
	t.Run("jobs before the head start normally", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyBackfill).nodes("p", 4, 1, "")
		first := b.job("first", timeLimit(30), submit(0))
		head := b.job("head", slots(4), timeLimit(100), submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if sts := startsOf(&p, first); len(sts) != 1 || sts[0].Backfill {
			t.Fatalf("first: %s", fmtPlan(s, &p))
		}
		// The head's reservation counts the task that just started.
		if pe := mustPending(t, s, &p, head, ReasonReserved); pe.At != 30 {
			t.Fatalf("head reserved at %d, want 30", pe.At)
		}
	})
	t.Run("no time limits: no reservation time, only a timed job backfills", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyBackfill).nodes("p", 4, 1, "")
		r := b.job("r", slots(2), waiting(0))
		b.running(r, start(0), on("p-1", 1), on("p-2", 1))
		head := b.job("head", slots(4), submit(1))
		short := b.job("short", timeLimit(50), submit(2))
		nolimit := b.job("nolimit", submit(3))
		s := b.snapshot()
		p := mustSchedule(t, s)
		pe := mustPending(t, s, &p, head, ReasonReserved)
		if pe.At != Never {
			t.Fatalf("head reserved at %d, want Never", pe.At)
		}
		if m := pe.Message(s); !strings.Contains(m, "no start time") {
			t.Errorf("message %q", m)
		}
		// Trial D13: with no shadow time, a job with a time limit delays
		// no reserved start (TestBackfillUnreservedHead).
		if sts := startsOf(&p, short); len(sts) != 1 || !sts[0].Backfill {
			t.Fatalf("short not backfilled:\n%s", fmtPlan(s, &p))
		}
		if pl := mustPending(t, s, &p, nolimit, ReasonWouldDelay); pl.At != Never {
			t.Fatalf("nolimit: %+v, want At Never", pl)
		}
	})
}

// TestConservative: every queued job gets a reservation, and a later job
// starts now only when that delays no earlier reservation.
func TestConservative(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 4, 1, "")
	r := b.job("r", slots(2), waiting(0), timeLimit(100))
	b.running(r, start(0), on("p-1", 1), on("p-2", 1))
	a := b.job("a", slots(4), timeLimit(100), submit(1))
	short := b.job("short", timeLimit(50), submit(2))
	long := b.job("long", timeLimit(200), submit(3))
	pair := b.job("pair", slots(2), timeLimit(100), submit(4))
	fits := b.job("fits", timeLimit(100), submit(5))
	s := b.snapshot()
	p := mustSchedule(t, s)
	// Profile: 2 slots free until 100, then 4. a is reserved at 100 for
	// [100,200); short fits in [0,50); long needs [t,t+200) with one slot,
	// which only exists from 200; pair needs 2 slots for 100s: from 200
	// (after long's reservation 3 are left); fits needs 1 for [0,100),
	// which the second idle slot gives.
	wantAt := map[int]int64{a: 100, long: 200, pair: 200}
	for j, at := range wantAt {
		pe := mustPending(t, s, &p, j, ReasonReserved)
		if pe.At != at {
			t.Errorf("%s reserved at %d, want %d", s.Jobs[j].ID, pe.At, at)
		}
	}
	if got := startIDs(s, &p); !slices.Equal(got, []string{"short", "fits"}) {
		t.Fatalf("starts %v, want [short fits]\n%s", got, fmtPlan(s, &p))
	}
	mustNotPending(t, s, &p, short)
	mustNotPending(t, s, &p, fits)
}
