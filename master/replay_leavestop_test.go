package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// An agent whose tasks take time to stop as it leaves (an exit grace):
// from its goodbye to its registration the master places nothing on the
// node, so the export drains it at the goodbye (store.NodeLeaving) and
// resumes it at the return. c fills n3, a n1, s1 and s2 n2; w waits.
// n2's agent says goodbye at 100 and its tasks stop 20s later: s1
// completes at 110 meanwhile, s2 is preempted by its agent at 120, and
// the node is back at 300. w waits for it, where without the drain the
// replay started w in s1's slot at 110.
var leaveStopJobs = []rjob{
	{name: "c", slots: 1, submit: 0, run: 1000},
	{name: "a", slots: 4, submit: 0, run: 1000},
	{name: "s1", slots: 1, submit: 1, run: 110},
	{name: "s2", slots: 1, submit: 1, run: 1000, extra: preemptible},
	{name: "w", slots: 1, submit: 50, run: 100},
}

func leaveStopCases() []replayCase {
	leaves := []rdown{{node: "n2", at: 100, stop: 20, back: 300}}
	return []replayCase{
		{name: "fifo-agent-leaves-slowly", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: leaveStopJobs, leaves: leaves},
		{name: "priority-agent-leaves-slowly", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: leaveStopJobs, leaves: leaves},
		// h preempts o on n2 at 100; o's checkpoint would take 30s, but
		// n2's agent leaves at 110 and stops it then: the export gives
		// o's attempt its 10s (checkpoints), so the replay lands it
		// before n2's loss, as live, where with the pool's 30s the loss
		// ended it lost; h then preempts l instead.
		{name: "priority-agent-leaves-checkpointing", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, checkpoint: 30, leaves: []rdown{{node: "n2", at: 110, back: 300}}, jobs: []rjob{
				{name: "l", slots: 4, submit: 0, run: 600, extra: lowPrio},
				{name: "o", slots: 2, submit: 0, run: 600, extra: lowPrio},
				{name: "c", slots: 1, submit: 0, run: 600},
				{name: "h", slots: 2, submit: 100, run: 100, extra: `, "priority": 10`},
			}},
	}
}

// TestReplayAgentLeavesSlowly: the cases replay byte for byte, batched
// and live, and those whose tasks take time to stop differ without the
// drain the export writes for the leave.
func TestReplayAgentLeavesSlowly(t *testing.T) {
	checkBatchedAndLive(t, leaveStopCases())
	var slow []replayCase
	for _, c := range leaveStopCases() {
		if c.leaves[0].stop > 0 { // else the drain and the loss come together
			slow = append(slow, c)
		}
	}
	checkStripped(t, slow, "-undrained", "the leave's drain", 2, func(sc *scenario.Scenario) int {
		n := len(sc.Events)
		sc.Events = slices.DeleteFunc(sc.Events, func(e scenario.Event) bool {
			return e.Kind == scenario.EventDrain || e.Kind == scenario.EventResume
		})
		return n - len(sc.Events)
	})
}
