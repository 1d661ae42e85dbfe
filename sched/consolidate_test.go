package sched

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func withMinRunTime(d int64) poolOpt { return func(p *Pool) { p.MinRunTime = d } }
func project(i int) jobOpt           { return func(_ *cluster, j *Job) { j.Project = i } }

// moveList renders the plan's moves as "job:from>to" strings.
func moveList(s *Snapshot, p *Plan) []string {
	var out []string
	for _, mv := range p.Moves {
		a := &s.Allocs[mv.Alloc]
		out = append(out, s.Jobs[a.Job].ID+":"+placement(s, a.Nodes)+">"+placement(s, mv.Nodes))
	}
	return out
}

// fragmented is seed 002's case: two 8-GPU nodes each half used by
// unattended work (tasks of the given size), and an 8-GPU job waiting.
func fragmented(t *testing.T, pol Policy, task int, opts ...jobOpt) (*cluster, int) {
	t.Helper()
	b := newCluster(t).pool("gpu", pol).nodes("gpu", 2, 8, "h100").now(1000)
	work := b.job("work", append([]jobOpt{slots(task), waiting(0), preemptible()}, opts...)...)
	b.fill(work, "gpu-1", 4/task, 10)
	b.fill(work, "gpu-2", 4/task, 20)
	big := b.job("big", slots(8), submit(5))
	return b, big
}

func TestConsolidation(t *testing.T) {
	cases := []struct {
		name  string
		pol   Policy
		task  int
		moves []string
	}{
		// The newest tasks lose the least work: gpu-2's, started later,
		// move to gpu-1.
		{"one-GPU tasks under FIFO", PolicyFIFO, 1, []string{
			"work:gpu-2:1>gpu-1:1", "work:gpu-2:1>gpu-1:1", "work:gpu-2:1>gpu-1:1", "work:gpu-2:1>gpu-1:1"}},
		{"four-GPU tasks under priority", PolicyPriority, 4, []string{"work:gpu-2:4>gpu-1:4"}},
		{"four-GPU tasks under fair share", PolicyFairShare, 4, []string{"work:gpu-2:4>gpu-1:4"}},
		{"four-GPU tasks under backfill", PolicyBackfill, 4, []string{"work:gpu-2:4>gpu-1:4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, big := fragmented(t, c.pol, c.task)
			s := b.snapshot()
			plan := mustSchedule(t, s)
			if got := moveList(s, &plan); !slices.Equal(got, c.moves) {
				t.Fatalf("moves %v, want %v\n%s", got, c.moves, fmtPlan(s, &plan))
			}
			if len(plan.Preemptions) != 0 || len(startsOf(&plan, big)) != 0 {
				t.Fatalf("want moves only, the job held until they checkpoint\n%s", fmtPlan(s, &plan))
			}
			mustPending(t, s, &plan, big, ReasonCheckpointing)
			for _, mv := range plan.Moves {
				if mv.For != big {
					t.Fatalf("move for job %d, want %d", mv.For, big)
				}
			}
			// Once the moved tasks have checkpointed the job starts on the
			// node they left, and they run on: none waits again.
			done, last, _ := settle(t, s, 5)
			if done.Jobs[0].Waiting != 0 || done.Jobs[big].Waiting != 0 {
				t.Fatalf("after settling: %s", fmtSnapshot(done))
			}
			if len(last.Pending) != 0 {
				t.Fatalf("still pending after settling:\n%s", fmtPlan(done, &last))
			}
			held := map[string]int{}
			for _, a := range done.Allocs {
				held[done.Jobs[a.Job].ID+"@"+placement(done, a.Nodes)[:5]] += Slots(a.Nodes)
			}
			if held["big@gpu-2"] != 8 || held["work@gpu-1"] != 8 {
				t.Fatalf("after settling: %v", held)
			}
		})
	}
}

// TestConsolidationGang frees two whole nodes for a 16-GPU gang on four
// half-used nodes.
func TestConsolidationGang(t *testing.T) {
	b := newCluster(t).pool("gpu", PolicyPriority).nodes("gpu", 4, 8, "h100").now(1000)
	work := b.job("work", slots(4), waiting(0), preemptible())
	for i, n := range []string{"gpu-1", "gpu-2", "gpu-3", "gpu-4"} {
		b.running(work, start(int64(10*i)), on(n, 4))
	}
	gang := b.job("gang", slots(16))
	s := b.snapshot()
	plan := mustSchedule(t, s)
	// The newest task is re-placed first and takes the first node.
	want := []string{"work:gpu-4:4>gpu-1:4", "work:gpu-3:4>gpu-2:4"}
	if got := moveList(s, &plan); !slices.Equal(got, want) {
		t.Fatalf("moves %v, want %v\n%s", got, want, fmtPlan(s, &plan))
	}
	mustPending(t, s, &plan, gang, ReasonCheckpointing)
	done, _, _ := settle(t, s, 5)
	for _, a := range done.Allocs {
		if a.Job == gang && placement(done, a.Nodes) != "gpu-3:8,gpu-4:8" {
			t.Fatalf("gang on %s", placement(done, a.Nodes))
		}
	}
}

