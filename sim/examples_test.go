package sim_test

import (
	"path/filepath"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/sim"
)

// TestExamples replays the scenarios under examples/, as the README and
// the docs tell people to, and checks a few things each is there to show,
// and at every pass that no license is over-committed. (examples/cluster.yaml
// is a master configuration, not a scenario.)
func TestExamples(t *testing.T) {
	var files []string
	for _, name := range []string{"quickstart.yaml", "quota.yaml", "osmo-pools.yaml", "multifactor.yaml", "licenses.yaml",
		"topology.yaml", "elastic.yaml", "consolidation.yaml", "thrash.yaml", "asha.yaml"} {
		files = append(files, filepath.Join("..", "examples", name))
	}
	checks := map[string]func(t *testing.T, res *sim.Result){
		"multifactor.yaml":   checkMultifactorExample,
		"licenses.yaml":      checkLicensesExample,
		"topology.yaml":      checkTopologyExample,
		"elastic.yaml":       checkElasticExample,
		"consolidation.yaml": checkConsolidationExample,
		"thrash.yaml":        checkThrashExample,
		"asha.yaml":          checkASHAExample,
		"quota.yaml": func(t *testing.T, res *sim.Result) {
			for _, nb := range []string{"ann-notebook", "kim-notebook"} {
				if j := job(t, res, nb); j.Preemptions != 0 || j.Start == nil || *j.Start != *j.Wait+j.Submit || *j.Wait > minute {
					t.Errorf("%s = %+v: a notebook within quota starts after at most a checkpoint and is never preempted", nb, j)
				}
			}
			if len(res.Projects) != 4 {
				t.Errorf("%d projects in the result, want 4", len(res.Projects))
			}
		},
		"osmo-pools.yaml": func(t *testing.T, res *sim.Result) {
			if j := job(t, res, "lidar-sweep"); j.Preemptions == 0 {
				t.Errorf("lidar-sweep (LOW, borrowing) was never preempted")
			}
			if j := job(t, res, "planner-hotfix"); j.Project != "planning" {
				t.Errorf("planner-hotfix reports project %q, want its pool planning", j.Project)
			}
		},
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			w, err := sim.LoadWorkload(f, sim.WorkloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rp, err := w.Open(sim.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(rp.Input, sim.Options{Until: -1, Timeline: true, Attempts: true,
				Inspect: func(now int64, s *sched.Snapshot, p *sched.Plan) { checkLicenses(t, now, s, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Metrics.Completed == 0 {
				t.Errorf("no job completed")
			}
			if check := checks[name]; check != nil {
				check(t, res)
			}
		})
	}
}

func checkMultifactorExample(t *testing.T, res *sim.Result) {
	for _, j := range res.Jobs {
		if j.Priority == nil || j.Account == "" {
			t.Errorf("%s: priority %v, account %q; every job of a multifactor pool has both", j.Name, j.Priority, j.Account)
		}
	}
	startAt(t, res, "tornado-forecast", 6*hour+31*minute)
	if j := job(t, res, "sweep"); j.Preemptions != 16 {
		t.Errorf("the sweep was preempted %d times, want 16 (for the emergency)", j.Preemptions)
	}
	// Julie and mendle tie on fair share (neither group has used
	// anything): mendle's larger job goes first, by its size.
	startAt(t, res, "denovo-126", 2*hour)
	if j, d := job(t, res, "neutro3-127"), job(t, res, "denovo-126"); j.Preemptions != 0 || j.Start == nil || d.End == nil || *j.Start < *d.End {
		t.Errorf("neutro3-127 = %+v: markov's account has used the most, so his later job waits for the biologists' (denovo-126: %+v)", j, d)
	}
	if len(res.Accounts) != 9 {
		t.Errorf("%d accounts, want the 5 declared and 4 users", len(res.Accounts))
	}
}

func checkLicensesExample(t *testing.T, res *sim.Result) {
	startAt(t, res, "gpu-fit", 2*hour)        // when the matlab study frees its seats
	startAt(t, res, "ansys-short", 40*minute) // backfills: it ends before the head's reservation
	if h, l := job(t, res, "ansys-head"), job(t, res, "ansys-late"); *l.Start < *h.Start {
		t.Errorf("ansys-late started at %s, before the head (%s): it would hold a seat the head needs", startOf(l), startOf(h))
	}
}

func checkTopologyExample(t *testing.T, res *sim.Result) {
	startAt(t, res, "pretrain", 3*hour)
	startAt(t, res, "sweep", 30*minute)
}

func checkElasticExample(t *testing.T, res *sim.Result) {
	if res.Metrics.Resizes != 2 {
		t.Errorf("%d resizes, want 2 (tune to 4, train to 8)", res.Metrics.Resizes)
	}
	// Each resize does no work for the 2m checkpoint: tune ends at
	// 2h47m, and train, growing then, at 5h25m30s.
	if j := job(t, res, "train"); j.End == nil || *j.End != 5*hour+25*minute+30 {
		t.Errorf("train ends at %v, want 5h25m30s", j.End)
	}
	if got := slotsAt(res, 2*hour+48*minute)["train"]; got != 12 {
		t.Errorf("train holds %d GPUs while it checkpoints, want 8 + 4", got)
	}
	if got := slotsAt(res, 2*hour+49*minute)["train"]; got != 8 {
		t.Errorf("train holds %d GPUs once its checkpoint landed, want 8", got)
	}
}

func checkConsolidationExample(t *testing.T, res *sim.Result) {
	startAt(t, res, "pretrain", 11*minute)
	if res.Metrics.Moves == 0 || res.Metrics.Preemptions != 0 {
		t.Errorf("moves %d, preemptions %d; want moves and no preemption", res.Metrics.Moves, res.Metrics.Preemptions)
	}
}

// checkThrashExample: no preempted attempt had run less than the pool's
// 15 minutes, and the research budget of 4 per hour holds.
func checkThrashExample(t *testing.T, res *sim.Result) {
	var at []int64
	for _, a := range job(t, res, "sweep").Attempts {
		if a.State != sim.AttemptPreempted {
			continue
		}
		asked := *a.End - minute // the checkpoint takes a minute
		if asked-a.Start < 15*minute {
			t.Errorf("attempt %+v preempted after %ds of running", a, asked-a.Start)
		}
		at = append(at, asked)
	}
	for i := range at {
		n := 0
		for _, b := range at {
			if b > at[i]-hour && b <= at[i] {
				n++
			}
		}
		if n > 4 {
			t.Errorf("%d preemptions in the hour to %s, budget 4", n, sim.Clock(at[i]))
		}
	}
	if len(at) == 0 {
		t.Errorf("nothing was preempted: the example shows nothing")
	}
}

// checkASHAExample: the searcher stops trials at every rung but the top,
// the best trial (8: the lowest limit of the fast enough learners) trains
// to the end, slow learners with good limits are stopped at the first
// rung, and the urgent evaluation preempts trials, which resume.
func checkASHAExample(t *testing.T, res *sim.Result) {
	j := job(t, res, "search")
	if j.Search == nil || len(j.Search.Trials) != 27 {
		t.Fatalf("search %+v, want 27 trials", j.Search)
	}
	stops := map[int]int{}
	for _, tr := range j.Search.Trials {
		if tr.Decision == searcher.Stop {
			stops[tr.Rungs[len(tr.Rungs)-1].Rung]++
		}
	}
	if stops[0] == 0 || stops[1] == 0 || stops[2] == 0 {
		t.Errorf("stops per rung %v, want some at rungs 0, 1 and 2", stops)
	}
	if tr := j.Search.Trials[8]; tr.Decision != searcher.Done {
		t.Errorf("trial 8 (the best) %s, want done", tr.Decision)
	}
	for _, slow := range []int{3, 11, 21} {
		if tr := j.Search.Trials[slow]; tr.Decision != searcher.Stop || len(tr.Rungs) != 1 {
			t.Errorf("slow learner %d: %s after %d rungs, want stopped at rung 0", slow, tr.Decision, len(tr.Rungs))
		}
	}
	if j.Preemptions == 0 {
		t.Errorf("no trial was preempted by the urgent evaluation")
	}
	startAt(t, res, "eval", 2*hour+minute)
}
