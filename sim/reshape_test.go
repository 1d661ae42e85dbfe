package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// reshapeScenario: a holds node-1's 4 slots for an hour; node-1 is
// reshaped at 10m (SHAPE), and b (2 slots) and c (2 slots of GPU a100)
// come at 20m. node-2 is an h100 node of 2 slots that b may take.
const reshapeScenario = `pools:
  - name: gpu
    policy: fifo
    nodes:
      - {name: node-1, slots: 4, gpu: h100}
      - {name: node-2, slots: 2, gpu: h100}
jobs:
  - {name: a, kind: command, submit: 0, slots: 4, duration: 1h}
  - {name: b, kind: command, submit: 20m, slots: 2, duration: 1h}
  - {name: c, kind: command, submit: 20m, slots: 2, gpu: GPU, duration: 1h}
events:
  - {at: 10m, node_reshape: {node: node-1, SHAPE}}
`

// TestNodeReshape: a node reshaped below what its task holds keeps the
// task and is full until it ends, then offers its new slots, of its new
// GPU type, as the master's node registered again with another
// inventory does (master/reshape.go).
func TestNodeReshape(t *testing.T) {
	for _, tc := range []struct {
		name, shape, gpu string
		want             []string // the decision log
	}{
		{"fewer slots", "slots: 2, gpu: h100", "h100", []string{
			"0 start a task=0 attempt=1 nodes=node-1:4",
			"1200 start b task=0 attempt=1 nodes=node-2:2",
			"3600 end a task=0 attempt=1 how=completed",
			"3600 start c task=0 attempt=1 nodes=node-1:2",
			"4800 end b task=0 attempt=1 how=completed",
			"7200 end c task=0 attempt=1 how=completed",
		}},
		{"another type", "slots: 4, gpu: a100", "a100", []string{
			"0 start a task=0 attempt=1 nodes=node-1:4",
			"1200 start b task=0 attempt=1 nodes=node-2:2",
			"3600 end a task=0 attempt=1 how=completed",
			"3600 start c task=0 attempt=1 nodes=node-1:2",
			"4800 end b task=0 attempt=1 how=completed",
			"7200 end c task=0 attempt=1 how=completed",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.NewReplacer("SHAPE", tc.shape, "GPU", tc.gpu).Replace(reshapeScenario)
			sc, err := scenario.Parse(tc.name+".yaml", []byte(src))
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
