package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/master/mastertest"
)

// Nodes whose agents register again with another inventory, without a
// deletion (reshape.go): the tasks on them run on, every GPU they hold
// counting against the new ones; the export writes each node as it was
// when the window began and the change as a node_reshape
// (whatif_reshaped.go), which the simulator applies the same way
// (lifecycle.EventNodeReshape).

// reshapeJobs: a holds n1's four GPUs until 300 and b n2's two until
// 500; w (2 GPUs) waits from 50, and v (1) behind it, FIFO.
var reshapeJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300},
	{name: "b", slots: 2, submit: 0, run: 500},
	{name: "w", slots: 2, submit: 50, run: 100},
	{name: "v", slots: 1, submit: 150, run: 100},
}

func reshapeCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	return []replayCase{
		// n1 registers again at 100 with two GPUs while a holds four: it
		// is full until a ends at 300, and w starts on its two then (v
		// on n3). A replay that gave n1 two slots from the start, or its
		// two at 100 with a's four on them, differs.
		{name: "fifo-node-fewer-gpus", config: fifo, nodes: replayNodes, jobs: reshapeJobs,
			reshapes: []rdown{{node: "n1", at: 100, gpus: 2}}},
		// n1's GPUs are another type from 100: na, asking for it, waits
		// for a's end; nh, asking for the old type, for b's on n2.
		{name: "fifo-node-other-type", config: fifo, nodes: replayNodes, reshapes: []rdown{{node: "n1", at: 100, gpu: "a100"}},
			jobs: append(slices.Clone(reshapeJobs[:2]),
				rjob{name: "na", slots: 2, submit: 150, run: 100, extra: `, "gpu": "a100"`},
				rjob{name: "nh", slots: 2, submit: 160, run: 100, extra: `, "gpu": "h100"`})},
		// Under a multifactor pool weighing fair share: n1 registers
		// again at 100 with two GPUs while a1 holds four, and the
		// capacity that usage is a share of is the nodes' own GPUs from
		// then on, 5, on the master as in the simulator
		// (Ledgers.SetCapacity); n3 registers again with three at 400,
		// 7, and wb, whose project used less, starts first on n2 and n3
		// then, wa at wb's end.
		{name: "multifactor-node-reshaped", config: lossShareConfig, nodes: replayNodes, jobs: lossShareJobs,
			reshapes: []rdown{{node: "n1", at: 100, gpus: 2}, {node: "n3", at: 400, gpus: 3}}},
	}
}

// reshapeNodes registers again the agents whose reshape is due, with
// their new GPUs, listing what they run.
func (d *replayDriver) reshapeNodes(t *testing.T, now float64) {
	for d.reshaped < len(d.c.reshapes) && d.c.reshapes[d.reshaped].at <= now+1e-9 {
		r := d.c.reshapes[d.reshaped]
		d.reshaped++
		if d.c.eager {
			d.h.clock.Advance(time.Millisecond) // as for a drain (drainNodes)
		}
		ag := d.agents[slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == r.node })]
		if r.gpus > 0 {
			ag.GPUs = r.gpus
		}
		if r.gpu != "" {
			ag.GPUType = r.gpu
		}
		ag.Master = d.h.srv.URL
		if _, err := ag.Register(d.h.ctx); err != nil {
			t.Fatal(err)
		}
		if d.c.eager {
			d.settle(t)
		}
	}
}

// TestReplayNodeReshapedInPlace: the cases replay byte for byte,
// batched and live.
func TestReplayNodeReshapedInPlace(t *testing.T) {
	for _, c := range reshapeCases() {
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		c.tick, c.eager = 5, true
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}
