package sim_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/sim"
)

// TestSearchProperties replays random experiments with random curves on
// random clusters, with urgent work that preempts trials, and checks from
// the JSON result alone that every decision respects the divisor: a trial
// joining a rung that then holds n values goes on exactly when it ranks in
// the top max(1, n/divisor) of them (ties rank the earlier value first),
// so the trials reaching rung k+1 are the ones promoted at rung k. This
// is the asynchronous rule; it does not bound the promoted share by
// 1/divisor, since a rung that receives ever better values promotes each
// of them (ASHA never waits for a rung to fill). It also checks that a
// stopped trial freed its slots at the report that stopped it, and that
// runs are deterministic.
func TestSearchProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	// seen counts what the cases exercised, so that the test cannot pass
	// by checking nothing.
	seen := map[string]int{}
	for i := range 300 {
		in, jobs := searchGen(rng)
		t.Run(fmt.Sprintf("case-%d", i), func(t *testing.T) {
			res := runSearch(t, in, jobs)
			for _, spec := range jobs {
				if spec.Search == nil {
					continue
				}
				j := job(t, res, spec.Name)
				if j.State != sim.StateCompleted || j.Search == nil {
					t.Fatalf("%s: %s, search %v; want completed with a search", j.Name, j.State, j.Search)
				}
				checkRungs(t, spec.Search.Config, j.Search)
				checkStopsFreeSlots(t, j)
				count(seen, j)
			}
			again := runSearch(t, searchInput(in, jobs), jobs)
			a, _ := json.Marshal(res)
			b, _ := json.Marshal(again)
			if !bytes.Equal(a, b) {
				t.Fatalf("two runs of one input differ")
			}
		})
	}
	t.Logf("exercised: %v", seen)
	for _, what := range []string{sim.RungPromoted, sim.RungStopped, sim.RungDone, "preempted trials", "brackets > 1"} {
		if seen[what] < 10 {
			t.Errorf("the cases saw %d %s; want at least 10 (counts: %v)", seen[what], what, seen)
		}
	}
}

// count adds up the decisions, preemptions and brackets of one result.
func count(seen map[string]int, j sim.JobResult) {
	for _, tr := range j.Search.Trials {
		for _, jn := range tr.Rungs {
			seen[jn.Decision]++
		}
	}
	for _, a := range j.Attempts {
		if a.State == sim.AttemptPreempted {
			seen["preempted trials"]++
		}
	}
	if len(j.Search.Rungs) > 1 {
		seen["brackets > 1"]++
	}
}

func runSearch(t *testing.T, in *sim.Input, jobs []sim.JobSpec) *sim.Result {
	t.Helper()
	res, err := sim.Run(in, sim.Options{Until: -1, Attempts: true})
	if err != nil {
		t.Fatalf("%v\njobs: %+v", err, jobs)
	}
	return res
}

func searchInput(in *sim.Input, jobs []sim.JobSpec) *sim.Input {
	return &sim.Input{Pools: in.Pools, Jobs: sim.NewSliceSource(jobs)}
}

// searchGen builds one pool with one or two experiments and some urgent
// commands that may preempt them.
func searchGen(rng *rand.Rand) (*sim.Input, []sim.JobSpec) {
	pol := propPolicies[rng.IntN(len(propPolicies))]
	p := sim.Pool{Pool: sched.Pool{Name: "gpu", Policy: pol, Preemption: pol != sched.PolicyFIFO && pol != sched.PolicyBackfill && rng.IntN(3) > 0,
		Placement: sched.PlaceBinpack}, CheckpointCost: int64(rng.IntN(3)) * 30}
	if pol == sched.PolicyBackfill {
		p.Reservations = sched.ReserveEASY
	}
	for n := range 1 + rng.IntN(3) {
		p.Nodes = append(p.Nodes, sched.Node{Name: fmt.Sprintf("n%d", n), Slots: 1 + rng.IntN(4), ZeroSlotLimit: 100})
	}
	var jobs []sim.JobSpec
	for e := range 1 + rng.IntN(2) {
		jobs = append(jobs, searchJob(rng, fmt.Sprintf("exp%d", e), p.Nodes[0].Slots))
	}
	for c := range rng.IntN(3) {
		jobs = append(jobs, sim.JobSpec{Name: fmt.Sprintf("urgent%d", c), Kind: sched.KindCommand, Submit: int64(rng.IntN(120)) * 60,
			Tasks: 1, MaxConcurrent: 1, Slots: 1, Duration: int64(1+rng.IntN(30)) * 60, Priority: 10, Weight: 1})
	}
	return searchInput(&sim.Input{Pools: []sim.Pool{p}}, jobs), jobs
}

