package master

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
)

// Agents that leave (issue 13, found by a new-user trial: allot agent
// --on-exit kill stopped on a live cluster). The agent says goodbye
// (api.Sync.Leaving), stops its tasks, which it reports preempted, and
// its final sync marks the node left (leave.go): the attempts end
// preempted, by the agent and not by a pass, and their tasks wait again
// by their exit actions, preemptible or not, keeping their progress as
// after a preemption. The export writes such an attempt as its job's
// agent_preempted (whatif_leave.go) and the leave as node_down, which
// finds nothing left on the node; before, the node_down alone ended the
// attempts lost in the replay, and failed the tasks of jobs that are not
// preemptible.

// leaveJobs: a runs on n1, n (not preemptible) on n2 and p
// (preemptible, checkpointing every 40s) on n3; w and q wait. n2 leaves
// at 100 and is back at 250; n3 leaves at 130.5, p keeping 120s of its
// work. n waits for n2 to come back and q for a to end.
var leaveJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 400},
	{name: "n", slots: 2, submit: 0, run: 500},
	{name: "p", slots: 1, submit: 0, run: 300, every: 40, extra: preemptible},
	{name: "w", slots: 3, submit: 50, run: 100},
	{name: "q", slots: 1, submit: 60, run: 200, extra: preemptible},
}

var leaveDowns = []rdown{{node: "n2", at: 100, back: 250}, {node: "n3", at: 130.5}}

// leaveGangJobs: g, a gang on n1 and n3 (preemptible), has its part on
// n3 preempted by n3's agent at 100 while the part on n1 runs on: the
// report makes g preempting and asks the part on n1 to checkpoint, the
// node's leave loses nothing, and the attempt ends preempted as that
// checkpoint lands (agentstop.go); the export writes it as g's
// agent_preempted at the stop on n3 (whatif_leave.go). m (not
// preemptible) on n2 is preempted by n2's agent at 200.4 and waits for
// n1, which g frees again once it ends.
var leaveGangJobs = []rjob{
	{name: "g", slots: 5, submit: 0, run: 300, extra: preemptible},
	{name: "m", slots: 2, submit: 0, run: 400},
	{name: "w", slots: 1, submit: 50, run: 100},
}

func leaveCases() []replayCase {
	return []replayCase{
		{name: "fifo-agent-leaves", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: leaveJobs, leaves: leaveDowns},
		{name: "priority-agent-leaves", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: leaveJobs, leaves: leaveDowns},
		{name: "easy-agent-leaves-gang", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes,
			jobs: leaveGangJobs, leaves: []rdown{{node: "n3", at: 100}, {node: "n2", at: 200.4}}},
		// Checkpoints of 30s: h preempts l at 100 and starts on n1 as
		// its checkpoint lands at 130; o's agent on n2 leaves at 200,
		// its exit reported at once, and l and o wait for h to end and
		// n2 to come back. (A task still checkpointing for a pass's
		// preemption when its agent leaves ends then, as the agent
		// stops it: priority-agent-leaves-checkpointing,
		// replay_leavestop_test.go.)
		{name: "priority-agent-leaves-checkpoint", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, checkpoint: 30, leaves: []rdown{{node: "n2", at: 200, back: 400}}, jobs: []rjob{
				{name: "l", slots: 4, submit: 0, run: 600, extra: lowPrio},
				{name: "o", slots: 2, submit: 0, run: 600, extra: lowPrio},
				{name: "h", slots: 3, submit: 100, run: 100, extra: `, "priority": 10`},
			}},
	}
}

// nextLeave is the time of the next leave or return due, +Inf for none.
func (d *replayDriver) nextLeave() float64 {
	next := math.Inf(1)
	for k, l := range d.c.leaves {
		switch {
		case d.left[k] == 0:
			next = min(next, l.at)
		case d.left[k] == leavingState || d.left[k] == silentState:
			next = min(next, l.leaveEnd())
		case d.left[k] == 1 && l.back > 0:
			next = min(next, l.back)
		}
	}
	return next
}

// leavingState is a leave's state (replayDriver.left) between the
// goodbye and the final sync of a leave whose tasks take time to stop.
const leavingState = 3

// stays says whether a leave's agent registers again (back) before its
// tasks stop (at+stop): its node never goes down, and its tasks run on.
func (l rdown) stays() bool { return l.back > 0 && l.back < l.at+l.stop }

// leaveEnd is when a leave's goodbye ends: at its final sync, or when
// its agent registers again first (stays).
func (l rdown) leaveEnd() float64 {
	if l.stays() {
		return l.back
	}
	return l.at + l.stop
}

// leaveNodes has the agents whose leave is due leave as agentd's do
// under --on-exit kill: the leaving sync, then, at once or rdown.stop
// later, their tasks' exits, all preempted, in the final sync; the agent
// then stops (it syncs no more) until its back, when it registers
// again. A leave whose back comes before its tasks stop (stays) has its
// agent register again then, its tasks running on. Each comes a
// millisecond after what came before it when the case is eager, as a
// drain does (drainNodes), settling after it.
func (d *replayDriver) leaveNodes(t *testing.T, now float64) {
	for k, l := range d.c.leaves {
		i := slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == l.node })
		ag := d.agents[i]
		leaving := d.left[k] == leavingState || d.left[k] == silentState
		due := d.left[k] == 0 && l.at <= now+1e-9 || d.left[k] == 1 && l.back > 0 && l.back <= now+1e-9 ||
			leaving && l.leaveEnd() <= now+1e-9
		if !due {
			continue
		}
		if d.c.eager {
			d.h.clock.Advance(time.Millisecond)
		}
		if d.left[k] == silentState {
			d.rejoin(t, k, i)
		}
		if d.left[k] == 0 {
			ag.Leave()
			d.h.sync(ag)
			d.left[k] = leavingState
			if l.stop > 0 {
				if d.c.eager {
					d.settle(t)
				}
				continue
			}
		}
		switch {
		case d.left[k] == leavingState && l.stays():
			// A new agent process that found its tasks running: it
			// registers with them, and the leave is over.
			d.left[k] = 2
			if _, err := ag.Register(d.h.ctx); err != nil {
				t.Fatal(err)
			}
		case d.left[k] == leavingState:
			d.left[k] = 1
			for _, id := range ag.Running() {
				if a := d.att[id]; a != nil {
					a.preempted = true // its checkpoint keeps what a preemption's does
				}
				ag.Exit(id, agent.OutcomePreempted, 0)
			}
			d.h.sync(ag) // the final sync
			d.down[i] = true
		default:
			d.left[k], d.down[i] = 2, false
			ag.Master = d.h.srv.URL
			if _, err := ag.Register(d.h.ctx); err != nil {
				t.Fatal(err)
			}
		}
		if d.c.eager {
			d.settle(t)
		}
	}
}

// TestReplayAgentLeave: the cases replay byte for byte, batched and
// live; without the export's agent_preempted the node_down loses the
// attempts, and the decisions differ.
func TestReplayAgentLeave(t *testing.T) {
	checkBatchedAndLive(t, leaveCases())
	checkUnexported(t, leaveCases(), "agent_preempted", 1, func(j *scenario.Job) int {
		n := len(j.AgentPreempted)
		j.AgentPreempted = nil
		return n
	})
}
