package sim_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// TestIssue14Outcomes checks the expected outcome of each issue 14
// scenario beyond its golden file: when the job the case is about starts,
// and how many tasks were preempted for it.
func TestIssue14Outcomes(t *testing.T) {
	tests := []struct {
		file        string
		job         string
		start       int64
		preemptions int // of the whole run
	}{
		// The whole-node cases: 8 one-GPU victims on one node.
		{"issue14-quota-whole-node", "train", 31 * minute, 8},
		{"issue14-fair-share-whole-node", "bob", 31 * minute, 8},
		{"issue14-mixed-gang", "gang", 0, 0},
		{"issue14-mixed-gang", "after", hour, 0},
		{"issue14-conservative-gap", "small", 2 * minute, 0},
		{"issue14-conservative-gap", "head", 2 * hour, 0},
		{"issue14-set-priority-class", "urgent-1", hour + minute, 1},
		{"issue14-set-priority-class", "urgent-2", 2*hour + minute, 1},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.job, func(t *testing.T) {
			res := runScenario(t, filepath.Join(scenarioDir, tc.file+".yaml"))
			jr := job(t, res, tc.job)
			if jr.Start == nil || *jr.Start != tc.start {
				t.Errorf("%s starts at %v, want %d", tc.job, fmtStart(jr.Start), tc.start)
			}
			if res.Metrics.Preemptions != tc.preemptions {
				t.Errorf("%d preemptions, want %d", res.Metrics.Preemptions, tc.preemptions)
			}
		})
	}
}

func fmtStart(p *int64) any {
	if p == nil {
		return "never"
	}
	return *p
}

// TestSetPriorityClassPreemptible: the job moved into LOW is the one
// preempted, the one moved out of LOW is not.
func TestSetPriorityClassPreemptible(t *testing.T) {
	res := runScenario(t, filepath.Join(scenarioDir, "issue14-set-priority-class.yaml"))
	for name, want := range map[string]int{"normal": 1, "low": 0} {
		if got := job(t, res, name).Preemptions; got != want {
			t.Errorf("%s preempted %d times, want %d", name, got, want)
		}
	}
}

// TestAttemptNodesWithinCapacity checks, from the JSON result alone, that
// no node ever runs more slots than it has: every attempt names its nodes
// (and those of its moves), so the per-node load can be swept over time.
func TestAttemptNodesWithinCapacity(t *testing.T) {
	eachRepoScenario(t, func(t *testing.T, _ int, _ *scenario.Scenario, in *sim.Input) {
		res, err := sim.Run(in, sim.Options{Until: -1, Attempts: true})
		if err != nil {
			t.Fatal(err)
		}
		checkNodeLoad(t, res, in)
	})
}

// checkNodeLoad sweeps every attempt's placements over time against the
// slots of in's nodes.
func checkNodeLoad(t *testing.T, res *sim.Result, in *sim.Input) {
	t.Helper()
	size := map[string]int{}
	for _, p := range in.Pools {
		for _, n := range p.Nodes {
			size[n.Name] = n.Slots
		}
	}
	type change struct {
		at    int64
		node  string
		delta int
	}
	var ch []change
	add := func(nodes []sim.AttemptNode, from, to int64) {
		for _, n := range nodes {
			if n.Slots == 0 {
				continue
			}
			if size[n.Node] == 0 {
				t.Fatalf("attempt on unknown node %q", n.Node)
			}
			ch = append(ch, change{from, n.Node, n.Slots}, change{to, n.Node, -n.Slots})
		}
	}
	for _, jr := range res.Jobs {
		for _, a := range jr.Attempts {
			if len(a.Nodes) == 0 {
				t.Fatalf("job %s: an attempt without nodes", jr.Name)
			}
			end := res.End
			if a.End != nil {
				end = *a.End
			}
			from, nodes := a.Start, a.Nodes
			for _, m := range a.Moves {
				add(nodes, from, m.At)
				from, nodes = m.At, m.Nodes
			}
			add(nodes, from, end)
		}
	}
	// Ends before starts at the same instant.
	slices.SortStableFunc(ch, func(a, b change) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.delta, b.delta)
	})
	load := map[string]int{}
	for _, c := range ch {
		load[c.node] += c.delta
		if load[c.node] > size[c.node] {
			t.Fatalf("t=%d: node %s runs %d slots, it has %d", c.at, c.node, load[c.node], size[c.node])
		}
	}
}

// eachRepoScenario runs fn, as a subtest, on every scenario file of the
// repository's scenario directories, loaded, its input built; i numbers
// the files within their directory.
func eachRepoScenario(t *testing.T, fn func(t *testing.T, i int, sc *scenario.Scenario, in *sim.Input)) {
	for _, dir := range []string{scenarioDir, quotaDir, "../testdata/mechanisms"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for i, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				sc, err := scenario.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				in, err := sim.FromScenario(sc, nil)
				if err != nil {
					t.Fatal(err)
				}
				fn(t, i, sc, in)
			})
		}
	}
}

// runTwice runs scenario sc with events added, every attempt recorded,
// twice, fails if the two results differ, and returns the first with its
// input.
func runTwice(t *testing.T, sc *scenario.Scenario, events []sim.Event) (*sim.Result, *sim.Input) {
	t.Helper()
	var runs [2]*sim.Result
	var in *sim.Input
	for k := range runs {
		var err error
		if in, err = sim.FromScenario(sc, nil); err != nil {
			t.Fatal(err)
		}
		in.Events = append(in.Events, events...)
		if runs[k], err = sim.Run(in, sim.Options{Until: -1, Attempts: true}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := json.Marshal(runs[0])
	b, _ := json.Marshal(runs[1])
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of the same input differ")
	}
	return runs[0], in
}
