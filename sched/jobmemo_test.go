package sched

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestIncrementalJobs checks that a Scheduler reusing its per-job answers
// across passes (jobmemo.go: queue orders, validations, whether a job can
// ever fit) plans exactly as a fresh one. Each random cluster, with pools
// of every policy (quota too), goes through a sequence of snapshots: the
// plan applies, allocations end, jobs exit and are submitted (at the end
// and in the middle, so that indices shift), priorities change, and now
// and then jobs swap places or lose their Rev. Revs are given as a caller
// would: a job keeps its Rev while unchanged and gets a new one otherwise.
func TestIncrementalJobs(t *testing.T) {
	defer func(n int) { memoMinJobs = n }(memoMinJobs)
	memoMinJobs = 1
	rng := rand.New(rand.NewPCG(3, 17))
	var reused Scheduler
	var rev uint64
	kept, steps := 0, 0
	for c := range 500 {
		s := randSnapshot(rng, defaultGen)
		if rng.IntN(3) == 0 {
			quotaize(rng, s)
		}
		if c%2 == 0 {
			s.NodesVersion = uint64(c + 1)
		}
		var prev *Snapshot
		for step := range 8 {
			kept += giveRevs(rng, prev, s, &rev)
			steps++
			p, err := reused.Schedule(s)
			if err != nil {
				t.Fatalf("case %d step %d: %v", c, step, err)
			}
			plan := clonePlan(p)
			fresh := mustSchedule(t, s)
			if !plansEqual(&plan, &fresh) {
				t.Fatalf("case %d step %d: reused Scheduler differs from a fresh one\nreused:\n%sfresh:\n%ssnapshot:\n%s",
					c, step, fmtPlan(s, &plan), fmtPlan(s, &fresh), fmtSnapshot(s))
			}
			next := cloneSnapshot(s)
			evolve(rng, next, &plan)
			churn(rng, next, step)
			prev, s = s, next
		}
	}
	if kept < steps {
		t.Fatalf("only %d jobs kept their Rev over %d steps: the test proves little", kept, steps)
	}
}

// quotaize turns one pool into a quota pool with three projects.
func quotaize(rng *rand.Rand, s *Snapshot) {
	pool := rng.IntN(len(s.Pools))
	s.Pools[pool].Policy = PolicyQuota
	s.Projects = nil
	for p := range 3 {
		s.Projects = append(s.Projects, Project{Name: fmt.Sprintf("p%d", p), Parent: -1, Quota: 2 + rng.IntN(10),
			OverQuotaWeight: 1})
	}
	for i := range s.Jobs {
		s.Jobs[i].Project = rng.IntN(3)
		s.Jobs[i].Borrow = rng.IntN(6) == 0
	}
}

// churn makes the caller's changes between passes: exits, submissions
// (appended or inserted), priority changes, and rarely two jobs swapping
// places. Allocations follow their jobs' new indices.
func churn(rng *rand.Rand, s *Snapshot, step int) {
	var jobs []Job
	newIdx := make([]int, len(s.Jobs))
	for i, j := range s.Jobs {
		newIdx[i] = -1
		if rng.IntN(8) == 0 {
			continue // the job exits, and its tasks with it
		}
		if rng.IntN(10) == 0 {
			j.Priority = 1 + rng.IntN(6)
		}
		if rng.IntN(10) == 0 && len(s.Jobs) > 0 {
			// A submission in the middle shifts the jobs after it.
			jobs = append(jobs, newJob(rng, s, step, len(jobs)))
		}
		newIdx[i] = len(jobs)
		jobs = append(jobs, j)
	}
	for k := rng.IntN(4); k > 0 && len(s.Jobs) > 0; k-- {
		jobs = append(jobs, newJob(rng, s, step, len(jobs)))
	}
	allocs := s.Allocs[:0]
	for _, a := range s.Allocs {
		if newIdx[a.Job] >= 0 {
			a.Job = newIdx[a.Job]
			allocs = append(allocs, a)
		}
	}
	if len(jobs) > 1 && rng.IntN(6) == 0 {
		x, y := rng.IntN(len(jobs)), rng.IntN(len(jobs))
		jobs[x], jobs[y] = jobs[y], jobs[x]
		for i := range allocs {
			switch allocs[i].Job {
			case x:
				allocs[i].Job = y
			case y:
				allocs[i].Job = x
			}
		}
	}
	s.Jobs, s.Allocs = jobs, allocs
}

// newJob is a copy of a random job of s under a new name, with new
// waiting tasks and a new priority.
func newJob(rng *rand.Rand, s *Snapshot, step, at int) Job {
	j := s.Jobs[rng.IntN(len(s.Jobs))]
	j.ID = fmt.Sprintf("new%d-%d-%d", step, at, rng.IntN(1000))
	j.Seq = int64(1000 + rng.IntN(1000))
	j.Submit = s.Now
	j.Waiting = 1 + rng.IntN(3)
	j.Priority = 1 + rng.IntN(6)
	j.Licenses = slices.Clone(j.Licenses)
	j.ReservedNodes, j.Reserved = nil, 0
	return j
}

// giveRevs sets each job's Rev as a caller would: the Rev of the same job
// (by ID) in prev when the job is unchanged, else a new one; now and then
// a fresh one anyway, or 0. It returns how many kept theirs.
func giveRevs(rng *rand.Rand, prev, s *Snapshot, rev *uint64) int {
	old := map[string]Job{}
	if prev != nil {
		for _, j := range prev.Jobs {
			old[j.ID] = j
		}
	}
	kept := 0
	for i := range s.Jobs {
		j := &s.Jobs[i]
		o, ok := old[j.ID]
		j.Rev = 0
		if ok && o.Rev != 0 && rng.IntN(20) > 0 {
			r := o.Rev
			o.Rev = 0
			if reflect.DeepEqual(o, *j) {
				j.Rev = r
				kept++
				continue
			}
		}
		if rng.IntN(30) > 0 {
			*rev++
			j.Rev = *rev
		}
	}
	return kept
}

// TestMemoRevalidates checks that a job kept by its Rev is validated
// again when what validation compares it with changes.
func TestMemoRevalidates(t *testing.T) {
	defer func(n int) { memoMinJobs = n }(memoMinJobs)
	memoMinJobs = 1
	s := &Snapshot{Now: 10, Pools: []Pool{{Name: "q", Policy: PolicyQuota}},
		Nodes:    []Node{{Name: "n0", Slots: 4}},
		Projects: []Project{{Name: "a", Parent: -1, Quota: 2}, {Name: "b", Parent: -1, Quota: 2}},
		Jobs: []Job{{ID: "x", Kind: KindExperiment, Slots: 1, Waiting: 1, MaxRunning: 1, Weight: 1, Project: 1, Rev: 1},
			{ID: "y", Kind: KindExperiment, Slots: 9, Waiting: 1, MaxRunning: 1, Weight: 1, Project: 0, Rev: 2}}}
	var sc Scheduler
	if _, err := sc.Schedule(s); err != nil {
		t.Fatal(err)
	}
	s.Projects = s.Projects[:1] // job x's project is gone; x keeps its Rev
	if _, err := sc.Schedule(s); err == nil {
		t.Fatal("a kept job whose project index went out of range passed validation")
	}
	s.Projects = append(s.Projects, Project{Name: "b", Parent: -1, Quota: 2})
	if _, err := sc.Schedule(s); err != nil {
		t.Fatal(err)
	}
	s.Pools[0].Policy = "nonsense"
	if _, err := sc.Schedule(s); err == nil {
		t.Fatal("an unknown policy passed validation")
	}
}
