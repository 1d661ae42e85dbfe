package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWindowViewPlansAsFresh checks that moving the window view from one
// moment to the next (nodeview.go) plans exactly as laying every view out
// from scratch: random clusters, most pools conservative on nodes of up
// to 8 slots (gangs search moment after moment), go through passes in
// which the plan applies, tasks end, jobs come and go, reservations are
// carried (so promises are put back through the view too) and the clock
// moves; every plan of a warm Scheduler that moves views is compared with
// a fresh Scheduler's that never does.
func TestWindowViewPlansAsFresh(t *testing.T) {
	defer func() { freshViews = false }()
	tests := []struct {
		name string
		seed uint64
		gen  genOpts
	}{
		{"small clusters", 31, defaultGen},
		{"more nodes and jobs", 37, genOpts{maxPools: 2, maxNodes: 40, maxNodeSlots: 8, maxJobs: 60, maxAllocs: 60}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 3))
			var warm Scheduler
			for c := range 250 {
				s := randSnapshot(rng, tc.gen)
				for i := range s.Pools {
					if rng.IntN(4) != 0 {
						s.Pools[i].Policy, s.Pools[i].Reservations = PolicyBackfill, ReserveConservative
					}
				}
				for step := range 6 {
					freshViews = false
					p, err := warm.Schedule(s)
					if err != nil {
						t.Fatalf("case %d step %d: %v", c, step, err)
					}
					plan := clonePlan(p)
					freshViews = true
					fresh := mustSchedule(t, s)
					if !plansEqual(&plan, &fresh) {
						t.Fatalf("case %d step %d: moved views plan differently\nmoved:\n%sfresh:\n%ssnapshot:\n%s",
							c, step, fmtPlan(s, &plan), fmtPlan(s, &fresh), fmtSnapshot(s))
					}
					next := cloneSnapshot(s)
					evolve(rng, next, &plan)
					carryReservations(next, &plan)
					churn(rng, next, step)
					next.Now += int64(rng.IntN(600))
					s = next
				}
			}
			if warm.nprof.viewMoves == 0 {
				t.Fatal("no view was moved: the test proves nothing")
			}
			t.Logf("%d views moved", warm.nprof.viewMoves)
		})
	}
}

// TestWindowViewMatchesSteps lays window views out over random node
// profiles, with steps close together so that breakpoints fall exactly
// on, and just beside, windows' starts and ends, and checks every view against each node's
// steps read directly: its free slots, and the group's buckets, counts
// and total. The searches mostly move forward with one length, as a
// gang's does, and now and then go back, change length, change a node's
// steps or touch the shadow state, after which the view must not be
// moved.
func TestWindowViewMatchesSteps(t *testing.T) {
	tests := []struct {
		name  string
		seed  uint64
		nodes int
		sizes []int
	}{
		{"one group of 8-slot nodes", 41, 12, []int{8}},
		{"two sizes", 43, 16, []int{4, 8}},
		{"many nodes", 47, 60, []int{8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 7))
			moved := uint64(0)
			for c := range 200 {
				np, sh := randNodeProfile(t, rng, tc.nodes, tc.sizes)
				at, dur := np.s.Now, int64(2+rng.IntN(12))
				for step := range 60 {
					switch k := rng.IntN(20); {
					case k == 0:
						at = np.s.Now + int64(rng.IntN(40)) // back
					case k == 1:
						dur = []int64{1, 2, 5, 9, 14, 30, Never}[rng.IntN(7)]
					case k == 2:
						n := int32(rng.IntN(len(np.s.Nodes)))
						from := np.s.Now + int64(rng.IntN(40))
						np.add(n, from, from+int64(1+rng.IntN(10)), -min(1, np.windowMin(n, from, from+10)))
					case k == 3:
						// Another user of the shadow state (EASY) takes a slot.
						if n := int32(rng.IntN(len(np.s.Nodes))); sh.free[n] > 0 {
							sh.take(n, 1)
						}
					default:
						at += int64(rng.IntN(3))
					}
					np.layView(at, dur)
					if bad := viewProblem(np, sh, at, addTime(at, dur)); bad != "" {
						t.Fatalf("case %d step %d: view [%d, %d): %s", c, step, at, addTime(at, dur), bad)
					}
				}
				moved += np.viewMoves
			}
			if moved == 0 {
				t.Fatal("no view was moved: the test proves nothing")
			}
		})
	}
}

// randNodeProfile is a node profile of one pool over random steps from
// now, 1 to 8 s apart, with its shadow state laid out as a pass does.
func randNodeProfile(t *testing.T, rng *rand.Rand, nodes int, sizes []int) (*nodeProfile, *state) {
	s := &Snapshot{Now: 1000, Pools: []Pool{{Name: "p", Policy: PolicyBackfill, Reservations: ReserveConservative}}}
	for i := range nodes {
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", i), Slots: sizes[rng.IntN(len(sizes))]})
	}
	var st state
	if err := st.build(s); err != nil {
		t.Fatal(err)
	}
	sc := &Scheduler{}
	np := &sc.nprof
	np.p, np.s, np.st, np.on = &pass{sc: sc, s: s, st: &st}, s, &st, true
	np.steps = make([][]nodeStep, nodes)
	for n := range np.steps {
		at, size := s.Now, int32(s.Nodes[n].Slots)
		for k := rng.IntN(6); k >= 0; k-- {
			np.steps[n] = append(np.steps[n], nodeStep{at: at, free: int32(rng.IntN(int(size) + 1))})
			at += int64(1 + rng.IntN(8))
		}
	}
	np.resetCursors(nodes)
	sc.shadow.copyFrom(&st)
	return np, &sc.shadow
}

// viewProblem compares the shadow state with the window [from, to) read
// from every node's steps.
func viewProblem(np *nodeProfile, sh *state, from, to int64) string {
	for gi := range sh.groups {
		g := &sh.groups[gi]
		counts := make([]int32, len(g.counts))
		avail := 0
		for pos, n := range g.nodes {
			want := int32(-1)
			for i, stp := range np.steps[n] {
				end := Never
				if i+1 < len(np.steps[n]) {
					end = np.steps[n][i+1].at
				}
				if stp.at < to && end > from && (want < 0 || stp.free < want) {
					want = stp.free
				}
			}
			if sh.free[n] != want || sh.drain[n] != 0 {
				return fmt.Sprintf("node %d has %d free, %d draining; its steps %v give %d", n, sh.free[n], sh.drain[n], np.steps[n], want)
			}
			for f := range g.buckets {
				if g.buckets[f].has(int32(pos)) != (int32(f) == want) {
					return fmt.Sprintf("node %d (%d free) in bucket %d: %v", n, want, f, g.buckets[f].has(int32(pos)))
				}
			}
			counts[want]++
			avail += int(want)
		}
		if !slices.Equal(counts, g.counts) || avail != g.avail {
			return fmt.Sprintf("group %d counts %v avail %d, want %v %d", gi, g.counts, g.avail, counts, avail)
		}
	}
	return ""
}