// searchJob makes an experiment with a random valid searcher and random
// curves: values from a small set, so that ties happen, at random steps
// that mostly include the rung lengths.
func searchJob(rng *rand.Rand, name string, maxSlots int) sim.JobSpec {
	for {
		cfg := searcher.Config{Metric: "loss", SmallerIsBetter: rng.IntN(2) == 0,
			Divisor: []float64{2, 2.5, 3, 4}[rng.IntN(4)], NumRungs: 1 + rng.IntN(4), MaxTrials: 1 + rng.IntN(16)}
		cfg.MaxLength = int64(math.Ceil(math.Pow(cfg.Divisor, float64(cfg.NumRungs-1)))) * int64(1+rng.IntN(3))
		cfg.Brackets = 1 + rng.IntN(min(cfg.NumRungs, cfg.MaxTrials))
		if cfg.Validate() != nil {
			continue
		}
		rungs := map[int64]bool{}
		for b := range cfg.Brackets {
			for _, l := range searcher.RungLengths(cfg.MaxLength, cfg.Divisor, cfg.NumRungs-b) {
				rungs[l] = true
			}
		}
		ss := &sim.SearchSpec{Name: "adaptive_asha", Config: cfg, StepTime: int64(1+rng.IntN(10)) * 60}
		for range cfg.MaxTrials {
			var c []sim.MetricPoint
			for x := int64(0); x <= cfg.MaxLength; x++ {
				if (rungs[x] && rng.IntN(10) > 0) || rng.IntN(8) == 0 {
					c = append(c, sim.MetricPoint{Step: x, Value: float64(rng.IntN(10)) / 10})
				}
			}
			ss.Curves = append(ss.Curves, c)
		}
		every := int64(0)
		if rng.IntN(2) == 0 {
			every = ss.StepTime * int64(1+rng.IntN(3))
		}
		return sim.JobSpec{Name: name, Kind: sched.KindExperiment, Submit: int64(rng.IntN(30)) * 60, Tasks: cfg.MaxTrials,
			MaxConcurrent: 1 + rng.IntN(cfg.MaxTrials), Slots: 1 + rng.IntN(min(maxSlots, 2)), Duration: cfg.MaxLength * ss.StepTime,
			Priority: 42, Weight: 1, Preemptible: true, CheckpointEvery: every, Search: ss}
	}
}

// checkRungs checks each rung of each bracket against the rule, from the
// values, the order the trials joined in (RungTrials) and the decisions.
func checkRungs(t *testing.T, cfg searcher.Config, r *sim.SearchResult) {
	t.Helper()
	for b, lengths := range r.Rungs {
		for k, length := range lengths {
			var joins []sim.RungResult
			for _, tr := range r.Trials {
				if tr.Bracket == b && len(tr.Rungs) > k {
					joins = append(joins, tr.Rungs[k])
				}
			}
			slices.SortFunc(joins, func(x, y sim.RungResult) int { return cmp.Compare(x.RungTrials, y.RungTrials) })
			for m, jn := range joins {
				rank := 0
				for _, e := range joins[:m] {
					if e.Value == jn.Value || (e.Value < jn.Value) == cfg.SmallerIsBetter {
						rank++
					}
				}
				want := sim.RungStopped
				switch {
				case k == len(lengths)-1:
					want = sim.RungDone
				case float64(rank) < max(float64(m+1)/cfg.Divisor, 1):
					want = sim.RungPromoted
				}
				if jn.RungTrials != m+1 || jn.Decision != want || jn.Step < length {
					t.Errorf("bracket %d rung %d (length %d): join %+v ranks %d of %d, want rung_trials %d, decision %s",
						b, k, length, jn, rank, m+1, m+1, want)
				}
			}
		}
	}
	for _, tr := range r.Trials {
		for k, jn := range tr.Rungs {
			if jn.Rung != k || (k < len(tr.Rungs)-1 && jn.Decision != sim.RungPromoted) || (k > 0 && jn.At < tr.Rungs[k-1].At) {
				t.Errorf("trial %d: rungs %+v: want rungs 0, 1, ... in time order, all but the last promoted", tr.Trial, tr.Rungs)
			}
		}
	}
}

// checkStopsFreeSlots: a stopped trial's last attempt ends, completed, at
// the report that stopped it.
func checkStopsFreeSlots(t *testing.T, j sim.JobResult) {
	t.Helper()
	for _, tr := range j.Search.Trials {
		if tr.Decision != searcher.Stop {
			continue
		}
		var last *sim.Attempt
		for i := range j.Attempts {
			if j.Attempts[i].Task == tr.Trial {
				last = &j.Attempts[i]
			}
		}
		at := tr.Rungs[len(tr.Rungs)-1].At
		if last == nil || last.End == nil || *last.End != at || last.State != sim.AttemptCanceled {
			t.Errorf("trial %d stopped at %d, but its last attempt is %+v", tr.Trial, at, last)
		}
	}
}
