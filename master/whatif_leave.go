package master

import (
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Attempts their agent preempted (issue 13, found by a new-user trial).
// An agent that shuts down under --on-exit kill preempts its tasks and
// reports them preempted before its final sync marks the node left
// (leave.go): the master requeues them by their exit actions, as after a
// preemption, though no pass asked (the event log has no transition to
// preempting for them). The export writes each as its job's
// agent_preempted, after the seconds from its start to its end, and the
// simulator ends it so (lifecycle.EventAgentPreempted); the leave itself
// is a node_down (exportNodeEvents), which finds nothing left to lose on
// the node. A gang's attempt whose part there the agent stopped while
// its other parts ran was made preempting then (store.CauseAgentStopped,
// agentstop.go: no pass asked it) and ends once the others' checkpoints
// land: the export writes it as agent_preempted at that stop, which the
// simulator's agent preemption, one event for the whole attempt, ends
// before the node_down of the same second, as the master's leave leaves
// it to its other parts. (The replay frees the other parts' slots at the
// stop, the master when their checkpoints land: the same second where
// they land at once, as agents with a checkpoint trap usually do within
// it; a longer checkpoint is a difference allot history check may
// report.) Without it the node_down ended the attempts lost in the
// replay, and failed those of jobs that are not preemptible. The
// attempt's work counts up to its end, saved as a preemption's
// checkpoint saves it (checkpoint_every), as the simulator's preemption
// keeps it. The node takes no new task from the agent's goodbye to its
// return: the store records the goodbye (store.NodeLeaving), and the
// export drains the node then (whatif_nodestates.go).
//
// An agent whose fence stops its tasks in a master outage longer than
// the fence's wait (docs/reliability.md, "Fencing") reports them
// preempted too, once the restarted master hears it, which requeues them
// as after a preemption: the export writes them the same way, from the
// start of the attempt as the simulator counts it (a restart on a move's
// or resize's placement continues it), and the simulator's landing of a
// re-placement promises the preemption again (sim's relanded), so that
// an elastic task grown or shrunk before the outage is stopped in the
// replay too (replay_fence_test.go). Before, the replay ran it on, and
// allot history check reported the stop and the restart as differences.

// agentPreempted says whether attempt a ended preempted with no
// transition to preempting that a pass made (its agent stopped it), and
// gives it as a scenario's agent_preempted: its number as the simulator
// counts attempts, and the whole seconds (sec) from its start as the
// simulator counts it (first: a restart on a move's or resize's
// placement continues the attempt before it) to its end, or, for a
// gang's, to the stop of its first part (agentStopped).
func (h *historyEvents) agentPreempted(atts []store.Attempt, a store.Attempt, sec func(time.Time) int64) (scenario.StartLost, bool) {
	if a.EndState != store.AttemptPreempted {
		return scenario.StartLost{}, false
	}
	if _, asked := h.preempted[attemptKey{a.JobID, a.Index, a.Number}]; asked {
		return scenario.StartLost{}, false
	}
	end := a.EndedAt
	if at, ok := h.agentStopped[attemptKey{a.JobID, a.Index, a.Number}]; ok {
		end = at
	}
	return scenario.StartLost{Task: a.Index, Attempt: h.simAttempt(atts, a), After: sec(end) - sec(h.first(atts, a))}, true
}
