package sched

import (
	"strings"
	"testing"
)

// TestBackfillReasonNamesRoom: a job the priority pool's backfill may pass
// a blocked job with (preemptible, less important) but that finds no idle
// slots waits for room (no_capacity, fragmented), not behind it, which
// would say it may not pass; a job that may not be backfilled still waits
// behind (trial 2026-11-27f, item 14).
func TestBackfillReasonNamesRoom(t *testing.T) {
	cases := []struct {
		name      string
		build     func(c *cluster, blocker int) (low int)
		reason    Reason // the low job's pending reason; 0: it starts
		free      int
		message   string // a part of the pending message
		blockerOf bool   // the pending entry names the blocker (behind)
	}{{
		name: "trial: backfill allowed, no idle slot",
		build: func(c *cluster, _ int) int {
			return c.job("low", prio(80), slots(4), preemptible())
		},
		reason: ReasonNoCapacity, free: 0,
		message: "needs 4 slots per task, 0 are free in the pool",
	}, {
		name: "idle slots scattered over nodes",
		build: func(c *cluster, _ int) int {
			c.nodes("gpu", 2, 4, "h100")
			fill := c.job("half", prio(10), slots(2), waiting(0))
			c.fill(fill, "gpu-2", 1, 0)
			c.fill(fill, "gpu-3", 1, 0)
			return c.job("low", prio(80), slots(4), preemptible())
		},
		reason: ReasonFragmented, free: 4,
		message: "enough are free in total but not on one node or on whole nodes",
	}, {
		name: "room: backfilled",
		build: func(c *cluster, _ int) int {
			c.nodes("gpu", 1, 4, "h100")
			return c.job("low", prio(80), slots(4), preemptible())
		},
	}, {
		name: "not preemptible: behind",
		build: func(c *cluster, _ int) int {
			return c.job("low", prio(80), slots(4))
		},
		reason: ReasonBehind, blockerOf: true,
		message: "queued behind job j23, which is blocked and may not be passed",
	}, {
		name: "more important than nothing: equal priority waits behind",
		build: func(c *cluster, blocker int) int {
			return c.job("low", prio(c.s.Jobs[blocker].Priority), slots(4), preemptible())
		},
		reason: ReasonBehind, blockerOf: true,
		message: "queued behind job j23",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("gpu", PolicyPriority, withBackfill()).nodes("gpu", 1, 8, "h100")
			l := c.license("matlab", 1)
			holder := c.job("holder", prio(10), slots(8), waiting(0), lic(l, 1))
			c.fill(holder, "gpu-1", 1, 0)
			// j23 waits only for the license; no slot is free anyway.
			blocker := c.job("j23", prio(50), lic(l, 1))
			low := tc.build(c, blocker)
			s := c.snapshot()
			p := mustSchedule(t, s)
			mustPending(t, s, &p, blocker, ReasonLicense)
			if tc.reason == 0 {
				mustNotPending(t, s, &p, low)
				if st := startsOf(&p, low); len(st) != 1 || !st[0].Backfill {
					t.Fatalf("low: starts %v, want one backfill\n%s", st, fmtPlan(s, &p))
				}
				return
			}
			pe := mustPending(t, s, &p, low, tc.reason)
			if tc.reason != ReasonBehind && pe.Free != tc.free {
				t.Errorf("free %d, want %d", pe.Free, tc.free)
			}
			if got := pe.Blocker == blocker; got != tc.blockerOf {
				t.Errorf("blocker %d, want job %d named: %v", pe.Blocker, blocker, tc.blockerOf)
			}
			if msg := pe.Message(s); !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want it to contain %q", msg, tc.message)
			}
		})
	}
}
