package sched

import (
	"maps"
	"slices"
	"testing"
)

// project adds a project of the quota pool and returns its index; limit 0
// means none, parent -1 a root.
func (c *cluster) project(name string, parent, quota, limit int) int {
	c.s.Projects = append(c.s.Projects, Project{Name: name, Parent: parent, Quota: quota,
		OverQuotaWeight: float64(quota), Limit: limit})
	return len(c.s.Projects) - 1
}

func inProject(pr int) jobOpt { return func(_ *cluster, j *Job) { j.Project = pr } }
func borrow() jobOpt          { return func(_ *cluster, j *Job) { j.Borrow = true } }

// TestQuotaLimitOwnPreemption: work a project is entitled to (interactive,
// within quota) that is over the project's limit only because of the
// project's own preemptible work takes that work's place, keeping the
// project at its limit; another project's work never makes room past a
// limit, and free slots stay refused (trial 2026-11-27f, item 13).
func TestQuotaLimitOwnPreemption(t *testing.T) {
	type result struct {
		victims []string // jobs of the preempted tasks
		reason  Reason   // the notebook's pending reason
		started bool     // the notebook started in this pass
	}
	cases := []struct {
		name  string
		build func(c *cluster) (notebook int)
		want  result
	}{{
		name: "trial: notebook at the limit preempts its own project's training",
		build: func(c *cluster) int {
			alpha := c.project("alpha", -1, 2, 3)
			beta := c.project("beta", -1, 2, 0)
			train := c.job("train", inProject(alpha), preemptible(), waiting(0))
			c.fill(train, "gpu-1", 3, 10)
			other := c.job("other", inProject(beta), waiting(0))
			c.fill(other, "gpu-1", 1, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
		// Held until the victim's checkpoint lands: alpha stays at 3.
		want: result{victims: []string{"train"}, reason: ReasonCheckpointing},
	}, {
		name: "no own preemptible work: still project_limit",
		build: func(c *cluster) int {
			// A limit below the quota is refused by configuration, so
			// the limit that binds is a parent's.
			org := c.project("org", -1, 4, 4)
			alpha := c.project("alpha", org, 2, 0)
			beta := c.project("beta", org, 2, 0)
			train := c.job("train", inProject(alpha), waiting(0)) // not preemptible
			c.fill(train, "gpu-1", 1, 10)
			other := c.job("other", inProject(beta), waiting(0))
			c.fill(other, "gpu-1", 3, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
		want: result{reason: ReasonLimit},
	}, {
		name: "own borrowing work makes way too",
		build: func(c *cluster) int {
			alpha := c.project("alpha", -1, 2, 3)
			beta := c.project("beta", -1, 2, 0)
			nb := c.job("nb0", inProject(alpha), interactive(), kind(KindNotebook), waiting(0))
			c.fill(nb, "gpu-1", 1, 10)
			low := c.job("low", inProject(alpha), preemptible(), borrow(), waiting(0))
			c.fill(low, "gpu-1", 2, 10)
			other := c.job("other", inProject(beta), waiting(0))
			c.fill(other, "gpu-1", 1, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
		want: result{victims: []string{"low"}, reason: ReasonCheckpointing},
	}, {
		name: "preempting all its own work would still exceed a parent's limit",
		build: func(c *cluster) int {
			org := c.project("org", -1, 4, 4)
			alpha := c.project("alpha", org, 2, 0)
			beta := c.project("beta", org, 2, 0)
			train := c.job("train", inProject(alpha), preemptible(), waiting(0))
			c.fill(train, "gpu-1", 1, 10)
			other := c.job("other", inProject(beta), waiting(0))
			c.fill(other, "gpu-1", 3, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook), slots(2))
		},
		want: result{reason: ReasonLimit},
	}, {
		name: "another project's work is the only candidate",
		build: func(c *cluster) int {
			org := c.project("org", -1, 4, 4)
			alpha := c.project("alpha", org, 2, 0)
			beta := c.project("beta", org, 1, 0)
			fixed := c.job("fixed", inProject(alpha), waiting(0))
			c.fill(fixed, "gpu-1", 1, 10)
			// beta is 2 over its quota: reclaimable, were it not for org's limit.
			other := c.job("other", inProject(beta), preemptible(), waiting(0))
			c.fill(other, "gpu-1", 3, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
		want: result{reason: ReasonLimit},
	}, {
		name: "control: without the parent's limit, that work is reclaimed",
		build: func(c *cluster) int {
			org := c.project("org", -1, 4, 0)
			alpha := c.project("alpha", org, 2, 0)
			beta := c.project("beta", org, 1, 0)
			fixed := c.job("fixed", inProject(alpha), waiting(0))
			c.fill(fixed, "gpu-1", 1, 10)
			other := c.job("other", inProject(beta), preemptible(), waiting(0))
			c.fill(other, "gpu-1", 3, 10)
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
		want: result{victims: []string{"other"}, reason: ReasonCheckpointing},
	}, {
		name: "idle slot: not taken past the limit, own work preempted instead",
		build: func(c *cluster) int {
			alpha := c.project("alpha", -1, 2, 3)
			c.project("beta", -1, 2, 0)
			train := c.job("train", inProject(alpha), preemptible(), waiting(0))
			c.fill(train, "gpu-1", 3, 10)
			// gpu-1's fourth slot is free, but a limit caps alpha's
			// total: the notebook takes the place of alpha's own work
			// (TestQuotaLimitIdleSlotOwnPreemption follows it).
			return c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
		},
		want: result{victims: []string{"train"}, reason: ReasonCheckpointing},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", 1, 4, "h100").now(100)
			nb := tc.build(c)
			s := c.snapshot()
			p := mustSchedule(t, s)
			var got result
			for _, a := range preempted(&p) {
				got.victims = append(got.victims, s.Jobs[s.Allocs[a].Job].ID)
			}
			got.started = len(startsOf(&p, nb)) > 0
			if pe, ok := pendingOf(&p, nb); ok {
				got.reason = pe.Reason
			}
			if !slices.Equal(got.victims, tc.want.victims) || got.reason != tc.want.reason || got.started != tc.want.started {
				t.Fatalf("got %+v, want %+v\n%s", got, tc.want, fmtPlan(s, &p))
			}
			// Never past a limit: what each project holds once the plan's
			// starts run, counting tasks still checkpointing.
			checkLimits(t, s, &p)
		})
	}
}

// TestQuotaLimitOwnPreemptionLands follows the trial's case until the
// notebook runs: it starts once its victim's checkpoint lands, and alpha
// never holds more than its limit of 3.
func TestQuotaLimitOwnPreemptionLands(t *testing.T) {
	c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", 1, 4, "h100").now(100)
	alpha := c.project("alpha", -1, 2, 3)
	beta := c.project("beta", -1, 2, 0)
	train := c.job("train", inProject(alpha), preemptible(), waiting(0))
	c.fill(train, "gpu-1", 3, 10)
	other := c.job("other", inProject(beta), waiting(0))
	c.fill(other, "gpu-1", 1, 10)
	nb := c.job("notebook", inProject(alpha), interactive(), kind(KindNotebook))
	s := c.snapshot()
	for pass := 0; pass < 4; pass++ {
		p := mustSchedule(t, s)
		checkLimits(t, s, &p)
		if len(startsOf(&p, nb)) > 0 {
			s = applyPlan(s, &p)
			if got := projectHeld(s, &Plan{})["alpha"]; got != 3 {
				t.Fatalf("alpha holds %d once the notebook runs, want 3", got)
			}
			return
		}
		s = finishCheckpoints(applyPlan(s, &p))
	}
	t.Fatal("the notebook never started")
}

// checkLimits fails when a project (or parent) would hold more than its
// limit once the plan's starts run while its preempted tasks still hold
// their slots.
func checkLimits(t *testing.T, s *Snapshot, p *Plan) {
	t.Helper()
	held := make([]int, len(s.Projects))
	add := func(pr, n int) {
		for ; pr >= 0; pr = s.Projects[pr].Parent {
			held[pr] += n
		}
	}
	for _, a := range s.Allocs {
		add(s.Jobs[a.Job].Project, Slots(a.Nodes))
	}
	for _, st := range p.Starts {
		add(s.Jobs[st.Job].Project, Slots(st.Nodes))
	}
	for i, pr := range s.Projects {
		if pr.Limit > 0 && held[i] > pr.Limit {
			t.Fatalf("%s holds %d, over its limit %d\n%s", pr.Name, held[i], pr.Limit, fmtPlan(s, p))
		}
	}
}

// TestQuotaLimitNeverMessage: a task larger than its project's limit (or
// a parent's) can never start, borrowing (LOW) work's included, and its
// project_limit reason says so and what must change; one the limit holds
// back only while its project's other work runs keeps the plain reason
// (trial 2026-11-29e E6).
func TestQuotaLimitNeverMessage(t *testing.T) {
	cases := []struct {
		name  string
		build func(c *cluster) int
		want  string
	}{{
		name: "the trial: LOW, 4 slots, limit 3",
		build: func(c *cluster) int {
			teamb := c.project("teamb", -1, 2, 3)
			run := c.job("run", inProject(teamb), slots(2), waiting(0))
			c.fill(run, "gpu-1", 1, 10)
			return c.job("over-limit", inProject(teamb), slots(4), preemptible(), borrow())
		},
		want: "can never start: a task of 4 slots is over project teamb's limit of 3 in pool gpu; an admin must raise the project's limit",
	}, {
		name: "a parent's limit, work within its quota",
		build: func(c *cluster) int {
			org := c.project("org", -1, 4, 2)
			lab := c.project("lab", org, 4, 0)
			return c.job("big", inProject(lab), slots(3))
		},
		want: "can never start: a task of 3 slots is over project org's limit of 2 in pool gpu; an admin must raise the project's limit",
	}, {
		name: "within the limit once its project's work ends",
		build: func(c *cluster) int {
			teamb := c.project("teamb", -1, 2, 3)
			run := c.job("run", inProject(teamb), slots(2), waiting(0))
			c.fill(run, "gpu-1", 1, 10)
			return c.job("lim3", inProject(teamb), slots(3), preemptible(), borrow())
		},
		want: "needs 3 slots; that would take its project past its limit",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", 1, 8, "")
			j := tc.build(c)
			s := c.snapshot()
			plan, err := Schedule(s)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(plan.Pending, func(pe Pending) bool { return pe.Job == j })
			if i < 0 {
				t.Fatalf("job %s is not pending:\n%s", s.Jobs[j].ID, fmtPlan(s, plan))
			}
			if pe := plan.Pending[i]; pe.Reason != ReasonLimit {
				t.Fatalf("reason %v, want project_limit:\n%s", pe.Reason, fmtPlan(s, plan))
			}
			if got := plan.Message(s, i); got != tc.want {
				t.Errorf("message %q\nwant    %q", got, tc.want)
			}
		})
	}
}

// TestQuotaBorrowElasticUnderLimit: borrowing work that is elastic is
// tried at its size in the pass, as the quota rounds try it: one over its
// project's limit at its full size shrinks toward its min_slots and
// starts on idle slots, and what it borrows counts at the size it holds,
// so the project's other borrowing work fits under the limit beside it.
// Borrowing checked the limit at the full size and never shrank: an
// elastic LOW job whose min_slots fit the limit waited for ever (trial
// 2026-11-29e, E6's note).
func TestQuotaBorrowElasticUnderLimit(t *testing.T) {
	cases := []struct {
		name  string
		small bool // a 1-slot LOW job of the same project queued after it
		want  map[string]int
	}{
		{"alone: shrinks to fit the limit", false, map[string]int{"elastic": 2}},
		{"counted at its size: the small job fits beside it", true, map[string]int{"elastic": 2, "small": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("gpu", PolicyQuota).nodes("gpu", 1, 8, "")
			teamb := c.project("teamb", -1, 2, 3)
			c.job("elastic", inProject(teamb), slots(4), minSlots(2), preemptible(), borrow())
			if tc.small {
				c.job("small", inProject(teamb), slots(1), preemptible(), borrow())
			}
			s := c.snapshot()
			plan, err := Schedule(s)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, st := range plan.Starts {
				for _, n := range st.Nodes {
					got[s.Jobs[st.Job].ID] += int(n.Slots)
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Fatalf("started %v, want %v:\n%s", got, tc.want, fmtPlan(s, plan))
			}
		})
	}
}
