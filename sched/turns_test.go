package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTurnsFollowServingOrder: Pending.Turn numbers a pool's pending jobs
// in the order its policy offers them, on clusters where nothing can
// start (every node held by work nobody may preempt), so that each job is
// offered once and the order is the policy's alone. Each case's order
// differs from submission, but FIFO's.
func TestTurnsFollowServingOrder(t *testing.T) {
	full := func(b *cluster, size int) {
		b.nodes(b.s.Pools[b.last].Name, 1, size, "", zeroLimit(0))
		run := b.job("run", slots(size), waiting(0))
		b.running(run, start(0), on(b.s.Nodes[len(b.s.Nodes)-1].Name, size))
	}
	for _, tt := range []struct {
		name  string
		build func(t *testing.T) *Snapshot
		want  []string // job IDs by Turn
	}{
		{"fifo: by submission; a job that never fits and a zero-slot one keep their places", func(t *testing.T) *Snapshot {
			b := newCluster(t).pool("p", PolicyFIFO)
			full(b, 2)
			b.job("zero", slots(0), submit(0))
			b.job("a", submit(3))
			b.job("huge", slots(16), submit(0))
			b.job("b", submit(1))
			b.job("c", submit(2))
			return b.snapshot()
		}, []string{"huge", "b", "c", "a", "zero"}},
		{"backfill: the queue the reservation and backfill follow", func(t *testing.T) *Snapshot {
			b := newCluster(t).pool("p", PolicyBackfill)
			full(b, 2)
			b.job("a", submit(3), timeLimit(60))
			b.job("b", submit(1), slots(2), timeLimit(60))
			b.job("c", submit(2), timeLimit(60))
			return b.snapshot()
		}, []string{"b", "c", "a"}},
		{"conservative: the queue, not the order reservations are placed in", func(t *testing.T) *Snapshot {
			b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 1, 2, "")
			run := b.job("run", slots(2), waiting(0), timeLimit(100))
			b.running(run, start(0), on("p-1", 2))
			b.job("a", submit(1), timeLimit(60))
			b.job("b", submit(2), timeLimit(60), func(_ *cluster, j *Job) { j.Reserved = 100 })
			return b.snapshot()
		}, []string{"a", "b"}},
		{"priority: the lower number first", func(t *testing.T) *Snapshot {
			b := newCluster(t).pool("p", PolicyPriority)
			full(b, 2)
			b.job("a", prio(50))
			b.job("b", prio(10))
			b.job("c", prio(30))
			return b.snapshot()
		}, []string{"b", "c", "a"}},
		{"multifactor: the higher computed priority first", func(t *testing.T) *Snapshot {
			b := newCluster(t).pool("p", PolicyMultifactor, withMultifactor(Multifactor{QOS: 1}))
			low, high, mid := b.qosLevel("low", 1, false), b.qosLevel("high", 10, false), b.qosLevel("mid", 5, false)
			full(b, 2)
			b.job("a", qos(low))
			b.job("b", qos(high))
			b.job("c", qos(mid))
			return b.snapshot()
		}, []string{"b", "c", "a"}},
		{"fair share: below its share first, then the least held for what it wants", func(t *testing.T) *Snapshot {
			b := newCluster(t).pool("p", PolicyFairShare).nodes("p", 1, 4, "")
			a := b.job("a", submit(0))
			c := b.job("c", submit(1))
			b.job("b", submit(2), waiting(2))
			b.fill(a, "p-1", 3, 0)
			b.fill(c, "p-1", 1, 0)
			return b.snapshot()
		}, []string{"b", "c", "a"}},
		{"quota: the project under its quota before a higher priority over it; borrowing work last", func(t *testing.T) *Snapshot {
			s := quotaSnap(1, 2, "a", 2, "b", 2)
			held := addJob(s, "held", 0, 2, 0, false)
			s.Jobs[held].Preemptible = false
			addRun(s, held, 0, 2, 0)
			// Interactive work past a's quota is turned away in a's
			// round, and preemptible work past it waits for a phase
			// that finds no idle slot: both take their turns before
			// the borrowing work, tried on idle slots after the rounds
			// (trial 2026-11-29e E1: it was ranked before both).
			addJob(s, "ia", 0, 1, 1, true)
			wa := addJob(s, "wa", 0, 1, 1, false)
			s.Jobs[wa].Priority = 10
			wb := addJob(s, "wb", 1, 1, 1, false)
			s.Jobs[wb].Priority = 50
			bw := addJob(s, "bw", 1, 1, 1, false)
			s.Jobs[bw].Borrow = true
			return s
		}, []string{"wb", "ia", "wa", "bw"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.build(t)
			plan, err := Schedule(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Starts)+len(plan.Preemptions) > 0 {
				t.Fatalf("the cluster is meant to be full:\n%s", fmtPlan(s, plan))
			}
			got := make([]string, len(plan.Pending))
			for _, pe := range plan.Pending {
				if pe.Turn < 1 || int(pe.Turn) > len(got) || got[pe.Turn-1] != "" {
					t.Fatalf("turn %d of job %s: not a permutation of 1..%d\n%s", pe.Turn, s.Jobs[pe.Job].ID, len(got), fmtPlan(s, plan))
				}
				got[pe.Turn-1] = s.Jobs[pe.Job].ID
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("jobs by turn %v, want %v\n%s", got, tt.want, fmtPlan(s, plan))
			}
		})
	}
}

