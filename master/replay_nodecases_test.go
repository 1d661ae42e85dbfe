package master

// nodeCases are replay cases of nodes changing in ways the cases of
// featureCases do not: drains and resumes of several nodes in one
// second.
func nodeCases() []replayCase {
	return []replayCase{
		// Two drains in one second (n1 and n3 at 100), and a drain with a
		// resume (n2 drained and n1 resumed at 300), on different nodes:
		// high waits for a node it may start on or preempt on, rather
		// than preempt a task on a drained node.
		{name: "priority-drain-same-second", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, drains: sameSecondDrains, jobs: sameSecondDrainJobs},
		{name: "fifo-drain-same-second", config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: replayNodes, drains: sameSecondDrains, jobs: sameSecondDrainJobs},
		// Two drains in one second, with a pass between them live: n1's
		// drain leaves wide (7 slots) no reservation, so short backfills
		// on n3 before n3's drain. The export marks n3's drain
		// after_pass (afterPassAt), and the simulator settles before it;
		// without, it drained both first and short waited.
		{name: "easy-drains-pass-between", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes,
			drains: []rdown{{node: "n1", at: 100, back: 2000}, {node: "n3", at: 100, back: 2000}}, jobs: []rjob{
				{name: "j1", slots: 3, submit: 0, run: 500, extra: `, "time_limit": 500`},
				{name: "j2", slots: 2, submit: 0, run: 1000, extra: `, "time_limit": 1000`},
				{name: "wide", slots: 7, submit: 10, run: 300, extra: `, "time_limit": 400`},
				{name: "short", slots: 1, submit: 70, run: 300, extra: `, "time_limit": 2000`},
			}},
		// A node lost under a multifactor pool: its slots stay in the
		// capacity that fair-share usage is a share of, as a drained
		// node's do (lifecycle.InFairShareCapacity). wa, older, and wb,
		// whose project used less, wait for n1; wa's age outweighs wb's
		// fair share while usage is a share of 7 slots, not of 5: the
		// master left lost n2 out of the capacity and started wb first
		// at 600, the replay wa.
		{name: "multifactor-node-loss", config: lossShareConfig, nodes: replayNodes, jobs: lossShareJobs,
			downs: []rdown{{node: "n2", at: 100, back: 900}}},
		// A task held through its node's loss (lost_node_grace), killed
		// during the hold: g, a gang over n2 and n3, is held when n3 is
		// lost at 100 and killed at 130, before its grace ends at 160;
		// w starts in its slots on n2 at the kill.
		{name: "priority-node-loss-grace-kill", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n3", at: 100, back: 400}}, jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "g", slots: 3, submit: 1, run: 800, kill: 130},
				{name: "w", slots: 2, submit: 50, run: 100, extra: lowPrio},
			}},
		// Held tasks whose work ends during the hold: k's on n3 at 120,
		// which the master hears of when n3 is back at 140, within the
		// grace; m's on n2 at 330, which it never hears of: the grace
		// ends at 360, before n2 is back at 400, and m fails lost.
		{name: "priority-node-loss-grace-ends-held", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n3", at: 100, back: 140}, {node: "n2", at: 300, back: 400}}, jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "k", slots: 1, submit: 1, run: 119},
				{name: "m", slots: 2, submit: 1, run: 329},
				{name: "w", slots: 1, submit: 50, run: 100, extra: lowPrio},
				{name: "v", slots: 2, submit: 310, run: 100, extra: lowPrio},
			}},
		// A gang held through a loss, its work ending during the hold:
		// its part on n2, which stayed up, holds its slots until the part
		// on n3 is heard of at n3's return, and w starts there then.
		{name: "priority-node-loss-grace-ends-held-gang", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n3", at: 100, back: 140}}, jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "g", slots: 3, submit: 1, run: 119},
				{name: "w", slots: 2, submit: 50, run: 100, extra: lowPrio},
			}},
		// A gang that loses one node and waits to resume (trial
		// 2026-11-29b B18): g over n1 and n2 loses n2 at 100; its part on
		// n1 is asked to checkpoint with the pool's grace, not killed,
		// and holds n1 until it has ended (at once here), saving g's
		// first 100s, which it keeps (lifecycle.CheckpointsOnLoss); x
		// starts on n1 then, and g resumes when x ends, its 200s left.
		// gp checkpoints every 40s: its request keeps what that keeps.
		{name: "priority-node-loss-gang-checkpoints", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n2", at: 100, back: 200}}, jobs: lostGangJobs},
		{name: "fifo-node-loss-gang-checkpoints", config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n2", at: 100, back: 200}}, jobs: lostGangJobs},
		// The part on n1 takes 20s to checkpoint: it holds n1 until 120,
		// and g waits for it (master/lostgang.go; the simulator's
		// lifecycle.Tasks.Leave, landed when the export's event of its
		// end says), so x starts at 120, not 100.
		{name: "priority-node-loss-gang-checkpoints-slow", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 0s\n",
			checkpoint: 20, nodes: replayNodes, downs: []rdown{{node: "n2", at: 100, back: 200}}, jobs: lostGangJobs},
		{name: "fifo-node-loss-gang-checkpoints-slow", config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 0s\n",
			checkpoint: 7.5, nodes: replayNodes, downs: []rdown{{node: "n2", at: 100, back: 200}}, jobs: lostGangJobs},
		{name: "priority-node-loss-gang-checkpoints-every", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n2", at: 110, back: 200}}, jobs: []rjob{
				{name: "gp", slots: 6, submit: 0, run: 300, every: 40, extra: lowPrio},
				{name: "s", slots: 1, submit: 0, run: 1000},
			}},
		// A start no agent answered, caught by its node's loss before
		// the master gives it up: b never ran, so it waits again (not
		// preemptible, it would fail) and is not held through the grace
		// (lifecycle.LostRequeues with ran false, HoldsThroughLoss; the
		// export's start_lost, lifecycle.Task.Unanswered). With a grace,
		// b preempts a at once; without, it waits for n2's return.
		{name: "priority-node-loss-start-lost", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n2", at: 12, back: 300}}, jobs: nodeLossStartLostJobs},
		{name: "fifo-node-loss-start-lost", config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n2", at: 12, back: 300}}, jobs: nodeLossStartLostJobs},
		{name: "multifactor-node-loss-emergency", config: multifactorConfig + "lost_node_grace: 0s\n", nodes: replayNodes,
			jobs: multifactorJobs, downs: []rdown{{node: "n2", at: 40, back: 650}}},
	}
}

// nodeLossStartLostJobs: b's first start, on n2 at 10, is never
// answered; n2 is lost at 12, within the master's start grace.
var nodeLossStartLostJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
	{name: "c", slots: 1, submit: 0, run: 500},
	{name: "b", slots: 2, submit: 10, run: 200, startLost: 1},
}