// TestConsolidationCheapestTarget clears the node that needs the fewest
// slots moved.
func TestConsolidationCheapestTarget(t *testing.T) {
	b := newCluster(t).pool("gpu", PolicyFIFO).nodes("gpu", 2, 8, "h100").now(1000)
	six := b.job("six", slots(6), waiting(0), preemptible())
	two := b.job("two", slots(2), waiting(0), preemptible())
	b.running(six, start(10), on("gpu-1", 6))
	b.running(two, start(20), on("gpu-2", 2))
	b.job("big", slots(8))
	s := b.snapshot()
	plan := mustSchedule(t, s)
	if got, want := moveList(s, &plan), []string{"two:gpu-2:2>gpu-1:2"}; !slices.Equal(got, want) {
		t.Fatalf("moves %v, want %v\n%s", got, want, fmtPlan(s, &plan))
	}
}

// TestConsolidationRollback: when a moved task finds no room elsewhere,
// nothing moves and every slot the attempt took is given back.
func TestConsolidationRollback(t *testing.T) {
	// gpu-1: two 3-GPU movers and 2 free; gpu-2: 3 free; gpu-3: 2 free;
	// gpu-4: 1 free. 8 are free in all, but only one mover fits
	// elsewhere.
	b := newCluster(t).pool("gpu", PolicyPriority, withBackfill()).nodes("gpu", 4, 8, "h100").now(1000)
	mov := b.job("mov", slots(3), waiting(0), preemptible(), prio(50))
	b.fill(mov, "gpu-1", 2, 10)
	fixed := b.job("fixed", slots(1), waiting(0))
	b.fill(fixed, "gpu-2", 5, 10)
	b.fill(fixed, "gpu-3", 6, 10)
	b.fill(fixed, "gpu-4", 7, 10)
	big := b.job("big", slots(8), prio(1))
	// A lower-priority job backfills behind the blocked one: it must
	// find gpu-2's three slots, which the rolled-back attempt had taken
	// for a mover.
	small := b.job("small", slots(3), prio(60), preemptible())
	s := b.snapshot()
	plan := mustSchedule(t, s)
	if len(plan.Moves) != 0 || len(plan.Preemptions) != 0 {
		t.Fatalf("want nothing moved\n%s", fmtPlan(s, &plan))
	}
	mustPending(t, s, &plan, big, ReasonFragmented)
	if got := startPlacements(s, &plan, small); !slices.Equal(got, []string{"gpu-2:3"}) {
		t.Fatalf("small starts on %v, want gpu-2:3\n%s", got, fmtPlan(s, &plan))
	}
}

// TestConsolidationGuards: only unattended preemptible work that is old
// enough, of a project with budget left, is ever moved.
func TestConsolidationGuards(t *testing.T) {
	cases := []struct {
		name  string
		opts  []jobOpt
		minRT int64
		// budget, spent: the movers' project's preemption budget.
		budget, spent int
		moves         int
	}{
		{"preemptible unattended work moves", nil, 0, 0, 0, 1},
		{"interactive work never moves", []jobOpt{interactive()}, 0, 0, 0, 0},
		{"tasks younger than the minimum run time stay", nil, 995, 0, 0, 0},
		{"tasks past the minimum run time move", nil, 985, 0, 0, 1},
		{"a spent preemption budget protects the project", nil, 0, 3, 3, 0},
		{"a move counts against the budget", nil, 0, 1, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, big := fragmented(t, PolicyFIFO, 4, c.opts...)
			s := b.snapshot()
			s.Pools[0].MinRunTime = c.minRT
			s.Projects = []Project{{Name: "team", Parent: -1, PreemptBudget: c.budget, Preempted: c.spent}}
			plan := mustSchedule(t, s)
			if len(plan.Moves) != c.moves {
				t.Fatalf("%d moves, want %d\n%s", len(plan.Moves), c.moves, fmtPlan(s, &plan))
			}
			if c.moves == 0 {
				mustPending(t, s, &plan, big, ReasonFragmented)
			}
		})
	}
	t.Run("non-preemptible work never moves", func(t *testing.T) {
		b := newCluster(t).pool("gpu", PolicyFIFO).nodes("gpu", 2, 8, "h100").now(1000)
		work := b.job("work", slots(4), waiting(0))
		b.fill(work, "gpu-1", 1, 10)
		b.fill(work, "gpu-2", 1, 20)
		big := b.job("big", slots(8))
		s := b.snapshot()
		plan := mustSchedule(t, s)
		if len(plan.Moves) != 0 {
			t.Fatalf("moved non-preemptible work\n%s", fmtPlan(s, &plan))
		}
		mustPending(t, s, &plan, big, ReasonFragmented)
	})
	t.Run("a budget of one is not enough for four moves", func(t *testing.T) {
		b, big := fragmented(t, PolicyFIFO, 1)
		s := b.snapshot()
		s.Projects = []Project{{Name: "team", Parent: -1, PreemptBudget: 1}}
		plan := mustSchedule(t, s)
		if len(plan.Moves) != 0 {
			t.Fatalf("four moves would overspend a budget of one\n%s", fmtPlan(s, &plan))
		}
		mustPending(t, s, &plan, big, ReasonFragmented)
	})
}

