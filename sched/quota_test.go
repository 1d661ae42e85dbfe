package sched

import (
	"fmt"
	"testing"
)

// quotaSnap builds a quota pool of nodes × size GPUs with the given
// projects (name, quota); over-quota weights equal the quotas.
func quotaSnap(nodes, size int, projects ...any) *Snapshot {
	s := &Snapshot{Now: 100, Pools: []Pool{{Name: "gpu", Policy: PolicyQuota, Placement: PlaceBinpack}}}
	for i := range nodes {
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", i+1), Slots: size, ZeroSlotLimit: 10})
	}
	for i := 0; i+1 < len(projects); i += 2 {
		q := projects[i+1].(int)
		s.Projects = append(s.Projects, Project{Name: projects[i].(string), Parent: -1, Quota: q, OverQuotaWeight: float64(q)})
	}
	return s
}

func addJob(s *Snapshot, id string, project, slots, waiting int, interactive bool) int {
	s.Jobs = append(s.Jobs, Job{ID: id, Submit: int64(len(s.Jobs)), Seq: int64(len(s.Jobs)), Priority: 42,
		Weight: 1, Preemptible: !interactive, Interactive: interactive, Slots: slots, Waiting: waiting,
		MaxRunning: 1000, Project: project})
	return len(s.Jobs) - 1
}

func addRun(s *Snapshot, job, node, slots int, start int64) {
	s.Allocs = append(s.Allocs, Alloc{Job: job, Nodes: []NodeSlots{{Node: int32(node), Slots: int32(slots)}}, Start: start})
}

// projectHeld returns the slots each project would hold once the plan applies:
// running allocations not preempted, plus starts.
func projectHeld(s *Snapshot, plan *Plan) map[string]int {
	out := map[string]int{}
	gone := map[int]bool{}
	for _, p := range plan.Preemptions {
		gone[p.Alloc] = true
	}
	for i, a := range s.Allocs {
		if !gone[i] && !a.Preempting {
			out[s.Projects[s.Jobs[a.Job].Project].Name] += Slots(a.Nodes)
		}
	}
	for _, st := range plan.Starts {
		out[s.Projects[s.Jobs[st.Job].Project].Name] += Slots(st.Nodes)
	}
	return out
}