// TestTurnsQuotaBorrowLast: in a quota pool every project's work takes
// its turn before the borrowing (LOW) work, whether its project's round
// started it, turned it away past its quota or limit, or never reached
// it, and a lost node (its node and its allocations out of the snapshot,
// as the master leaves them) does not move the borrowing work ahead of
// it (trial 2026-11-29e E1: a LOW job reclaimed from a full pool was
// POS 1, ahead of HIGH and NORMAL work of projects at their quota, and
// last while the node was lost).
func TestTurnsQuotaBorrowLast(t *testing.T) {
	// The trial's pool q: one node of 4; teama quota 2, teamb quota 2
	// limit 3; command jobs are not preemptible, LOW borrows.
	type run struct {
		project, slots int
	}
	type wait struct {
		id                   string
		project, slots, prio int
		low                  bool
	}
	for _, tt := range []struct {
		name    string
		running []run
		waiting []wait
		want    []string
	}{
		{"the trial: HIGH of a project at its quota, NORMAL of another, the reclaimed LOW job",
			[]run{{0, 2}, {1, 2}},
			[]wait{{"borrow4", 0, 4, 80, true}, {"q-a-high", 0, 1, 10, false}, {"q-b-normal", 1, 1, 42, false}},
			[]string{"q-a-high", "q-b-normal", "borrow4"}},
		{"addendum 2: NORMAL of a project under its quota ahead of two LOW borrowers, one past its limit",
			[]run{{0, 1}, {1, 2}},
			[]wait{{"borrow4", 0, 4, 80, true}, {"over-limit", 1, 4, 80, true}, {"q-a-normal", 0, 2, 42, false}, {"q-b-normal", 1, 1, 10, false}},
			[]string{"q-a-normal", "q-b-normal", "borrow4", "over-limit"}},
	} {
		for _, lost := range []bool{false, true} {
			name := tt.name
			if lost {
				name += ", node lost"
			}
			t.Run(name, func(t *testing.T) {
				s := &Snapshot{Now: 100, Pools: []Pool{{Name: "q", Policy: PolicyQuota, Placement: PlaceBinpack}},
					Projects: []Project{{Name: "teama", Parent: -1, Quota: 2, OverQuotaWeight: 2},
						{Name: "teamb", Parent: -1, Quota: 2, OverQuotaWeight: 2, Limit: 3}}}
				if !lost {
					s.Nodes = []Node{{Name: "n1", Slots: 4}}
				}
				for i, r := range tt.running {
					s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("run%d", i), Submit: int64(i), Seq: int64(i), Priority: 42, Weight: 1,
						Slots: r.slots, MaxRunning: 1, Project: r.project})
					if !lost {
						addRun(s, len(s.Jobs)-1, 0, r.slots, 0)
					}
				}
				for i, w := range tt.waiting {
					s.Jobs = append(s.Jobs, Job{ID: w.id, Submit: int64(10 + i), Seq: int64(10 + i), Priority: w.prio, Weight: 1,
						Slots: w.slots, Waiting: 1, MaxRunning: 1, Project: w.project, Borrow: w.low, Preemptible: w.low})
				}
				plan, err := Schedule(s)
				if err != nil {
					t.Fatal(err)
				}
				if len(plan.Starts)+len(plan.Preemptions) > 0 {
					t.Fatalf("nothing is meant to start:\n%s", fmtPlan(s, plan))
				}
				got := make([]string, len(plan.Pending))
				for _, pe := range plan.Pending {
					if pe.Turn < 1 || int(pe.Turn) > len(got) || got[pe.Turn-1] != "" {
						t.Fatalf("turn %d of job %s: not a permutation of 1..%d\n%s", pe.Turn, s.Jobs[pe.Job].ID, len(got), fmtPlan(s, plan))
					}
					got[pe.Turn-1] = s.Jobs[pe.Job].ID
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("jobs by turn %v, want %v\n%s", got, tt.want, fmtPlan(s, plan))
				}
			})
		}
	}
}

// TestTurnsInOrderAgrees: the turns addPending gives entries recorded in
// the order their jobs were offered, which numberTurns keeps when it finds
// them in that order (inOfferOrder), are those the general numbering gives
// (turnsByJob); out of that order it declines.
func TestTurnsInOrderAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 27))
	taken := 0
	for c := range 2000 {
		n := 1 + rng.IntN(12)
		perm := rng.Perm(n)
		split := rng.IntN(n + 1)
		var offered, zero, order []int32
		for i, j := range perm {
			if i < split {
				offered = append(offered, int32(j))
			} else if rng.IntN(3) > 0 {
				zero = append(zero, int32(j))
			}
		}
		inOrder := rng.IntN(2) == 0
		if inOrder {
			order = append(slices.Clone(offered), zero...)
		} else {
			for _, j := range rng.Perm(n) {
				order = append(order, int32(j))
			}
		}
		var sc Scheduler
		sc.pending = make([]bool, n)
		sc.turns.reset(n)
		sc.turns.begin(0)
		p := &pass{sc: &sc}
		var pend []Pending
		for _, j := range order {
			if rng.IntN(4) > 0 {
				sc.pending[j] = true
				pe := Pending{Job: int(j)}
				sc.turns.add(&pe, len(pend))
				pend = append(pend, pe)
			}
		}
		want := slices.Clone(pend)
		p.turnsByJob(want, offered, zero)
		ok := p.inOfferOrder(sc.turns.jobs, offered, zero)
		if inOrder && !ok {
			t.Fatalf("case %d: entries in offered order %v, zero %v: inOfferOrder declined %v", c, offered, zero, pend)
		}
		if ok {
			taken++
			if !slices.EqualFunc(pend, want, pendingEqual) {
				t.Fatalf("case %d: turns as added %v, turnsByJob %v (offered %v, zero %v)", c, pend, want, offered, zero)
			}
		}
	}
	if taken < 1000 {
		t.Errorf("inOfferOrder held in %d of 2000 cases; want at least the 1000 or so in order", taken)
	}
}
