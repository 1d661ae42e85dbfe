package master

import (
	"cmp"
	"slices"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// How an agent's leave ends, and an admin's drain and resume during it
// (issue 13). From the goodbye the master places nothing on the node
// (mnode.draining: an admin's drain or the leave) until the leave ends:
// the node left and registers again, or its agent registers again while
// still leaving, its node never down (a new agent process that found its
// tasks running). An admin's resume during the leave lifts the admin's
// drain only, and a drain during it outlasts it. The jobs are
// leaveStopJobs: c fills n3, a n1, s1 and s2 n2, w waits from 50 for a
// slot; s1 completes at 111, and w takes its slot on n2 once n2 is
// neither drained nor leaving.
func leaveEndCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	prio := "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	// n2's agent says goodbye at 100 and registers again at 150, s2
	// still running: the leave is over, and w starts on n2 then.
	stays := []rdown{{node: "n2", at: 100, stop: 100, back: 150}}
	// n2's agent says goodbye at 100, its tasks stop at 140 (s2
	// preempted by it) and it is back at 300.
	leaves := []rdown{{node: "n2", at: 100, stop: 40, back: 300}}
	return []replayCase{
		{name: "fifo-agent-stays", config: fifo, nodes: replayNodes, jobs: leaveStopJobs, leaves: stays},
		{name: "priority-agent-stays", config: prio, nodes: replayNodes, jobs: leaveStopJobs, leaves: stays},
		// An admin drains n2 at 120, while it leaves: the agent's
		// return at 150 leaves it drained, until the resume at 200.
		{name: "fifo-agent-stays-drained", config: fifo, nodes: replayNodes, jobs: leaveStopJobs, leaves: stays,
			drains: []rdown{{node: "n2", at: 120, back: 200}}},
		// An admin drained n2 at 80 and resumes it at 120, while it
		// leaves: it takes nothing until the agent is back, at 150.
		{name: "fifo-agent-stays-resumed", config: fifo, nodes: replayNodes, jobs: leaveStopJobs, leaves: stays,
			drains: []rdown{{node: "n2", at: 80, back: 120}}},
		// The same resume with the leave ending in the node's going (140)
		// and return (300): w waits for the return.
		{name: "fifo-agent-leaves-resumed", config: fifo, nodes: replayNodes, jobs: leaveStopJobs, leaves: leaves,
			drains: []rdown{{node: "n2", at: 80, back: 120}}},
		// Drained at 110, after the goodbye, and resumed at 120.
		{name: "priority-agent-leaves-drained-resumed", config: prio, nodes: replayNodes, jobs: leaveStopJobs, leaves: leaves,
			drains: []rdown{{node: "n2", at: 110, back: 120}}},
		// Drained at 120, while it leaves: back at 300, n2 stays
		// drained until the resume at 400.
		{name: "fifo-agent-leaves-drained", config: fifo, nodes: replayNodes, jobs: leaveStopJobs, leaves: leaves,
			drains: []rdown{{node: "n2", at: 120, back: 400}}},
	}
}

// TestReplayAgentLeaveEnds: the cases replay byte for byte, batched and
// live. They differ as the export was before: where the agent registers
// again while leaving, with the node kept drained for good (no resume);
// where an admin resumes the node while it leaves, with the resume at
// the admin's.
func TestReplayAgentLeaveEnds(t *testing.T) {
	checkBatchedAndLive(t, leaveEndCases())
	var stays []replayCase
	for _, c := range leaveEndCases() {
		if c.leaves[0].stays() && len(c.drains) == 0 {
			stays = append(stays, c)
		}
	}
	checkStripped(t, stays, "-kept-drained", "the leave's end", 1, func(sc *scenario.Scenario) int {
		n := len(sc.Events)
		sc.Events = slices.DeleteFunc(sc.Events, func(e scenario.Event) bool { return e.Kind == scenario.EventResume })
		return n - len(sc.Events)
	})
	for _, c := range leaveEndCases() {
		if len(c.drains) == 0 || c.drains[0].back >= c.leaves[0].leaveEnd() {
			continue
		}
		at := int64(c.drains[0].back)
		checkStripped(t, []replayCase{c}, "-resumed-at-once", "the resume the leave holds back", 1, func(sc *scenario.Scenario) int {
			n := 0
			for i, e := range sc.Events {
				if e.Kind == scenario.EventResume && e.At > at {
					sc.Events[i].At, n = at, n+1
				}
			}
			slices.SortStableFunc(sc.Events, func(a, b scenario.Event) int { return cmp.Compare(a.At, b.At) })
			return n
		})
	}
}
