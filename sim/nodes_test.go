package sim_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// TestNodeDown replays node_down and node_up events with every attempt
// recorded: the attempts on a lost node end lost, a preemptible gang
// restarts elsewhere with the work of its last checkpoint, a job that is
// not preemptible fails, and a job waits for nodes that come back.
func TestNodeDown(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string // the decision log
	}{
		{"gang restarts elsewhere", "node-down-gang.yaml", []string{
			"0 start eval task=0 attempt=1 nodes=node-3:8",
			"0 start train task=0 attempt=1 nodes=node-1:8,node-2:8",
			"4500 end train task=0 attempt=1 how=lost",
			"4500 start train task=0 attempt=2 nodes=node-1:8,node-4:8",
			"7200 end eval task=0 attempt=1 how=lost",
			"10800 start late task=0 attempt=1 nodes=node-2:8,node-3:8",
			"14400 end late task=0 attempt=1 how=completed",
			"15300 end train task=0 attempt=2 how=completed",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Load(filepath.Join(scenarioDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			res := runAttempts(t, sc)
			got := decisionlog.Format(sim.Decisions(res, nil))
			if want := strings.Join(tc.want, "\n") + "\n"; got != want {
				t.Errorf("decisions:\n%swant:\n%s", got, want)
			}
			train := res.Jobs[0].Attempts[0]
			if train.State != sim.AttemptLost || train.LostWork != 900 {
				t.Errorf("train's first attempt %s, lost work %d; want %s after 900 s lost", train.State, train.LostWork, sim.AttemptLost)
			}
		})
	}
}

// TestNodeEventUnknownNode: an event naming no node of the input is an
// error, not a silent no-op.
func TestNodeEventUnknownNode(t *testing.T) {
	in := &sim.Input{Pools: []sim.Pool{engPool(0, sched.PolicyFIFO, 2, 4, 0, nil)},
		Jobs:   sim.NewSliceSource(nil),
		Events: []sim.Event{{At: 10, Kind: sim.EventNodeDown, Node: "nope"}}}
	if _, err := sim.Run(in, sim.Options{Until: -1}); err == nil || !strings.Contains(err.Error(), `node "nope"`) {
		t.Errorf("got %v, want an error naming node \"nope\"", err)
	}
}

// TestRandomNodeLosses replays every scenario of the repository with
// nodes going down and coming back at random times, every attempt
// recorded, and checks from the result alone that no attempt held a
// node while it was down, that no node ever ran more than its slots,
// and that the run is deterministic.
func TestRandomNodeLosses(t *testing.T) {
	lost := 0
	eachRepoScenario(t, func(t *testing.T, i int, sc *scenario.Scenario, in *sim.Input) {
		base, err := sim.Run(in, sim.Options{Until: -1})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 13))
		down := randomLosses(rng, in, base.End)
		var events []sim.Event
		for _, d := range down {
			events = append(events, sim.Event{At: d.from, Kind: sim.EventNodeDown, Node: d.node},
				sim.Event{At: d.to, Kind: sim.EventNodeUp, Node: d.node})
		}
		res, in := runTwice(t, sc, events)
		checkNodeLoad(t, res, in)
		checkNothingOnDownNodes(t, res, down)
		for _, jr := range res.Jobs {
			for _, a := range jr.Attempts {
				if a.State == sim.AttemptLost {
					lost++
				}
			}
		}
	})
	// The losses must have hit running work, or this checks little.
	if lost < 20 {
		t.Errorf("only %d attempts lost over all the runs", lost)
	}
	t.Logf("%d attempts lost", lost)
}

// downtime is a node down from from until to.
type downtime struct {
	node     string
	from, to int64
}

// randomLosses picks up to three nodes of in, each down once for a while
// within [0, end].
func randomLosses(rng *rand.Rand, in *sim.Input, end int64) []downtime {
	var names []string
	for _, p := range in.Pools {
		for _, n := range p.Nodes {
			names = append(names, n.Name)
		}
	}
	var out []downtime
	for range 1 + rng.IntN(3) {
		from := rng.Int64N(end + 1)
		d := downtime{node: names[rng.IntN(len(names))], from: from, to: from + 1 + rng.Int64N(end/2+1)}
		if !slices.ContainsFunc(out, func(o downtime) bool { return o.node == d.node }) {
			out = append(out, d)
		}
	}
	return out
}

