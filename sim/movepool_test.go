package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// moveScenario: a runs on node-1 (pool gpu) for an hour; node-1 moves to
// pool cpu at MOVE with a on it, and b, too big for cpu's own node, waits
// there for a's end, while c waits in gpu for node-2, drained until 2h.
const moveScenario = `pools:
  - name: gpu
    policy: fifo
    nodes:
      - {name: node, count: 2, slots: 4}
  - name: cpu
    policy: fifo
    nodes: [{name: small, slots: 2}]
jobs:
  - {name: a, kind: command, submit: 0, slots: 4, duration: 1h}
  - {name: b, kind: command, submit: 10m, pool: cpu, slots: 4, duration: 1h}
  - {name: c, kind: command, submit: 10m, slots: 4, duration: 1h}
events:
  - {at: 0, drain: node-2}
  - {at: MOVE, node_reshape: {node: node-1, slots: 4, pool: cpu}}
  - {at: 2h, resume: node-2}
`

// TestNodeReshapeMovesPool: a node moved to another pool keeps its
// task, and its slots are that pool's from then on.
func TestNodeReshapeMovesPool(t *testing.T) {
	for _, tc := range []struct {
		name, move string
		want       []string // the decision log
	}{
		{"moved while a runs", "30m", []string{
			"0 start a task=0 attempt=1 nodes=node-1:4",
			"3600 end a task=0 attempt=1 how=completed",
			"3600 start b task=0 attempt=1 nodes=node-1:4",
			"7200 end b task=0 attempt=1 how=completed",
			"7200 start c task=0 attempt=1 nodes=node-2:4",
			"10800 end c task=0 attempt=1 how=completed",
		}},
		// c takes node-1 at a's end, still gpu's, and runs on there once
		// it is cpu's: b starts at c's end.
		{"moved while c runs", "90m", []string{
			"0 start a task=0 attempt=1 nodes=node-1:4",
			"3600 end a task=0 attempt=1 how=completed",
			"3600 start c task=0 attempt=1 nodes=node-1:4",
			"7200 end c task=0 attempt=1 how=completed",
			"7200 start b task=0 attempt=1 nodes=node-1:4",
			"10800 end b task=0 attempt=1 how=completed",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse(tc.name+".yaml", []byte(strings.Replace(moveScenario, "MOVE", tc.move, 1)))
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

// TestNodeMoveBadPool: an input event moving a node to no pool of the
// input, or moving one other than by a reshape, is an error.
func TestNodeMoveBadPool(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   sim.Event
	}{
		{"unknown pool", sim.Event{At: 10, Kind: sim.EventNodeReshape, Node: "pool0-n0", Pool: "nope",
			Shape: &sched.Node{Slots: 4}}},
		{"not a reshape", sim.Event{At: 10, Kind: sim.EventNodeDown, Node: "pool0-n0", Pool: "pool0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &sim.Input{Pools: []sim.Pool{engPool(0, sched.PolicyFIFO, 2, 4, 0, nil)},
				Jobs: sim.NewSliceSource(nil), Events: []sim.Event{tc.ev}}
			if _, err := sim.Run(in, sim.Options{Until: -1}); err == nil || !strings.Contains(err.Error(), "moves to pool") {
				t.Errorf("got %v, want an error on the move", err)
			}
		})
	}
}
