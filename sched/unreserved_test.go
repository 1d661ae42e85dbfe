package sched

import (
	"slices"
	"strings"
	"testing"
)

// TestBackfillUnreservedHead is trial finding D13: a 4-slot node where r
// runs on 2 slots with no time limit, and the head needs all 4, so no
// start can be reserved for it. A later job with a time limit that fits
// now starts (it holds the head back at most by its limit); one without
// a time limit waits would_delay, with At Never and words that say the
// head has no reserved start, not that it would delay a reservation.
// EASY (backfill, multifactor with backfill) and conservative alike.
func TestBackfillUnreservedHead(t *testing.T) {
	pools := []struct {
		name string
		pol  Policy
		opts []poolOpt
		// queued: the head's pending entry is a conservative one (and
		// a start now is a reservation's, not a backfill).
		queued bool
	}{
		{"easy", PolicyBackfill, nil, false},
		{"multifactor with easy", PolicyMultifactor, []poolOpt{withBackfill(), withMultifactor(Multifactor{Age: 10, MaxAge: 400})}, false},
		{"conservative", PolicyBackfill, []poolOpt{withReservations(ReserveConservative)}, true},
	}
	for _, pc := range pools {
		t.Run(pc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", pc.pol, pc.opts...).nodes("p", 1, 4, "")
			r := b.job("r", slots(2), waiting(0))
			b.running(r, start(0), on("p-1", 2))
			head := b.job("head", slots(4), timeLimit(600), submit(1))
			timed := b.job("timed", timeLimit(60), submit(2))
			untimed := b.job("untimed", submit(3))
			s := b.snapshot()
			p := mustSchedule(t, s)
			pe := mustPending(t, s, &p, head, ReasonReserved)
			if pe.At != Never || pe.Code() != CodeNoReservation || pe.Queued != pc.queued {
				t.Fatalf("head: %+v, want no reservation", pe)
			}
			if got := startIDs(s, &p); !slices.Equal(got, []string{"timed"}) || startsOf(&p, timed)[0].Backfill == pc.queued {
				t.Fatalf("starts %v, want the timed job alone (backfilled under EASY):\n%s", got, fmtPlan(s, &p))
			}
			w := mustPending(t, s, &p, untimed, ReasonWouldDelay)
			if w.Blocker != head || w.At != Never || w.Code() != "would_delay" {
				t.Fatalf("untimed: %+v, want would_delay behind head with At Never", w)
			}
			m := w.Message(s)
			for _, say := range []string{"has no time limit", "job head ahead of it has no reserved start", "only a job with a time limit may start before it"} {
				if !strings.Contains(m, say) {
					t.Errorf("message %q does not say %q", m, say)
				}
			}
			if strings.Contains(m, "would delay the reservation") {
				t.Errorf("message %q names a reservation that does not exist", m)
			}
		})
	}
}

// TestBackfillUnreservedLater: behind a head with no reservation, a job
// without a time limit that does not fit now gets no reservation under
// conservative backfilling (its start would be refused, as it could hold
// the head's slots for ever): it waits behind the head; under EASY it
// gets its room's reason, as any job that does not fit now. A head with
// a reservation keeps the old words for a job that would delay it.
func TestBackfillUnreservedLater(t *testing.T) {
	tests := []struct {
		name string
		opts []poolOpt
		want Reason
	}{
		{"easy", nil, ReasonNoCapacity},
		{"conservative", []poolOpt{withReservations(ReserveConservative)}, ReasonBehind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyBackfill, tc.opts...).nodes("p", 1, 4, "")
			r := b.job("r", slots(2), waiting(0))
			b.running(r, start(0), on("p-1", 2))
			q := b.job("q", slots(1), waiting(0), timeLimit(100))
			b.running(q, start(0), on("p-1", 1))
			head := b.job("head", slots(4), timeLimit(600), submit(1))
			pair := b.job("pair", slots(2), submit(2))
			s := b.snapshot()
			p := mustSchedule(t, s)
			if pe := mustPending(t, s, &p, head, ReasonReserved); pe.At != Never {
				t.Fatalf("head reserved at %d, want none", pe.At)
			}
			pe := mustPending(t, s, &p, pair, tc.want)
			if tc.want == ReasonBehind && pe.Blocker != head {
				t.Fatalf("pair: %+v, want behind head", pe)
			}
			if len(p.Starts) != 0 {
				t.Fatalf("starts:\n%s", fmtPlan(s, &p))
			}
		})
	}
	t.Run("a reserved head keeps would delay its reservation", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyBackfill).nodes("p", 1, 4, "")
		r := b.job("r", slots(2), waiting(0), timeLimit(100))
		b.running(r, start(0), on("p-1", 2))
		head := b.job("head", slots(4), timeLimit(600), submit(1))
		untimed := b.job("untimed", submit(2))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if pe := mustPending(t, s, &p, head, ReasonReserved); pe.At != 100 {
			t.Fatalf("head reserved at %d, want 100", pe.At)
		}
		w := mustPending(t, s, &p, untimed, ReasonWouldDelay)
		if w.At != -1 || !strings.Contains(w.Message(s), "would delay the reservation of job head") {
			t.Fatalf("untimed: %+v %q", w, w.Message(s))
		}
	})
}
