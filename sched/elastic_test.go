package sched

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// resizeList renders the plan's resizes as "job:from>to" strings.
func resizeList(s *Snapshot, p *Plan) []string {
	var out []string
	for _, rs := range p.Resizes {
		a := &s.Allocs[rs.Alloc]
		out = append(out, s.Jobs[a.Job].ID+":"+placement(s, a.Nodes)+">"+placement(s, rs.Nodes))
	}
	return out
}

func TestElasticShrink(t *testing.T) {
	cases := []struct {
		name       string
		pol        Policy
		used       int // slots of the one 8-GPU node held by fixed work
		slots, min int
		waiting    int
		starts     []string
		reason     Reason // for the job's tasks that did not start, or 0
		need       int
	}{
		{"fits whole", PolicyFIFO, 0, 8, 2, 1, []string{"gpu-1:8"}, 0, 0},
		{"8 shrinks to 4", PolicyFIFO, 4, 8, 2, 1, []string{"gpu-1:4"}, 0, 0},
		{"8 shrinks to 2", PolicyFIFO, 6, 8, 2, 1, []string{"gpu-1:2"}, 0, 0},
		{"stops at MinSlots", PolicyFIFO, 7, 8, 2, 1, nil, ReasonNoCapacity, 2},
		{"MinSlots is tried last when halving skips it", PolicyFIFO, 5, 8, 3, 1, []string{"gpu-1:3"}, 0, 0},
		{"not elastic: no shrinking", PolicyFIFO, 4, 8, 0, 1, nil, ReasonNoCapacity, 8},
		{"later tasks keep shrinking", PolicyFIFO, 1, 4, 1, 3, []string{"gpu-1:4", "gpu-1:2", "gpu-1:1"}, 0, 0},
		{"a task that fits no size waits", PolicyFIFO, 2, 4, 2, 3, []string{"gpu-1:4", "gpu-1:2"}, ReasonNoCapacity, 2},
		{"priority", PolicyPriority, 4, 8, 2, 1, []string{"gpu-1:4"}, 0, 0},
		{"fair share", PolicyFairShare, 4, 8, 2, 1, []string{"gpu-1:4"}, 0, 0},
		{"EASY backfill head", PolicyBackfill, 4, 8, 2, 1, []string{"gpu-1:4"}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).pool("gpu", c.pol).nodes("gpu", 1, 8, "h100").now(100)
			if c.used > 0 {
				fixed := b.job("fixed", slots(c.used), waiting(0))
				b.running(fixed, start(0), on("gpu-1", c.used))
			}
			el := b.job("el", slots(c.slots), minSlots(c.min), waiting(c.waiting), preemptible())
			s := b.snapshot()
			plan := mustSchedule(t, s)
			if got := startPlacements(s, &plan, el); !slices.Equal(got, c.starts) {
				t.Fatalf("starts %v, want %v\n%s", got, c.starts, fmtPlan(s, &plan))
			}
			if c.reason == 0 {
				mustNotPending(t, s, &plan, el)
				return
			}
			if pe := mustPending(t, s, &plan, el, c.reason); pe.Need != c.need {
				t.Fatalf("pending need %d, want %d", pe.Need, c.need)
			}
		})
	}
}

// TestElasticShrinkAfterPreemption: a task shrinks only once preemption at
// its size could not make room, and preemption is tried again at each size.
func TestElasticShrinkAfterPreemption(t *testing.T) {
	cases := []struct {
		name    string
		fixed   int // non-preemptible slots
		low     int // one-slot low-priority preemptible tasks
		preempt int
		held    int // the size the job holds on draining slots
	}{
		{"preemption at full size comes first", 0, 8, 8, 8},
		{"fixed work keeps the full size out: shrink, then preempt", 4, 4, 4, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).pool("gpu", PolicyPriority, withPreemption()).nodes("gpu", 1, 8, "h100").now(100)
			if c.fixed > 0 {
				b.running(b.job("fixed", slots(c.fixed), waiting(0)), start(0), on("gpu-1", c.fixed))
			}
			low := b.job("low", prio(80), waiting(0), preemptible())
			b.fill(low, "gpu-1", c.low, 1)
			el := b.job("el", prio(1), slots(8), minSlots(2), preemptible())
			s := b.snapshot()
			plan := mustSchedule(t, s)
			if len(plan.Preemptions) != c.preempt {
				t.Fatalf("%d preemptions, want %d\n%s", len(plan.Preemptions), c.preempt, fmtPlan(s, &plan))
			}
			mustPending(t, s, &plan, el, ReasonCheckpointing)
			done, _, _ := settle(t, s, 5)
			for _, a := range done.Allocs {
				if a.Job == el && Slots(a.Nodes) != c.held {
					t.Fatalf("el runs with %d slots, want %d", Slots(a.Nodes), c.held)
				}
			}
		})
	}
}

