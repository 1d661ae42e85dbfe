package master

import "testing"

// A task held through its node's loss (lost_node_grace) whose checkpoint
// lands during the hold. Held tasks are not preemptible, so only a
// change of class between the preemption and the loss makes one: t,
// filed LOW, is preempted for h at 100 on n3 (its checkpoint takes 30s),
// moved to NORMAL at 105 (not preemptible there:
// lifecycle.PreemptibleOutsideLow) and n3 is lost at 110, so t is held
// through the loss; its checkpoint lands at 130, on a node the master
// cannot hear from.
var heldLandingJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 1000},
	{name: "b", slots: 2, submit: 0, run: 1000},
	{name: "t", slots: 1, submit: 0, run: 1000, extra: `, "priority": 80`, changes: []rchange{{at: 105, priority: 42}}},
	{name: "h", slots: 1, submit: 100, run: 100, extra: `, "priority": 10`},
}

func heldLandingCases() []replayCase {
	const cfg = "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n"
	return []replayCase{
		// n3 is back at 150, within the grace: the master hears of the
		// landing then.
		{name: "priority-node-loss-grace-lands-held", config: cfg, nodes: replayNodes, checkpoint: 30,
			downs: []rdown{{node: "n3", at: 110, back: 150}}, jobs: heldLandingJobs},
		// n3 is back at 200, after the grace: the master never hears of
		// the landing, and t is lost at 170.
		{name: "priority-node-loss-grace-lands-held-over", config: cfg, nodes: replayNodes, checkpoint: 30,
			downs: []rdown{{node: "n3", at: 110, back: 200}}, jobs: heldLandingJobs},
	}
}

// TestReplayHeldLanding: the cases replay byte for byte, batched and
// live.
func TestReplayHeldLanding(t *testing.T) {
	checkBatchedAndLive(t, heldLandingCases())
}
