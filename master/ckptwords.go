package master

import (
	"maps"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// Checkpoints as the agents report them (trial 2026-11-29c C5). An
// agent says in a part's exit report whether the task's checkpoint
// directory held anything as the part ended (api.Report.Checkpoint); the
// attempt keeps it (store.Attempt.Checkpoint), and the words for a
// requeued task's return follow it: "resume from its checkpoint", "start
// over: it wrote no checkpoint", or, where no agent said (older agents,
// an end no agent reported), "resume from its checkpoint if it wrote
// one". It is the directory's state on the part's node, not a promise
// that the task can read it: a task whose checkpoints are node-local
// and runs next on another node starts over all the same.

// agentAccepts are the fields of the agents' reports and syncs that this
// master takes beyond the protocol's first (api.RegisterReply.Accepts):
// an agent sends them only to a master that names them.
var agentAccepts = []string{api.AcceptReportCheckpoint, api.AcceptSyncStarting}

// reportedCheckpoint is a report's Checkpoint as the attempt keeps it: a
// value the master does not know is unknown, not a refusal, so that an
// agent newer than the master's words cannot have its report (and every
// report queued behind it) refused for good.
func reportedCheckpoint(c string) store.Checkpoint {
	switch c {
	case api.CheckpointWritten:
		return store.CheckpointWritten
	case api.CheckpointNone:
		return store.CheckpointNone
	}
	return store.CheckpointUnknown
}

// attemptCheckpoint is what an attempt's parts left in their checkpoint
// directories: written when any part's held anything (a gang's rank 0
// commonly writes alone), none when every part said its was empty,
// unknown when a part did not say and none said written.
func attemptCheckpoint(parts []*mpart) store.Checkpoint {
	out := store.CheckpointNone
	for _, p := range parts {
		switch p.checkpoint {
		case store.CheckpointWritten:
			return store.CheckpointWritten
		case store.CheckpointUnknown:
			out = store.CheckpointUnknown
		}
	}
	if len(parts) == 0 {
		return store.CheckpointUnknown
	}
	return out
}

// startingToo is a sync's running list with the starts its agent defers
// (api.Sync.Starting, agentd/deferstart.go): the master ends neither as
// not run (settleMissing). runs is not changed.
func startingToo(runs map[agent.TaskID]bool, starting []agent.TaskID) map[agent.TaskID]bool {
	if len(starting) == 0 {
		return runs
	}
	out := maps.Clone(runs)
	for _, id := range starting {
		out[id] = true
	}
	return out
}

// resumeWords are the words for a requeued task's return, by what its
// ended attempt left in its checkpoint directory: to "resume from its
// checkpoint" (as in "waiting to ..."), "it resumes ..." (does), and
// the same of several tasks.
func resumeWords(c store.Checkpoint) (to, does, several string) {
	switch c {
	case store.CheckpointWritten:
		return "resume from its checkpoint", "resumes from its checkpoint", "resume from their checkpoints"
	case store.CheckpointNone:
		return "start over: it wrote no checkpoint", "starts over: it wrote no checkpoint",
			"start over: they wrote no checkpoints"
	}
	return "resume from its checkpoint if it wrote one", "resumes from its checkpoint if it wrote one",
		"resume from their checkpoints if they wrote them"
}

// waitingTo joins a requeued task's reason and the words of its return
// (resumeWords' to).
const waitingTo = ", waiting to "

// preemptedRequeue is the reason of a task requeued as reason says: a
// preemption's (requeuedPreempted) says after it what the ended attempt
// left in its checkpoint directory, as a requeue's does (requeuedEnd):
// "requeued after preemption, waiting to resume from its checkpoint",
// "..., waiting to start over: it wrote no checkpoint". Where no agent
// said (older agents), and for any other reason, it is reason alone.
func preemptedRequeue(reason string, c store.Checkpoint) string {
	if reason != requeuedPreempted || c == store.CheckpointUnknown {
		return reason
	}
	to, _, _ := resumeWords(c)
	return reason + waitingTo + to
}

// preemptedCheckpoint is what explain adds to a preempted attempt's
// account of what it left in its checkpoint directory, by its agents'
// word; "" where they did not say.
func preemptedCheckpoint(c store.Checkpoint) string {
	switch c {
	case store.CheckpointWritten:
		return "; it wrote a checkpoint to resume from"
	case store.CheckpointNone:
		return "; it wrote no checkpoint, so its task starts over"
	}
	return ""
}

// foldCheckpoint is what several requeued attempts left, for one
// sentence on them all: their common value, unknown where they differ.
// first says that acc is the fold of none yet.
func foldCheckpoint(acc store.Checkpoint, first bool, c store.Checkpoint) store.Checkpoint {
	if first || acc == c {
		return c
	}
	return store.CheckpointUnknown
}