func quotaPlan(t *testing.T, s *Snapshot) *Plan {
	t.Helper()
	plan, err := Schedule(s)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestQuotaSeed002(t *testing.T) {
	t.Run("quotas 3 and 1 split idle GPUs 75/25", func(t *testing.T) {
		s := quotaSnap(2, 4, "A", 3, "B", 1)
		addJob(s, "a", 0, 1, 20, false)
		addJob(s, "b", 1, 1, 20, false)
		got := projectHeld(s, quotaPlan(t, s))
		// Deserved 3 and 1; the 4 spare GPUs go 3:1 by over-quota weight.
		if got["A"] != 6 || got["B"] != 2 {
			t.Fatalf("holdings %v, want A 6 and B 2", got)
		}
	})
	t.Run("interactive within quota preempts own unattended work", func(t *testing.T) {
		s := quotaSnap(1, 4, "A", 2, "B", 2)
		train := addJob(s, "train", 0, 1, 0, false)
		for range 4 {
			addRun(s, train, 0, 1, 10)
		}
		nb := addJob(s, "notebook", 0, 1, 1, true)
		plan := quotaPlan(t, s)
		if len(plan.Preemptions) != 1 || s.Jobs[s.Allocs[plan.Preemptions[0].Alloc].Job].ID != "train" {
			t.Fatalf("preemptions %+v, want one train task", plan.Preemptions)
		}
		if plan.Preemptions[0].For != nb {
			t.Fatalf("preempted for job %d, want the notebook", plan.Preemptions[0].For)
		}
	})
	t.Run("interactive is never preempted", func(t *testing.T) {
		s := quotaSnap(1, 4, "A", 1, "B", 3)
		nb := addJob(s, "notebook", 0, 1, 0, true)
		addRun(s, nb, 0, 1, 10)
		other := addJob(s, "other-nb", 0, 1, 0, true)
		addRun(s, other, 0, 1, 20) // over quota: admitted earlier
		addJob(s, "b-train", 1, 1, 4, false)
		plan := quotaPlan(t, s)
		for _, p := range plan.Preemptions {
			if s.Jobs[s.Allocs[p.Alloc].Job].Interactive {
				t.Fatalf("interactive task preempted: %+v", p)
			}
		}
	})
	t.Run("a project below quota reclaims from an over-quota one", func(t *testing.T) {
		s := quotaSnap(2, 4, "A", 4, "B", 4)
		a := addJob(s, "a-train", 0, 1, 0, false)
		for i := range 8 {
			addRun(s, a, i/4, 1, int64(i))
		}
		addJob(s, "b-train", 1, 1, 4, false)
		plan := quotaPlan(t, s)
		if len(plan.Preemptions) != 4 {
			t.Fatalf("%d preemptions, want 4 (B reclaims up to its quota)", len(plan.Preemptions))
		}
		for _, p := range plan.Preemptions {
			if s.Allocs[p.Alloc].Start < 4 {
				t.Fatalf("preempted an older task %+v; want the newest first", s.Allocs[p.Alloc])
			}
		}
	})
	t.Run("reclaim never pushes the victim below its quota", func(t *testing.T) {
		s := quotaSnap(2, 4, "A", 6, "B", 4)
		a := addJob(s, "a-train", 0, 1, 0, false)
		for i := range 8 {
			addRun(s, a, i/4, 1, int64(i))
		}
		addJob(s, "b-train", 1, 1, 4, false)
		plan := quotaPlan(t, s)
		// A may only give back what it holds above its quota of 6.
		if len(plan.Preemptions) != 2 {
			t.Fatalf("%d preemptions, want 2", len(plan.Preemptions))
		}
	})
	t.Run("bin packing leaves whole nodes free", func(t *testing.T) {
		s := quotaSnap(4, 8, "A", 16)
		addJob(s, "small", 0, 1, 6, false)
		addJob(s, "pair", 0, 2, 1, false)
		plan := quotaPlan(t, s)
		used := map[int32]bool{}
		for _, st := range plan.Starts {
			for _, ns := range st.Nodes {
				used[ns.Node] = true
			}
		}
		if len(used) != 1 {
			t.Fatalf("starts spread over %d nodes, want 1 so that 3 stay whole", len(used))
		}
	})
	t.Run("hard limit", func(t *testing.T) {
		s := quotaSnap(1, 8, "A", 2, "B", 2)
		s.Projects[0].Limit = 3
		j := addJob(s, "a", 0, 1, 8, false)
		plan := quotaPlan(t, s)
		if got := projectHeld(s, plan)["A"]; got != 3 {
			t.Fatalf("A holds %d, want its limit 3", got)
		}
		var found bool
		for _, p := range plan.Pending {
			if p.Job == j && p.Reason == ReasonLimit {
				found = true
			}
		}
		if !found {
			t.Fatalf("pending %+v, want a project_limit reason for A's job", plan.Pending)
		}
	})
}

func TestFill(t *testing.T) {
	cases := []struct {
		name   string
		caps   []int32
		w      []float64
		total  int32
		expect []int32
	}{
		{"proportional", []int32{100, 100}, []float64{3, 1}, 4, []int32{3, 1}},
		{"capped item gives way", []int32{1, 100}, []float64{3, 1}, 8, []int32{1, 7}},
		{"rounding to the largest remainder", []int32{10, 10, 10}, []float64{1, 1, 1}, 4, []int32{2, 1, 1}},
		{"no weight gets nothing", []int32{5, 5}, []float64{0, 1}, 4, []int32{0, 4}},
		{"total beyond caps", []int32{2, 3}, []float64{1, 1}, 10, []int32{2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := make([]int32, len(c.caps))
			fill(c.caps, c.w, c.total, out)
			for i := range out {
				if out[i] != c.expect[i] {
					t.Fatalf("fill = %v, want %v", out, c.expect)
				}
			}
		})
	}
}