// TestElasticShrinkAfterConsolidation: moving work to gather a whole node
// comes before shrinking.
func TestElasticShrinkAfterConsolidation(t *testing.T) {
	b, big := fragmented(t, PolicyFIFO, 4)
	s := b.snapshot()
	s.Jobs[big].MinSlots = 2
	plan := mustSchedule(t, s)
	if len(plan.Moves) != 1 || len(plan.Starts) != 0 {
		t.Fatalf("want one move and the full-size task held\n%s", fmtPlan(s, &plan))
	}
	mustPending(t, s, &plan, big, ReasonCheckpointing)
}

// TestElasticQuotaShrink: under quota an elastic task shrinks to stay
// within its project's limit.
func TestElasticQuotaShrink(t *testing.T) {
	s := quotaSnap(1, 8, "a", 8)
	s.Projects[0].Limit = 3
	j := addJob(s, "el", 0, 8, 1, false)
	s.Jobs[j].MinSlots = 1
	plan := quotaPlan(t, s)
	if len(plan.Starts) != 1 || Slots(plan.Starts[0].Nodes) != 2 {
		t.Fatalf("want one task of 2 slots (8, 4 over the limit of 3)\n%s", fmtPlan(s, plan))
	}
}

// TestConservativeElastic: under conservative backfilling an elastic task
// starts now at the largest size the profile allows, and otherwise
// reserves for MinSlots.
func TestConservativeElastic(t *testing.T) {
	b := newCluster(t).pool("gpu", PolicyBackfill, withReservations(ReserveConservative)).nodes("gpu", 1, 8, "h100").now(100)
	fixed := b.job("fixed", slots(6), waiting(0), timeLimit(100))
	b.running(fixed, start(50), on("gpu-1", 6))
	el := b.job("el", slots(8), minSlots(2), timeLimit(60))
	late := b.job("late", slots(4), minSlots(4), timeLimit(60))
	s := b.snapshot()
	plan := mustSchedule(t, s)
	if got := startPlacements(s, &plan, el); !slices.Equal(got, []string{"gpu-1:2"}) {
		t.Fatalf("el starts %v, want gpu-1:2\n%s", got, fmtPlan(s, &plan))
	}
	if pe := mustPending(t, s, &plan, late, ReasonReserved); pe.At != 150 || pe.Need != 4 {
		t.Fatalf("late reserved at %d for %d slots, want 150 for 4", pe.At, pe.Need)
	}
}

func TestElasticExpand(t *testing.T) {
	type run struct {
		job   string
		node  string
		slots int
		start int64
	}
	cases := []struct {
		name    string
		minRT   int64
		runs    []run
		waiting string // a job that can never fit ("big") or one that waits for 1 slot ("one")
		want    []string
		oldest  int64 // when set, the start of the allocation that must grow
	}{
		{"doubles in place", 0, []run{{"el", "gpu-1", 2, 10}}, "", []string{"el:gpu-1:2>gpu-1:4"}, 0},
		{"one doubling per pass", 0, []run{{"el", "gpu-1", 1, 10}}, "", []string{"el:gpu-1:1>gpu-1:2"}, 0},
		{"capped at its slots", 0, []run{{"el6", "gpu-1", 4, 10}}, "", []string{"el6:gpu-1:4>gpu-1:6"}, 0},
		{"not when a job waits for slots", 0, []run{{"el", "gpu-1", 2, 10}, {"fixed", "gpu-1", 6, 10}, {"fixed", "gpu-2", 8, 10}}, "one", nil, 0},
		{"a job that can never fit does not block", 0, []run{{"el", "gpu-1", 2, 10}}, "big", []string{"el:gpu-1:2>gpu-1:4"}, 0},
		{"moves when its node is full", 0, []run{{"el", "gpu-1", 4, 10}, {"fixed", "gpu-1", 4, 10}}, "", []string{"el:gpu-1:4>gpu-2:8"}, 0},
		{"oldest first", 0, []run{{"el", "gpu-1", 2, 20}, {"el", "gpu-1", 2, 10}, {"fixed", "gpu-1", 2, 0}, {"fixed", "gpu-2", 8, 0}},
			"", []string{"el:gpu-1:2>gpu-1:4"}, 10},
		{"young tasks wait", 95, []run{{"el", "gpu-1", 2, 10}}, "", nil, 0},
		{"interactive tasks do not grow", 0, []run{{"notebook", "gpu-1", 2, 10}}, "", nil, 0},
		{"at full size nothing grows", 0, []run{{"el", "gpu-1", 8, 10}}, "", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).pool("gpu", PolicyFIFO, withMinRunTime(c.minRT)).nodes("gpu", 2, 8, "h100").now(100)
			jobs := map[string]int{
				"el":       b.job("el", slots(8), minSlots(1), waiting(0), preemptible()),
				"el6":      b.job("el6", slots(6), minSlots(1), waiting(0), preemptible()),
				"notebook": b.job("notebook", slots(8), minSlots(1), waiting(0), interactive()),
				"fixed":    b.job("fixed", slots(1), waiting(0)),
			}
			switch c.waiting {
			case "big":
				b.job("big", slots(17))
			case "one":
				b.job("one", slots(1))
			}
			for _, r := range c.runs {
				b.running(jobs[r.job], start(r.start), on(r.node, r.slots))
			}
			s := b.snapshot()
			plan := mustSchedule(t, s)
			if got := resizeList(s, &plan); !slices.Equal(got, c.want) {
				t.Fatalf("resizes %v, want %v\n%s", got, c.want, fmtPlan(s, &plan))
			}
			if c.oldest != 0 && s.Allocs[plan.Resizes[0].Alloc].Start != c.oldest {
				t.Fatalf("the task started at %d grew, want the one started at %d", s.Allocs[plan.Resizes[0].Alloc].Start, c.oldest)
			}
			if bad := planProblems(s, &plan); len(bad) > 0 {
				t.Fatal(strings.Join(bad, "\n"))
			}
		})
	}
}

