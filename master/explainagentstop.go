package master

import (
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// An attempt that its node's agent stopped as it shut down cleanly (allot
// agent --on-exit kill, allot dev stopped) ends preempted, so that the
// task waits again and resumes from its checkpoint: a one-node task's at
// the agent's report (leftWith), a gang's once its other parts have
// checkpointed (agentStopped, cause agent_stopped). No pass asked for
// it, so explain lists it apart, as it lists the fence's stops, and
// counts it in no preemption (it read among the "Preempted", counted in
// "was preempted twice").

// agentStoppedAttempt reports whether attempt a, ended preempted, was
// stopped by its node's agent rather than by a pass: its preempting
// event d (decided) has the cause agent_stopped (a gang's), or, with no
// such event, its end reason is agentStoppedEnd's (a one-node task's).
func agentStoppedAttempt(a store.Attempt, d store.Event, decided bool) bool {
	if a.EndState != store.AttemptPreempted {
		return false
	}
	if decided {
		return d.Cause == store.CauseAgentStopped
	}
	return agentStoppedReason(a.Reason)
}

// agentStoppedView is explain's entry for an attempt its node's agent
// stopped: its task and attempt, when it ended, and its end reason
// ("stopped for a checkpoint: node n1's agent stopped; ...").
func agentStoppedView(a store.Attempt) api.Preemption {
	return api.Preemption{Task: a.Index, Attempt: a.Number, At: a.EndedAt.UTC(),
		Why: strings.TrimPrefix(a.Reason, "stopped for a checkpoint: ")}
}

// agentStoppedSentence counts a job's attempts that their nodes' agents
// stopped, by task, as fencedSentence counts the fence's: "Its task 0
// was stopped once for a checkpoint as its node's agent stopped (no
// preemption: no scheduling pass asked it)."
func agentStoppedSentence(stopped []api.Preemption) string {
	const why = "(no preemption: no scheduling pass asked it)"
	return stopsSentence(stopped, stopWords{ // explainfenced.go
		one:  "Its task %d was stopped %s for a checkpoint as its node's agent stopped " + why + ".",
		each: "%d of its tasks were stopped for a checkpoint as their nodes' agents stopped, once each " + why + ".",
		some: "%d of its tasks were stopped for a checkpoint as their nodes' agents stopped, %s in all " + why + ".",
	})
}
