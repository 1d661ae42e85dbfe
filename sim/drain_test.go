package sim_test

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// TestDrain replays drain and resume events: a drained node's tasks run
// on, none starts there, and none there is preempted (it would free
// nothing the preemptor may use) until it is resumed: the core preempts
// elsewhere.
func TestDrain(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string // the decision log
	}{
		{"preempts off the drained node", "drain-node.yaml", []string{
			"0 start low task=0 attempt=1 nodes=node-1:8",
			"0 start mid task=0 attempt=1 nodes=node-2:4",
			"3600 preempt low task=0 attempt=1 nodes=node-1:8",
			"3600 end low task=0 attempt=1 how=preempted",
			"3600 start urgent task=0 attempt=1 nodes=node-1:4",
			"7200 end mid task=0 attempt=1 how=completed",
			"7200 end urgent task=0 attempt=1 how=completed",
			"7200 start low task=0 attempt=2 nodes=node-1:8",
			"14400 end low task=0 attempt=2 how=completed",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Load(filepath.Join(scenarioDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := decisionlog.Format(sim.Decisions(runAttempts(t, sc), nil))
			if want := strings.Join(tc.want, "\n") + "\n"; got != want {
				t.Errorf("decisions:\n%swant:\n%s", got, want)
			}
		})
	}
}

// TestRandomDrains replays every scenario of the repository with nodes
// drained and resumed at random times (some lost meanwhile), every
// attempt recorded, and checks from the JSON result alone (issue 14,
// item 8) that no attempt started on a drained node nor grew there by a
// move or resize, that no node ever ran more than its slots, and that the
// run is deterministic.
func TestRandomDrains(t *testing.T) {
	changed := 0
	eachRepoScenario(t, func(t *testing.T, i int, sc *scenario.Scenario, in *sim.Input) {
		base, err := sim.Run(in, sim.Options{Until: -1, Attempts: true})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 14))
		drains := randomLosses(rng, in, base.End)
		down := randomLosses(rng, in, base.End)[:1]
		var events []sim.Event
		for _, d := range drains {
			events = append(events, sim.Event{At: d.from, Kind: sim.EventNodeDrain, Node: d.node},
				sim.Event{At: d.to, Kind: sim.EventNodeResume, Node: d.node})
		}
		events = append(events, sim.Event{At: down[0].from, Kind: sim.EventNodeDown, Node: down[0].node},
			sim.Event{At: down[0].to, Kind: sim.EventNodeUp, Node: down[0].node})
		own := in.Events
		res, in := runTwice(t, sc, events)
		checkNodeLoad(t, res, in)
		checkNothingOnDownNodes(t, res, down)
		checkNothingNewOnDrained(t, res, resumedBy(drains, own))
		if decisionlog.Format(sim.Decisions(res, nil)) != decisionlog.Format(sim.Decisions(base, nil)) {
			changed++
		}
	})
	// The drains must have changed some runs, or this checks little.
	if changed < 10 {
		t.Errorf("only %d runs changed by their drains", changed)
	}
	t.Logf("%d runs changed by their drains", changed)
}

// resumedBy ends each drain window at the first of the scenario's own
// resumes of its node within it: a scenario that drains and resumes a
// node itself (drain-node.yaml) may resume it while a random drain holds.
func resumedBy(drains []downtime, own []sim.Event) []downtime {
	out := slices.Clone(drains)
	for i := range out {
		d := &out[i]
		for _, e := range own {
			if e.Kind == sim.EventNodeResume && e.Node == d.node && d.from <= e.At && e.At < d.to {
				d.to = e.At
			}
		}
	}
	return out
}

// checkNothingNewOnDrained checks that no attempt started on a node (a
// zero-slot part included) while it was drained, and that no move or
// resize then gave an attempt more of it than it held: the drain begins
// before the passes of its instant, and the resume too.
func checkNothingNewOnDrained(t *testing.T, res *sim.Result, drains []downtime) {
	t.Helper()
	drained := func(node string, at int64) bool {
		for _, d := range drains {
			if d.node == node && d.from <= at && at < d.to {
				return true
			}
		}
		return false
	}
	held := func(nodes []sim.AttemptNode, node string) (int, bool) {
		for _, n := range nodes {
			if n.Node == node {
				return n.Slots, true
			}
		}
		return 0, false
	}
	for _, jr := range res.Jobs {
		for _, a := range jr.Attempts {
			for _, n := range a.Nodes {
				if drained(n.Node, a.Start) {
					t.Fatalf("job %s: task %d started on %s at %d, drained then", jr.Name, a.Task, n.Node, a.Start)
				}
			}
			nodes := a.Nodes
			for _, m := range a.Moves {
				for _, n := range m.Nodes {
					before, had := held(nodes, n.Node)
					if drained(n.Node, m.At) && (n.Slots > before || !had) {
						t.Fatalf("job %s: task %d moved to %d slots of %s at %d (held %d), drained then",
							jr.Name, a.Task, n.Slots, n.Node, m.At, before)
					}
				}
				nodes = m.Nodes
			}
		}
	}
}
