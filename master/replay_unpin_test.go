package master

import (
	"regexp"
	"testing"
)

// Node rules removed after the agent registered with a pool of its own:
// the node record keeps the agent's pool, and the reload (or the master
// restarted on the file without the rule) puts the node back in it, or
// in the default pool where the configuration has no such pool
// (nodePool), and records the move (store.MoveNodes), which the export
// writes as a node_reshape with the pool (whatif_reshaped.go).

// unpinJobs: a holds n1 until 300, d n2 (pinned to default) until 500
// and c n3 (b) until 700; y (b) waits from 160 for n2 to come to b.
var unpinJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300},
	{name: "d", slots: 2, submit: 0, run: 500},
	{name: "c", slots: 1, submit: 0, run: 700, pool: "b"},
	{name: "y", slots: 1, submit: 160, run: 100, pool: "b"},
	{name: "z", slots: 2, submit: 550, run: 100},
}

// unpinCase is a replay case and the pool that the export must move n2
// to at 520, when its rule is removed.
type unpinCase struct {
	replayCase
	to string
}

// unpinCases: the master starts with n2 pinned to default; its agent
// registers again at 100 asking for pool b (or x, which no
// configuration has), and n2 stays in default; at 520 a reload, or a
// restart, on the file without the rule puts n2 in b, where y starts on
// it, or, for x, leaves it in default.
func unpinCases() []unpinCase {
	own := func(name, pool string, restart bool) replayCase {
		return replayCase{name: name, config: movePoolsN2Own, nodes: replayNodes, jobs: unpinJobs,
			reshapes: []rdown{{node: "n2", at: 100, pool: pool}},
			reloads:  []rreload{{at: 520, config: movePools, restart: restart}}}
	}
	return []unpinCase{
		{own("fifo-reload-unpins-node-to-its-agents-pool", "b", false), "b"},
		{own("fifo-restart-unpins-node-to-its-agents-pool", "b", true), "b"},
		// Pinned to b from the start, its agent asking for x: the
		// reload at 520 puts it in the default pool, with a warning.
		{replayCase{name: "fifo-reload-unpins-node-to-the-default-pool", config: movePoolsN2, nodes: replayNodes,
			jobs:     unpinJobs[:3],
			reshapes: []rdown{{node: "n2", at: 100, pool: "x"}},
			reloads:  []rreload{{at: 520, config: movePools}}}, "default"},
	}
}

// TestReplayUnpinsToAgentPool: the cases of unpinCases replay byte for
// byte, batched and live, and the export moves n2 at 520 to the pool
// its agent asked for (or the default pool).
func TestReplayUnpinsToAgentPool(t *testing.T) {
	for _, c := range unpinCases() {
		move := regexp.MustCompile(`- at: 520\s+node_reshape:\s+node: n2\s+slots: 2\s+gpu: \S+\s+pool: ` + c.to + `\n`)
		check := func(t *testing.T, rc replayCase) {
			if body := checkReplay(t, rc); !move.MatchString(body) {
				t.Errorf("the export does not move n2 to pool %s at 520:\n%s", c.to, body)
			}
		}
		t.Run(c.name, func(t *testing.T) { check(t, c.replayCase) })
		c.tick, c.eager = 5, true
		t.Run(c.name+"-live", func(t *testing.T) { check(t, c.replayCase) })
	}
}
