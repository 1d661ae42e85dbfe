package sim_test

import (
	"path/filepath"
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
			in, err := sim.FromScenario(sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(in, sim.Options{Until: -1, Attempts: true})
			if err != nil {
				t.Fatal(err)
			}
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
