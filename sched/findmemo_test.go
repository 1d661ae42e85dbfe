package sched

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFindMemoExact checks that pass.find (findMemo) answers as the
// search does, on random planning states changed at random between
// questions: slots taken, drained, undrained and released. A memo that
// missed a change of the state (say move not counting) fails it.
func TestFindMemoExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	var sc Scheduler
	hits := 0
	for c := range 300 {
		s := randSnapshot(rng, defaultGen)
		if _, err := sc.Schedule(s); err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		p := sc.begin(s)
		p.st.copyFrom(&sc.base)
		var reqs []request
		for gi := range p.st.groups {
			g := &p.st.groups[gi]
			for _, k := range []int32{1, g.size, g.size + 1} {
				reqs = append(reqs, request{pool: g.pool, gpu: g.gpu, slots: max(k, 1)},
					request{pool: g.pool, slots: max(k, 1), useDrain: true, spread: true})
			}
		}
		if len(reqs) == 0 {
			continue
		}
		for range 200 {
			r := reqs[rng.IntN(len(reqs))]
			before := p.st.changes
			got, gotOK := p.finds.find(p.st, &r, nil)
			want, wantOK := p.st.find(&r, nil)
			if gotOK != wantOK || (gotOK && !slices.Equal(got, want)) {
				t.Fatalf("case %d: find(%+v) = %v %v, the search gives %v %v", c, r, got, gotOK, want, wantOK)
			}
			if !gotOK && p.st.changes == before {
				hits++
			}
			mutate(rng, p.st, len(s.Nodes))
			for gi := range p.st.groups {
				g := &p.st.groups[gi]
				if err := checkDrainIndex(p.st, g); err != "" {
					t.Fatalf("case %d group %d: %s", c, gi, err)
				}
				checkFreeOnDraining(t, rng, p.st, g, &r)
			}
		}
	}
	if hits == 0 {
		t.Fatal("no failed request was asked again: the test proves nothing")
	}
}

// mutate changes one node of st at random, within its slots.
func mutate(rng *rand.Rand, st *state, nodes int) {
	if nodes == 0 || rng.IntN(3) == 0 {
		return // leave the state as it is: the memo may answer
	}
	n := int32(rng.IntN(nodes))
	if st.nodeGroup[n] < 0 {
		return
	}
	size := st.groups[st.nodeGroup[n]].size
	used := size - st.free[n] - st.drain[n]
	switch rng.IntN(4) {
	case 0:
		if a := st.avail(n); a > 0 {
			st.take(n, 1+rng.Int32N(a))
		}
	case 1:
		if used > 0 {
			st.addDrain(n, 1+rng.Int32N(used))
		}
	case 2:
		if st.drain[n] > 0 {
			st.removeDrain(n, 1+rng.Int32N(st.drain[n]))
		}
	case 3:
		if used > 0 {
			st.release(n, 1+rng.Int32N(used))
		}
	}
}

// checkFreeOnDraining compares freeOnDraining with a walk over every
// draining node, from no best node and from a random one.
func checkFreeOnDraining(t *testing.T, rng *rand.Rand, st *state, g *group, r *request) {
	if len(g.nodes) == 0 || r.slots > g.size {
		return
	}
	bestPos, bestF := int32(-1), int32(-1)
	if rng.IntN(2) == 0 {
		bestPos = int32(rng.IntN(len(g.nodes)))
		bestF = r.slots + rng.Int32N(g.size-r.slots+1)
	}
	for _, spread := range []bool{false, true} {
		q := *r
		q.spread = spread
		wantPos, wantF := bestPos, bestF
		for pos := range g.nodes {
			f := st.free[g.nodes[pos]]
			if !g.draining.has(int32(pos)) || f < q.slots {
				continue
			}
			if wantPos < 0 || (spread && f > wantF) || (!spread && f < wantF) || (f == wantF && int32(pos) < wantPos) {
				wantPos, wantF = int32(pos), f
			}
		}
		if gotPos, gotF := g.freeOnDraining(&q, bestPos, bestF); gotPos != wantPos || gotF != wantF {
			t.Fatalf("freeOnDraining(spread %v, slots %d, from %d/%d) = %d/%d, a walk gives %d/%d",
				spread, q.slots, bestPos, bestF, gotPos, gotF, wantPos, wantF)
		}
	}
}
