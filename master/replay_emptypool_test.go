package master

import (
	"slices"
	"testing"
)

// A reload that moves the only node of a pool to another pool leaves
// the pool with no node while its jobs run and wait: the export keeps
// the pool, with the node in it from the window's start and its move as
// a node_reshape with the new pool (whatif_reshaped.go's placeStarts),
// as the trial's gpu-b, moved from a FIFO pool batch to a priority pool
// train (docs/api.md, GET /history/scenario).

// emptiedPools: default (priority) has n1 and n2, batch (FIFO) n3, by a
// node rule; emptiedPoolsMoved has no rule, and n3 goes to default, its
// agent's pool.
const (
	emptiedPoolsMoved = "pools:\n  - {name: default, policy: priority}\n  - {name: batch, policy: fifo}\n"
	emptiedPools      = emptiedPoolsMoved + "nodes:\n  - {name: n3, pool: batch}\n"
)

// emptiedPoolJobs: a holds n1 until 600 and d n2 until 500, c n3 until
// 400 (batch); v and w (default, w of a higher priority) wait from 50 and 60,
// x and y (batch) from 150 and 160.
var emptiedPoolJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 600},
	{name: "d", slots: 2, submit: 0, run: 500},
	{name: "c", slots: 1, submit: 0, run: 400, pool: "batch"},
	{name: "v", slots: 1, submit: 50, run: 100},
	{name: "w", slots: 1, submit: 60, run: 100, extra: `, "priority": 10`},
	{name: "x", slots: 1, submit: 150, run: 100, pool: "batch"},
	{name: "y", slots: 1, submit: 160, run: 50, pool: "batch"},
}

// emptiedPoolCases: a reload at 100 moves n3 to default while c (batch)
// runs on it: c runs on, and at its end at 400 n3's slot is default's,
// where w, of the higher priority, starts on it, and v at w's end; x
// and y wait in batch, which has no node from then on, to the window's
// end. The export used to leave batch out, with c, x and y, and kept n3
// in default from the start: its replay started v on n3 at 50.
//
// In -gang, g, submitted to default at 150, spans all three nodes from
// a's end at 600: default has n3's slot only from the move on, and the
// export keeps g, as it fits the pool at the window's end. In
// -and-back, a reload at 520 moves n3 back to batch with v on it, and x
// and y run there in turn from v's end at 600 (this one passed before,
// as batch has n3 at the window's end).
func emptiedPoolCases() []replayCase {
	return []replayCase{
		{name: "reload-empties-pool-gang", config: emptiedPools, nodes: replayNodes,
			jobs:    append(slices.Clone(emptiedPoolJobs[:3]), rjob{name: "g", slots: 7, submit: 150, run: 100}),
			reloads: []rreload{{at: 100, config: emptiedPoolsMoved}}},
		{name: "reload-empties-pool", config: emptiedPools, nodes: replayNodes, jobs: emptiedPoolJobs,
			reloads: []rreload{{at: 100, config: emptiedPoolsMoved}}},
		{name: "reload-empties-pool-and-back", config: emptiedPools, nodes: replayNodes, jobs: emptiedPoolJobs,
			reloads: []rreload{{at: 100, config: emptiedPoolsMoved}, {at: 520, config: emptiedPools}}},
	}
}

// emptiedShare is a FIFO pool default and a multifactor pool batch,
// which n3, its only node, is pinned to; emptiedShareMoved has no pin.
const (
	emptiedShareMoved = `
pools:
  - {name: default, policy: fifo}
  - name: batch
    policy: multifactor
    multifactor: {fair_share: 100, age: 100, max_age: 10m, fair_share_mode: classic}
projects:
  - {name: a}
  - {name: b}
default_project: a
decay: {period: 5m, per_period: 0.5}
`
	emptiedShare = emptiedShareMoved + "nodes:\n  - {name: n3, pool: batch}\n"
)

// emptiedShareCases: the multifactor pool batch loses n3, its only
// node, at 100 and gets it back at 520: the fair-share capacity is 0
// between, on the master as in the simulator, and at 600 x (project b,
// waiting since 150) starts before y (project a, whose c ran, waiting
// since 140). It passed before too, as batch has n3 at the window's end:
// it keeps the simulator's pool with no node, and no fair-share
// capacity, in step with the master's.
func emptiedShareCases() []replayCase {
	return []replayCase{
		{name: "multifactor-reload-empties-pool", config: emptiedShare, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 600},
			{name: "d", slots: 2, submit: 0, run: 500},
			{name: "c", slots: 1, submit: 0, run: 400, pool: "batch", project: "a"},
			{name: "w", slots: 1, submit: 50, run: 200},
			{name: "y", slots: 1, submit: 140, run: 100, pool: "batch", project: "a"},
			{name: "x", slots: 1, submit: 150, run: 100, pool: "batch", project: "b"},
		}, reloads: []rreload{{at: 100, config: emptiedShareMoved}, {at: 520, config: emptiedShare}}},
	}
}

// TestReplayReloadEmptiesPool: the cases of emptiedPoolCases replay
// byte for byte, batched and live.
func TestReplayReloadEmptiesPool(t *testing.T) {
	checkBatchedAndLive(t, append(emptiedPoolCases(), emptiedShareCases()...))
}
