package sched

import (
	"strings"
	"testing"
)

// TestQuotaReasons: no_spare is for work past its project's quota or
// share that waits for idle slots; work within both that cannot reclaim
// waits for capacity; scattered free slots are fragmentation.
func TestQuotaReasons(t *testing.T) {
	tests := []struct {
		name  string
		build func() (*Snapshot, int)
		want  Reason
	}{
		{"past its share, pool full: no_spare", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 2, "b", 2)
			a := addJob(s, "a", 0, 1, 0, false)
			for range 2 {
				addRun(s, a, 0, 1, 0)
			}
			b := addJob(s, "b", 1, 1, 0, false)
			for range 2 {
				addRun(s, b, 0, 1, 0)
			}
			return s, addJob(s, "more", 0, 1, 1, false)
		}, ReasonNoSpare},
		{"within quota, nothing to reclaim: no_capacity", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 2, "b", 2)
			b := addJob(s, "b", 1, 1, 0, true) // interactive: never reclaimed
			for range 4 {
				addRun(s, b, 0, 1, 0)
			}
			return s, addJob(s, "mine", 0, 1, 1, false)
		}, ReasonNoCapacity},
		{"past its share, free slots scattered: fragmented", func() (*Snapshot, int) {
			s := quotaSnap(2, 4, "a", 0, "b", 8)
			b := addJob(s, "b", 1, 1, 0, true)
			for n := range 2 {
				for range 2 {
					addRun(s, b, n, 1, 0)
				}
			}
			return s, addJob(s, "wide", 0, 3, 1, false)
		}, ReasonFragmented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, j := tc.build()
			p := mustSchedule(t, s)
			mustPending(t, s, &p, j, tc.want)
		})
	}
}

// TestConservativeReasonNotHead: under conservative every queued job
// holds a reservation; only EASY has a head of the queue.
func TestConservativeReasonNotHead(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 2, 1, "")
	r := b.job("r", slots(2), waiting(0), timeLimit(100))
	b.running(r, start(0), on("p-1", 1), on("p-2", 1))
	first := b.job("first", slots(2), timeLimit(100), submit(1))
	second := b.job("second", slots(1), timeLimit(100), submit(2))
	s := b.snapshot()
	p := mustSchedule(t, s)
	for _, j := range []int{first, second} {
		pe := mustPending(t, s, &p, j, ReasonReserved)
		if m := pe.Message(s); strings.Contains(m, "head of the queue") || !strings.Contains(m, "reservation") {
			t.Errorf("%s: message %q", s.Jobs[j].ID, m)
		}
	}
}

// TestReservedMessageSlotCount: a reservation without a start time says
// "1 slot", not "1 slots", like the other reasons.
func TestReservedMessageSlotCount(t *testing.T) {
	s := &Snapshot{}
	for _, tc := range []struct {
		name   string
		p      Pending
		prefix string
	}{
		{"conservative one slot", Pending{Job: -1, Reason: ReasonReserved, Queued: true, Need: 1, At: -1}, "needs 1 slot;"},
		{"conservative four slots", Pending{Job: -1, Reason: ReasonReserved, Queued: true, Need: 4, At: Never}, "needs 4 slots;"},
		{"head one slot", Pending{Job: -1, Reason: ReasonReserved, Need: 1, At: -1}, "head of the queue, needs 1 slot;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if m := tc.p.Message(s); !strings.HasPrefix(m, tc.prefix) {
				t.Errorf("message %q, want prefix %q", m, tc.prefix)
			}
		})
	}
}
