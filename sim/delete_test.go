package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// deleteScenario: a runs on node-1 for an hour; node-2 is drained at 0,
// b waits from 10m, and node-2 goes at 20m and is back at 30m. Deleted,
// it comes back a new node, not drained, as the master's registers
// again, and b starts there; lost, it comes back drained, and b waits
// for a.
const deleteScenario = `pools:
  - name: gpu
    policy: fifo
    nodes:
      - {name: node, count: 2, slots: 4}
jobs:
  - {name: a, kind: command, submit: 0, slots: 4, duration: 1h}
  - {name: b, kind: command, submit: 10m, slots: 4, duration: 1h}
events:
  - {at: 0, drain: node-2}
  - {at: 20m, GONE: node-2}
  - {at: 30m, node_up: node-2}
`

// TestNodeDelete: a node_delete ends the node's drain, a node_down does
// not.
func TestNodeDelete(t *testing.T) {
	for _, tc := range []struct {
		name, gone string
		want       []string // the decision log
	}{
		{"deleted", "node_delete", []string{
			"0 start a task=0 attempt=1 nodes=node-1:4",
			"1800 start b task=0 attempt=1 nodes=node-2:4",
			"3600 end a task=0 attempt=1 how=completed",
			"5400 end b task=0 attempt=1 how=completed",
		}},
		{"lost", "node_down", []string{
			"0 start a task=0 attempt=1 nodes=node-1:4",
			"3600 end a task=0 attempt=1 how=completed",
			"3600 start b task=0 attempt=1 nodes=node-1:4",
			"7200 end b task=0 attempt=1 how=completed",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse(tc.name+".yaml", []byte(strings.Replace(deleteScenario, "GONE", tc.gone, 1)))
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
