package master

import (
	"testing"

	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
)

// A lost node taken over by a new agent with the join token during
// lost_node_grace (trial 2026-11-29b B14): the master ends the attempts
// it held as lost at the new agent's first sync ("node n2 was taken over
// ... which does not run attempt 1"), and the export writes each as the
// job's lost at the takeover's offset (whatif_work.go, lostOnUpNode),
// which the simulator applies as lifecycle.EventAttemptLost. Without it
// the replay's held attempts survived the node's return, as if the old
// agent had come back, and completed.

// takeoverCases: n2 is lost at 100 (grace 60s, to 160) and taken over at
// 140. b (not preemptible) runs on n2 and is held through the loss; the
// takeover ends it lost, and it fails. p (preemptible, checkpointing every
// 30s), which preempted a on n1, moves onto n2 then (priority) and a
// starts again; w waits for n2's slots.
func takeoverCases() []replayCase {
	jobs := []rjob{
		{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio},
		{name: "k", slots: 1, submit: 1, run: 500},
		{name: "b", slots: 2, submit: 2, run: 500},
		{name: "p", slots: 1, submit: 3, run: 300, every: 30, extra: preemptible},
		{name: "w", slots: 2, submit: 50, run: 100, extra: lowPrio},
	}
	downs := []rdown{{node: "n2", at: 100, back: 140, takeover: true}}
	return []replayCase{
		{name: "priority-takeover-in-grace", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: downs, jobs: jobs},
		{name: "fifo-takeover-in-grace", config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: downs, jobs: jobs},
	}
}

// takeOver has a new agent take ag's node over at its return: the held
// attempts ag ran end (lost, at the new agent's first sync), and it
// registers with the join token, running nothing.
func (d *replayDriver) takeOver(ag *mastertest.Agent) {
	for _, id := range ag.Running() {
		if a := d.att[id]; a != nil {
			a.exited = true
		}
	}
	ag.NewHost()
	ag.Token = d.h.join
	delete(d.h.creds, ag.Name)
}

// TestReplayTakeover: the cases replay byte for byte, batched and live;
// without the export's lost the held attempts run on in the replay, and
// the decisions differ.
func TestReplayTakeover(t *testing.T) {
	checkBatchedAndLive(t, takeoverCases())
	checkUnexported(t, takeoverCases(), "lost", 1, func(j *scenario.Job) int {
		n := len(j.Lost)
		j.Lost = nil
		return n
	})
}
