package master

import (
	"strconv"
	"strings"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// describeExit says how a part ended, for reasons.
func describeExit(p *mpart) string {
	s := string(p.outcome)
	if p.exitCode != nil {
		s += " with exit code " + strconv.Itoa(*p.exitCode)
		if meaning := exitMeanings[*p.exitCode]; meaning != "" {
			s += " (" + meaning + ")"
		}
	}
	if p.err != "" {
		s += ": " + p.err
	}
	return s
}

// exitMeanings are what the shell's exit codes that users meet most
// mean, as sacct's users look them up.
var exitMeanings = map[int]string{
	126: "command not executable",
	127: "command not found",
	137: "killed by SIGKILL, often out of memory",
	139: "segmentation fault",
	143: "killed by SIGTERM",
}

// partEnd says how part p of an attempt of parts parts ended: a gang
// names the part's node as "the part on node", a one-node attempt is
// the task's own exit.
func partEnd(p *mpart, parts int) string {
	if parts > 1 {
		return "the part on node " + p.node + " " + describeExit(p)
	}
	return describeExit(p) + " on node " + p.node
}

// preemptReason says how a preempted attempt ended: by itself after the
// checkpoint request, or killed at the deadline (the agent says so in the
// part's error). It claims no checkpoint: whether the task wrote one is
// its own, which no agent reports (trial 2026-11-29c C5: a task that
// never writes $ALLOT_CHECKPOINT_DIR read "checkpointed").
func preemptReason(parts []*mpart) string {
	for _, p := range parts {
		if p.err != "" && p.outcome == agent.OutcomePreempted {
			return "preempted: " + p.err
		}
	}
	return "stopped for a checkpoint after preemption"
}

// requeuedAgentStopped is the reason of a task requeued as its node's
// agent stopped it (leftWith, agentStopped), by which queuedReason says
// so rather than "preempted".
const requeuedAgentStopped = "requeued after its node's agent stopped"

// leftWith says, for task t whose attempt its agent reported preempted
// while no pass, move or requeue had asked it (the task was running),
// whether that agent was shutting down (its node leaving: allot agent
// --on-exit kill, or allot dev, stopped cleanly), and if so the reason
// that says so: "stopped for a checkpoint: node N's agent stopped",
// with how the task ended. Before, such an attempt read "preempted:
// ended by SIGTERM", a preemption nobody made, even of a job that is
// not preemptible (trial 2026-11-29d D15). A task that ended before
// its agent built the goodbye reports in that sync, which marks the
// node leaving only after its reports (leave): n.goodbye says so
// meanwhile. The gang's case is agentStopped's (agentstop.go).
func leftWith(m *Master, t *mtask) (string, bool) {
	if (t.rec.State != store.TaskRunning && t.rec.State != store.TaskStarting) || len(t.att.parts) != 1 {
		return "", false
	}
	p := t.att.parts[0]
	if n := m.nodes[p.node]; n == nil || !n.leaving && !n.goodbye || p.outcome != agent.OutcomePreempted {
		return "", false
	}
	why := agentStoppedEnd(p.node)
	if p.err != "" {
		why += "; " + p.err
	}
	return why, true
}

// agentStoppedEnd is the end of an attempt that node's agent stopped for
// a checkpoint, its own part (leftWith) or a gang's (agentStopped).
func agentStoppedEnd(node string) string {
	return agentStoppedLead + node + agentStoppedTail
}

// agentStoppedLead and agentStoppedTail frame agentStoppedEnd's words,
// by which agentStoppedReason knows them again.
const (
	agentStoppedLead = "stopped for a checkpoint: node "
	agentStoppedTail = "'s agent stopped"
)

// agentStoppedReason reports whether why, an attempt's end reason, is
// agentStoppedEnd's (with the agent's words after it, leftWith's).
func agentStoppedReason(why string) bool {
	rest, ok := strings.CutPrefix(why, agentStoppedLead)
	return ok && strings.Contains(rest, agentStoppedTail)
}
