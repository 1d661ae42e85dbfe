package master

import "testing"

// A gang (a task over several nodes) partly started when one of its
// nodes is lost: its part on n2 runs, the agent of n3 never answers its
// part's start, and n3 is lost before the master gives the start up. A
// part ran, so the master takes the task to have run
// (lifecycle.LostRequeues, HoldsThroughLoss with ran true): not
// preemptible, it fails at the loss, or with a grace is held and fails
// when the grace runs out.

// partlyStartedJobs: g (3 slots: n2's 2 and n3's 1) starts at 10, its
// part on n3 unanswered; n3 is lost at 12; w waits behind it for n2.
var partlyStartedJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
	{name: "g", slots: 3, submit: 10, run: 200, startLost: 1, startLostNode: "n3"},
	{name: "w", slots: 2, submit: 50, run: 100},
}

func partlyStartedCases() []replayCase {
	return []replayCase{
		{name: "fifo-gang-partly-started-lost", config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n3", at: 12, back: 300}}, jobs: partlyStartedJobs},
		// No loss: the master gives the start on n3 up after its start
		// grace, n3 up, and fails g, a part of which ran (the export's
		// lost, not start_lost).
		{name: "fifo-gang-partly-started-given-up", config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: replayNodes, jobs: partlyStartedJobs},
		{name: "priority-gang-partly-started-lost-grace", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n3", at: 12, back: 300}}, jobs: partlyStartedJobs},
	}
}

// TestReplayGangPartlyStarted: the cases replay byte for byte, batched
// and live.
func TestReplayGangPartlyStarted(t *testing.T) {
	checkBatchedAndLive(t, partlyStartedCases())
}

// A node lost in the second a task started on it: batched, the master
// hears of the loss before the passes of that second (x never starts on
// n3), as the simulator takes a second's scripted events first; live, a
// pass after the submission started x on n3 before the loss came, and
// the export marks the node_down after_pass (afterPassAt), so the replay
// settles the instant first and loses x too: not preemptible, it fails;
// p, preemptible, waits again; with a grace, h is held and n3 is back
// within it.
var lossAtStartJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
	{name: "b", slots: 2, submit: 0, run: 1000, extra: lowPrio},
	{name: "x", slots: 1, submit: 100, run: 200},
	{name: "p", slots: 1, submit: 400, run: 200, extra: preemptible},
	{name: "h", slots: 1, submit: 700, run: 200},
}

func lossAtStartCases() []replayCase {
	downs := []rdown{{node: "n3", at: 100, back: 300}, {node: "n3", at: 400, back: 600}, {node: "n3", at: 700, back: 730}}
	return []replayCase{
		{name: "fifo-node-loss-at-start", config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: downs, jobs: lossAtStartJobs},
		{name: "priority-node-loss-at-start-grace", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: downs, jobs: lossAtStartJobs},
	}
}

// TestReplayNodeLossAtStart: the cases replay byte for byte, batched and
// live.
func TestReplayNodeLossAtStart(t *testing.T) {
	checkBatchedAndLive(t, lossAtStartCases())
}