// TestElasticExpandSettles: a task that started shrunk doubles pass after
// pass once the slots are spare, until it holds its full size.
func TestElasticExpandSettles(t *testing.T) {
	b := newCluster(t).pool("gpu", PolicyPriority).nodes("gpu", 2, 8, "h100").now(100)
	el := b.job("el", slots(8), minSlots(1), waiting(0), preemptible())
	b.running(el, start(10), on("gpu-1", 1))
	fixed := b.job("fixed", slots(4), waiting(0))
	b.running(fixed, start(10), on("gpu-1", 4))
	s := b.snapshot()
	var sizes []string
	for range 5 {
		plan := mustSchedule(t, s)
		if quiet(&plan) {
			break
		}
		sizes = append(sizes, strings.Join(resizeList(s, &plan), " "))
		s = finishCheckpoints(applyPlan(s, &plan))
	}
	want := []string{"el:gpu-1:1>gpu-1:2", "el:gpu-1:2>gpu-1:4", "el:gpu-1:4>gpu-2:8"}
	if !slices.Equal(sizes, want) {
		t.Fatalf("resizes by pass %q, want %q", sizes, want)
	}
}

// TestElasticExpandQuota: growing keeps a quota project within its limit.
func TestElasticExpandQuota(t *testing.T) {
	for _, limit := range []int{0, 3, 4} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			s := quotaSnap(1, 8, "a", 8)
			s.Projects[0].Limit = limit
			j := addJob(s, "el", 0, 8, 0, false)
			s.Jobs[j].MinSlots = 1
			addRun(s, j, 0, 2, 10)
			plan := quotaPlan(t, s)
			want := 1
			if limit == 3 {
				want = 0
			}
			if len(plan.Resizes) != want {
				t.Fatalf("%d resizes, want %d\n%s", len(plan.Resizes), want, fmtPlan(s, plan))
			}
		})
	}
}

// TestElasticExpandQuotaBorrow: borrowing work (LOW) grows only within
// its project's limit too, and what it grows counts as borrowed (trial
// 2026-11-29f F1: a LOW task of slots 4, min_slots 2, started at 2 under
// a limit of 3, grew to 4 in the next pass).
func TestElasticExpandQuotaBorrow(t *testing.T) {
	for _, tc := range []struct {
		limit int
		want  int32 // the size it grows to; 0 for none
	}{{0, 4}, {3, 0}, {4, 4}} {
		t.Run(fmt.Sprintf("limit %d", tc.limit), func(t *testing.T) {
			s := quotaSnap(1, 8, "a", 2)
			s.Projects[0].Limit = tc.limit
			j := addJob(s, "el", 0, 4, 0, false)
			s.Jobs[j].MinSlots, s.Jobs[j].Borrow = 2, true
			addRun(s, j, 0, 2, 10)
			plan := quotaPlan(t, s)
			var got int32
			for _, r := range plan.Resizes {
				got = int32(Slots(r.Nodes))
			}
			if len(plan.Resizes) > 1 || got != tc.want {
				t.Fatalf("resizes %+v, want one to %d slots (0: none)\n%s", plan.Resizes, tc.want, fmtPlan(s, plan))
			}
		})
	}
}

func TestElasticValidation(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Snapshot)
		want string
	}{
		{"negative min slots", func(s *Snapshot) { s.Jobs[0].MinSlots = -1 }, "negative min slots"},
		{"min above slots", func(s *Snapshot) { s.Jobs[0].MinSlots = 5 }, "above its slots"},
		{"elastic zero-slot job", func(s *Snapshot) { s.Jobs[0].Slots, s.Jobs[0].MinSlots = 0, 1 }, "zero-slot"},
		{"moving but not preempting", func(s *Snapshot) { s.Allocs[0].Moving = true }, "moving but not preempting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).pool("gpu", PolicyFIFO).nodes("gpu", 1, 8, "h100")
			j := b.job("el", slots(4))
			b.running(j, on("gpu-1", 4))
			s := b.snapshot()
			c.edit(s)
			if _, err := Schedule(s); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}