// TestConsolidationBeforePreemption: under priority with preemption, moving
// work that can run elsewhere comes before preempting it.
func TestConsolidationBeforePreemption(t *testing.T) {
	b, big := fragmented(t, PolicyPriority, 4, prio(80))
	s := b.snapshot()
	s.Pools[0].Preemption = true
	s.Jobs[big].Priority = 1
	plan := mustSchedule(t, s)
	if len(plan.Preemptions) != 0 || len(plan.Moves) != 1 {
		t.Fatalf("want one move and no preemption\n%s", fmtPlan(s, &plan))
	}
}

// TestCheapestTargetsAsSort: the targets tried are the first ones of the
// full sort that consolidate used to do, in its order, whatever ties the
// slots moved, the moves and the work lost have (nodes differ, as they
// do among one search's targets).
func TestCheapestTargetsAsSort(t *testing.T) {
	cases := []struct {
		name   string
		n      int
		spread int32 // range of moved, moves and lost: small means ties
	}{
		{"none", 0, 3},
		{"fewer than the tries", 3, 3},
		{"as many as the tries", maxConsolidationTries, 2},
		{"many, ties everywhere", 200, 2},
		{"many, few ties", 200, 1000},
	}
	sorted := func(a, b consTarget) int {
		switch {
		case a.moved != b.moved:
			return int(a.moved - b.moved)
		case a.hi-a.lo != b.hi-b.lo:
			return int((a.hi - a.lo) - (b.hi - b.lo))
		case a.lost != b.lost:
			return cmp64(a.lost, b.lost)
		}
		return int(a.node - b.node)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(tc.n)))
			for round := range 300 {
				var c consolidation
				for i, node := range rng.Perm(tc.n) {
					lo := int32(i * 10)
					c.cands = append(c.cands, consTarget{lo: lo, hi: lo + 1 + rng.Int32N(tc.spread),
						moved: rng.Int32N(tc.spread), lost: rng.Int64N(int64(tc.spread)), node: int32(node)})
				}
				want := slices.Clone(c.cands)
				slices.SortFunc(want, sorted)
				c.cheapestTargets()
				k := min(tc.n, maxConsolidationTries)
				if !slices.Equal(c.cands[:k], want[:k]) {
					t.Fatalf("round %d: tried %v, want %v", round, c.cands[:k], want[:k])
				}
				rest := slices.Clone(c.cands)
				slices.SortFunc(rest, sorted)
				if !slices.Equal(rest, want) {
					t.Fatalf("round %d: targets lost or duplicated", round)
				}
			}
		})
	}
}

// TestCheapestNodesAsSort: the nodes a gang clears whole are the first
// ones of a sort by what clearing them costs, in its order.
func TestCheapestNodesAsSort(t *testing.T) {
	cases := []struct {
		name   string
		n, k   int
		spread int32 // range of cost and lost: small means ties
	}{
		{"one node wanted", 50, 1, 2},
		{"as many as there are", 8, 8, 2},
		{"a few of many, ties", 300, 6, 2},
		{"a few of many, few ties", 300, 6, 1000},
		{"many of many, sorted in full", 300, 40, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(tc.n+tc.k)))
			for round := range 200 {
				var c consolidation
				var ord []int32
				for _, node := range rng.Perm(tc.n) {
					ord = append(ord, int32(node))
					c.keys = append(c.keys, clearKey{cost: rng.Int32N(tc.spread), lost: rng.Int64N(int64(tc.spread)), node: int32(node)})
				}
				want := slices.Clone(c.keys)
				slices.SortFunc(want, func(a, b clearKey) int {
					if a.before(&b) {
						return -1
					}
					return 1
				})
				c.cheapestFirst(ord, tc.k)
				for i := range tc.k {
					if ord[i] != want[i].node {
						t.Fatalf("round %d: node %d is %d, want %d", round, i, ord[i], want[i].node)
					}
				}
			}
		})
	}
}