// checkNothingOnDownNodes checks that no attempt held a node (a zero-slot
// part included) while it was down: an attempt the loss ended ends when
// the node goes down, and one may start on it again once it is up.
func checkNothingOnDownNodes(t *testing.T, res *sim.Result, down []downtime) {
	t.Helper()
	for _, jr := range res.Jobs {
		for _, a := range jr.Attempts {
			end := res.End
			if a.End != nil {
				end = *a.End
			}
			from, nodes := a.Start, a.Nodes
			check := func(to int64) {
				for _, n := range nodes {
					for _, d := range down {
						if n.Node == d.node && from < d.to && d.from < to {
							t.Fatalf("job %s: task %d held %s over [%d, %d), down over [%d, %d)", jr.Name, a.Task, n.Node, from, to, d.from, d.to)
						}
					}
				}
			}
			for _, m := range a.Moves {
				check(m.At)
				from, nodes = m.At, m.Nodes
			}
			check(end)
		}
	}
}

// TestNodeDownGrace: with a lost_node_grace, the master's hold through a
// loss. eval (a command: not preemptible) is held through node-3's loss
// and runs on when the node is back within the grace, ending on time; a
// preemptible experiment on node-2 is lost at once and restarts when its
// node is back. node-1 is lost for longer than the grace: report, held,
// fails when the grace runs out (at 1h), and "late" starts when eval has
// ended.
func TestNodeDownGrace(t *testing.T) {
	src := `pools:
  - name: gpu
    policy: fifo
    nodes:
      - {name: node, count: 3, slots: 8}
lost_node_grace: 10m
jobs:
  - {name: report, kind: command, submit: 0, slots: 8, duration: 4h}
  - {name: train, kind: experiment, submit: 0, slots: 8, duration: 2h}
  - {name: eval, kind: command, submit: 0, slots: 8, duration: 2h}
  - {name: late, kind: command, submit: 1h, slots: 8, duration: 1h}
events:
  - {at: 30m, node_down: node-3}
  - {at: 35m, node_down: node-2}
  - {at: 38m, node_up: node-3}
  - {at: 50m, node_down: node-1}
  - {at: 2h, node_up: node-2}
  - {at: 3h, node_up: node-1}
`
	sc, err := scenario.Parse("grace.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.LostNodeGrace.Seconds() != 600 {
		t.Fatalf("lost_node_grace %s, want 10m", sc.LostNodeGrace)
	}
	out, err := scenario.Marshal(sc)
	if err != nil || !bytes.Contains(out, []byte("lost_node_grace: 600")) {
		t.Fatalf("marshalled without the grace (%v):\n%s", err, out)
	}
	res := runAttempts(t, sc)
	got := decisionlog.Format(sim.Decisions(res, nil))
	want := strings.Join([]string{
		"0 start eval task=0 attempt=1 nodes=node-3:8",
		"0 start report task=0 attempt=1 nodes=node-1:8",
		"0 start train task=0 attempt=1 nodes=node-2:8",
		"2100 end train task=0 attempt=1 how=lost",
		"3600 end report task=0 attempt=1 how=lost",
		"7200 end eval task=0 attempt=1 how=completed",
		"7200 start late task=0 attempt=1 nodes=node-3:8",
		"7200 start train task=0 attempt=2 nodes=node-2:8",
		"10800 end late task=0 attempt=1 how=completed",
		"14400 end train task=0 attempt=2 how=completed",
	}, "\n") + "\n"
	if got != want {
		t.Errorf("decisions:\n%swant:\n%s", got, want)
	}
	if st := res.Jobs[0].State; st != "failed" {
		t.Errorf("report ended %s, want failed", st)
	}
}
