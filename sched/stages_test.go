package sched

import (
	"slices"
	"testing"
)

// TestComposedPolicy checks that a new policy is configuration: priority
// order with an EASY reservation, and priority order with conservative
// reservations, are stage lists no built-in policy declares, composed
// from existing stages and run by the one driver.
//
// The fixture: four single-slot nodes, two of them held until t=100 by
// R. A (most important) needs all four for 100 s; B (1 slot, 50 s) and D
// (1 slot, 10 s, the oldest but least important) end before A could
// start; C (1 slot, 500 s) would still run at t=100.
func TestComposedPolicy(t *testing.T) {
	b := newCluster(t).pool("p", PolicyPriority).nodes("p", 4, 1, "")
	d := b.job("D", prio(4), submit(0), timeLimit(10))
	r := b.job("R", slots(2), waiting(0), timeLimit(100))
	b.running(r, start(0), on("p-1", 1), on("p-2", 1))
	a := b.job("A", prio(1), submit(5), slots(4), timeLimit(100))
	bj := b.job("B", prio(2), submit(5), timeLimit(50))
	c := b.job("C", prio(3), submit(5), timeLimit(500))
	base := b.snapshot()

	type want struct {
		reason  Reason
		at      int64
		blocker int
	}
	cases := []struct {
		name   string
		stages stageList
		starts []int // jobs started now, in plan order
		wait   map[int]want
	}{
		{
			// A heads the queue and reserves t=100 (when R ends); B and
			// D end by then and backfill; C would delay A.
			name:   "priority order, EASY reservation",
			stages: stageList{order: byPriority, preempt: preemptByPriority, gate: gateEASY, zero: byPriority},
			starts: []int{bj, d},
			wait: map[int]want{
				a: {ReasonReserved, 100, -1},
				c: {ReasonWouldDelay, -1, a},
			},
		},
		{
			// From A on every job reserves: A at 100, C after A (200);
			// B and D fit beside A's reservation now.
			name:   "priority order, conservative reservations",
			stages: stageList{order: byPriority, preempt: preemptByPriority, gate: gateConservative, zero: byPriority},
			starts: []int{bj, d},
			wait: map[int]want{
				a: {ReasonReserved, 100, -1},
				c: {ReasonReserved, 200, -1},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, pl := range builtinPools() {
				if declare(&pl) == tc.stages {
					t.Fatalf("the stage list is built in (%s): compose one no policy declares", pl.Policy)
				}
			}
			var sc Scheduler
			p, err := sc.schedule(cloneSnapshot(base), func(*Pool) stageList { return tc.stages })
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, st := range p.Starts {
				got = append(got, st.Job)
			}
			if !slices.Equal(got, tc.starts) {
				t.Errorf("starts %v, want %v\n%s", got, tc.starts, fmtPlan(base, p))
			}
			if len(p.Preemptions) != 0 {
				t.Errorf("preemptions %v, want none", p.Preemptions)
			}
			for j, w := range tc.wait {
				pe := mustPending(t, base, p, j, w.reason)
				if pe.At != w.at || pe.Blocker != w.blocker {
					t.Errorf("job %s: at %d blocker %d, want at %d blocker %d",
						base.Jobs[j].ID, pe.At, pe.Blocker, w.at, w.blocker)
				}
			}
			if len(p.Pending) != len(tc.wait) {
				t.Errorf("%d pending entries, want %d\n%s", len(p.Pending), len(tc.wait), fmtPlan(base, p))
			}
		})
	}
}

// builtinPools lists a pool of every built-in policy with every
// combination of the options its stage list depends on.
func builtinPools() []Pool {
	var out []Pool
	for _, pol := range []Policy{PolicyFIFO, PolicyBackfill, PolicyPriority, PolicyFairShare, PolicyQuota, PolicyMultifactor} {
		for _, res := range []Reservations{ReserveEASY, ReserveConservative} {
			for opts := range 8 {
				out = append(out, Pool{Policy: pol, Reservations: res,
					Backfill: opts&1 != 0, Preemption: opts&2 != 0, Serial: opts&4 != 0})
			}
		}
	}
	return out
}