// lostGangJobs: g, a preemptible gang over n1 and n2; s on n3; x waits
// for n1 (lost gang checkpoints cases).
var lostGangJobs = []rjob{
	{name: "g", slots: 6, submit: 0, run: 300, extra: preemptible},
	{name: "s", slots: 1, submit: 0, run: 1000},
	{name: "x", slots: 4, submit: 50, run: 150},
}

// lossShareConfig weighs fair share and age alike, age in full after 10
// minutes, in a multifactor pool of two projects of equal shares.
const lossShareConfig = `
pools:
  - name: default
    policy: multifactor
    multifactor: {fair_share: 100, age: 100, max_age: 10m, fair_share_mode: classic}
projects:
  - {name: a}
  - {name: b}
default_project: a
decay: {period: 5m, per_period: 0.5}
lost_node_grace: 0s
`

// lossShareJobs: a uses four slots and b one until 600; wa (a) waits
// from 10 and wb (b) from 210 for n1's four.
var lossShareJobs = []rjob{
	{name: "a1", slots: 4, submit: 0, run: 600, project: "a"},
	{name: "b1", slots: 1, submit: 0, run: 600, project: "b"},
	{name: "wa", slots: 4, submit: 10, run: 100, project: "a"},
	{name: "wb", slots: 4, submit: 210, run: 100, project: "b"},
}

// sameSecondDrains drain n1 and n3 in one second, and drain n2 in the
// second n1 is resumed.
var sameSecondDrains = []rdown{{node: "n1", at: 100, back: 300}, {node: "n3", at: 100, back: 700}, {node: "n2", at: 300, back: 650}}

// sameSecondDrainJobs keep every node busy when the drains come, with
// jobs waiting for the slots they free.
var sameSecondDrainJobs = []rjob{
	{name: "low1", slots: 4, submit: 0, run: 250, extra: lowPrio},
	{name: "low2", slots: 2, submit: 0, run: 800, extra: lowPrio},
	{name: "low3", slots: 1, submit: 5, run: 300, extra: lowPrio},
	{name: "high", slots: 2, submit: 120, run: 200, extra: `, "priority": 10`},
	{name: "w", slots: 3, submit: 130, run: 100, extra: lowPrio},
	{name: "mid", slots: 1, submit: 200, run: 200, extra: `, "priority": 40`},
	{name: "s", slots: 2, submit: 310, run: 100, extra: `, "priority": 40`},
}
