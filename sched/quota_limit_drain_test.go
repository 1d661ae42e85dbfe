package sched

import (
	"slices"
	"testing"
)

// TestQuotaLimitCountsDraining: a project's tasks being preempted hold
// their GPUs until their checkpoints land, so they count toward its limit.
// While alpha's victim drains, a slot freed elsewhere must not let alpha's
// waiting work start past the limit: the work is held (checkpointing), and
// nothing more of alpha's is preempted.
func TestQuotaLimitCountsDraining(t *testing.T) {
	cases := []struct {
		name  string
		nodes int
		// build returns the waiting job; alpha (quota 2, limit 3) holds 3
		// slots of gpu-1, one task of which is being preempted, and one
		// slot of the pool is free.
		build func(c *cluster, alpha, beta int) int
	}{{
		name:  "the preemptor: the notebook the victim was preempted for",
		nodes: 1,
		build: func(c *cluster, alpha, _ int) int {
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
	}, {
		name:  "another task of the project: preemptible training",
		nodes: 1,
		build: func(c *cluster, alpha, _ int) int {
			return c.job("train2", inProject(alpha), preemptible())
		},
	}, {
		name:  "the free slot on another node",
		nodes: 2,
		build: func(c *cluster, alpha, beta int) int {
			other := c.job("other", inProject(beta), waiting(0))
			c.fill(other, "gpu-1", 1, 10)
			c.fill(other, "gpu-2", 3, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", tc.nodes, 4, "h100").now(100)
			alpha := c.project("alpha", -1, 2, 3)
			beta := c.project("beta", -1, 4*tc.nodes-2, 0)
			train := c.job("train", inProject(alpha), preemptible(), waiting(0))
			c.fill(train, "gpu-1", 2, 10)
			c.running(train, start(12), on("gpu-1", 1), preempting())
			j := tc.build(c, alpha, beta)
			s := c.snapshot()
			p := mustSchedule(t, s)
			if got := preempted(&p); len(got) > 0 {
				t.Fatalf("preempted %v: alpha's draining task already makes room\n%s", got, fmtPlan(s, &p))
			}
			if len(startsOf(&p, j)) > 0 {
				t.Fatalf("%s started while alpha's victim drains: alpha would hold 4, over its limit 3\n%s",
					s.Jobs[j].ID, fmtPlan(s, &p))
			}
			checkLimits(t, s, &p)
		})
	}
}

// TestQuotaLimitDrainingLands follows a notebook over its project's limit
// from its preemption to its start, with a slot of another project freed
// while the victim drains: the project never holds more than its limit,
// counting the tasks being preempted, and only one of its tasks is
// preempted.
func TestQuotaLimitDrainingLands(t *testing.T) {
	c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", 1, 4, "h100").now(100)
	alpha := c.project("alpha", -1, 2, 3)
	beta := c.project("beta", -1, 2, 0)
	train := c.job("train", inProject(alpha), preemptible(), waiting(0))
	c.fill(train, "gpu-1", 3, 10)
	other := c.job("other", inProject(beta), waiting(0))
	c.fill(other, "gpu-1", 1, 10)
	nb := c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
	s := c.snapshot()
	victims := 0
	for pass := 0; pass < 5; pass++ {
		p := mustSchedule(t, s)
		checkLimits(t, s, &p)
		victims += len(p.Preemptions)
		if len(startsOf(&p, nb)) > 0 {
			if victims != 1 {
				t.Fatalf("%d tasks preempted, want 1", victims)
			}
			return
		}
		s = applyPlan(s, &p)
		if pass == 0 {
			// beta's task ends while alpha's victim drains.
			s.Allocs = slices.DeleteFunc(s.Allocs, func(a Alloc) bool { return a.Job == other })
			continue
		}
		s = finishCheckpoints(s)
	}
	t.Fatal("the notebook never started")
}

// TestQuotaLimitIdleSlotOwnPreemption: a limit caps the project's total,
// so an idle slot does not help a notebook over its project's limit; it
// takes the place of the project's own preemptible work instead, held
// until the victim's checkpoint lands, and alpha never holds more than 3.
func TestQuotaLimitIdleSlotOwnPreemption(t *testing.T) {
	cases := []struct {
		name  string
		nodes int
		opts  []poolOpt
	}{
		{"idle slot on the same node", 1, nil},
		{"idle node", 2, nil},
		// Spread placement prefers the idle node to the victim's.
		{"idle node, spread", 2, []poolOpt{withSpread()}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nodes := tc.nodes
			c := newCluster(t).pool("gpu", PolicyQuota, tc.opts...).nodes("gpu", nodes, 4, "h100").now(100)
			alpha := c.project("alpha", -1, 2, 3)
			beta := c.project("beta", -1, 2, 0)
			train := c.job("train", inProject(alpha), preemptible(), waiting(0))
			c.fill(train, "gpu-1", 3, 10)
			if nodes == 2 {
				// gpu-1 is full; gpu-2 is idle.
				other := c.job("other", inProject(beta), waiting(0))
				c.fill(other, "gpu-1", 1, 10)
			}
			nb := c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
			s := c.snapshot()
			p := mustSchedule(t, s)
			var victims []string
			for _, a := range preempted(&p) {
				victims = append(victims, s.Jobs[s.Allocs[a].Job].ID)
			}
			pe, _ := pendingOf(&p, nb)
			if !slices.Equal(victims, []string{"train"}) || pe.Reason != ReasonCheckpointing {
				t.Fatalf("victims %v, notebook %v; want [train], checkpointing\n%s", victims, pe.Reason, fmtPlan(s, &p))
			}
			checkLimits(t, s, &p)
			total := len(p.Preemptions)
			for pass := 0; pass < 4; pass++ {
				s = finishCheckpoints(applyPlan(s, &p))
				p = mustSchedule(t, s)
				checkLimits(t, s, &p)
				total += len(p.Preemptions)
				if len(startsOf(&p, nb)) > 0 {
					if total != 1 {
						t.Fatalf("%d tasks preempted, want 1", total)
					}
					return
				}
			}
			t.Fatal("the notebook never started")
		})
	}
}

// TestBorrowIdleCountsDraining: the over_quota hint offers idle slots only
// where the quota rounds would let the job, made preemptible, start on
// them now, so a project's tasks being preempted count against its limit
// there too.
func TestBorrowIdleCountsDraining(t *testing.T) {
	for _, tc := range []struct {
		name       string
		preempting bool
		want       int
	}{
		{"the third task runs: alpha at its limit", false, 0},
		{"the third task drains: its GPUs still count", true, 0},
		{"control: two tasks, the slot of the third idle", false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", 1, 4, "h100").now(100)
			alpha := c.project("alpha", -1, 2, 3)
			c.project("beta", -1, 2, 0)
			train := c.job("train", inProject(alpha), preemptible(), waiting(0))
			c.fill(train, "gpu-1", 2, 10)
			if tc.want == 0 {
				opts := []allocOpt{start(12), on("gpu-1", 1)}
				if tc.preempting {
					opts = append(opts, preempting())
				}
				c.running(train, opts...)
			}
			nb := c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
			if got := c.snapshot().BorrowIdle(nb, 1); got != tc.want {
				t.Fatalf("BorrowIdle = %d, want %d", got, tc.want)
			}
		})
	}
}
