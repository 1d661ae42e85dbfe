package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/master/mastertest"
)

// A master restarted during an agent's leave reads the leave back from
// the node history (restoreLeaves) and places nothing on the node until
// the leave ends, as the export drains it from the goodbye to the
// leave's end. Before, the restarted master forgot the leave until the
// agent's next leaving sync, and a pass in between started a waiting
// task on the node. The leaving agent, whose sync gets 404, registers
// again at once, saying it leaves (Rejoin, api.Register.Leaving), as
// agentd's does, and syncs on until its tasks stopped; where its case
// silences it (rdown.silent), it is heard again only once its tasks
// stopped, to deliver its last reports; where a new agent process takes
// over (rdown.stays), that one registers with the tasks running, which
// ends the leave. The jobs are leaveStopJobs and x, submitted at 120,
// when the master restarts: n2's agent says goodbye at 100, and s1's
// slot on n2 is free from 111. w and x wait for n2, where the restarted
// master used to start w at 120.
func leaveRestartCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	prio := "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	jobs := append(slices.Clone(leaveStopJobs), rjob{name: "x", slots: 1, submit: 120, run: 10})
	restarts := []float64{120}
	// n2's tasks stop at 140, its agent saying its last; the node is
	// back at 300.
	leaves := []rdown{{node: "n2", at: 100, stop: 40, back: 300}}
	silent := []rdown{{node: "n2", at: 100, stop: 40, back: 300, silent: true}}
	// A new agent process registers on n2 at 150, s2 still running.
	stays := []rdown{{node: "n2", at: 100, stop: 100, back: 150}}
	silentStays := []rdown{{node: "n2", at: 100, stop: 100, back: 150, silent: true}}
	return []replayCase{
		{name: "fifo-agent-leaves-restart", config: fifo, nodes: replayNodes, jobs: jobs, leaves: leaves, restarts: restarts},
		{name: "priority-agent-leaves-restart", config: prio, nodes: replayNodes, jobs: jobs, leaves: leaves, restarts: restarts},
		{name: "fifo-agent-leaves-restart-silent", config: fifo, nodes: replayNodes, jobs: jobs, leaves: silent, restarts: restarts},
		{name: "priority-agent-leaves-restart-silent", config: prio, nodes: replayNodes, jobs: jobs, leaves: silent, restarts: restarts},
		{name: "fifo-agent-stays-restart", config: fifo, nodes: replayNodes, jobs: jobs, leaves: stays, restarts: restarts},
		{name: "fifo-agent-stays-restart-silent", config: fifo, nodes: replayNodes, jobs: jobs, leaves: silentStays, restarts: restarts},
	}
}

// TestReplayAgentLeaveRestart: the cases replay byte for byte, batched
// and live.
func TestReplayAgentLeaveRestart(t *testing.T) {
	checkBatchedAndLive(t, leaveRestartCases())
}

// silentState is a leave's state (replayDriver.left) once a restart of
// the master interrupted it, its case silencing its agent (rdown.silent):
// the agent syncs no more until the leave's end (rdown.leaveEnd).
const silentState = 4

// silenceLeaving silences, at a restart of the master, the agents that
// leave where their case says so (rdown.silent): they do not register
// with the new master (replayDriver.down) until their leave's end
// (rejoin).
func (d *replayDriver) silenceLeaving() {
	for k, l := range d.c.leaves {
		if d.left[k] != leavingState || !l.silent {
			continue
		}
		d.left[k] = silentState
		d.down[slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == l.node })] = true
	}
}

// rejoin ends the silence of leave k, at its end, on agent i: the
// leaving agent, its tasks stopped, registers again, still leaving,
// before its final sync; a new agent process (rdown.stays) registers
// in leaveNodes.
func (d *replayDriver) rejoin(t *testing.T, k, i int) {
	ag := d.agents[i]
	d.left[k] = leavingState
	ag.Master = d.h.srv.URL
	if d.c.leaves[k].stays() {
		d.down[i] = false
		return
	}
	if _, err := ag.Rejoin(d.h.ctx); err != nil {
		t.Fatal(err)
	}
}

// leaving says whether node's agent is leaving, its tasks stopping.
func (d *replayDriver) leaving(node string) bool {
	for k, l := range d.c.leaves {
		if l.node == node && d.left[k] == leavingState {
			return true
		}
	}
	return false
}
