package agentd

// Adoption of the attempts an earlier agent process left running (doc.go,
// "Restarts"): which ones, and how the new process takes them over.

import (
	"fmt"
	"os"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// orphans is the part of an Agent that deals with what an earlier agent
// process left (its attempts still running, ended or unreported: state.go,
// adopt.go, ended.go), apart from the Agent's own methods; it holds
// nothing but the agent, whose locks and records it uses.
type orphans struct{ a *Agent }

// orphanFate is what a new agent does with an attempt its predecessor
// recorded.
type orphanFate int

const (
	fateGone    orphanFate = iota // nothing of it is alive
	fateForeign                   // its group id belongs to other processes now: left alone
	fateKill                      // provably its own, but cannot be adopted: killed
	fateAdopt                     // adopted
)

func (f orphanFate) String() string {
	return [...]string{"gone", "foreign", "kill", "adopt"}[f]
}

// orphanProbe is what the new agent found of a recorded attempt.
type orphanProbe struct {
	members int // live processes in the recorded group
	owned   bool
	// leaderTicks is the start time of the process now at the recorded
	// leader's pid; 0 when there is none or it is unknown (no /proc).
	leaderTicks uint64
	// exited: the shim's exit file is there (the task ended; its shim may
	// still be on the way out); reported: the journal holds its exit.
	exited, reported bool
}

// orphanFateOf decides an attempt's fate. Only an attempt whose leader is
// provably the recorded one (same start time) and that runs under a task
// shim (which records the exit status for a process that cannot wait for
// it) is adopted, and only while it has not ended.
func orphanFateOf(r stateRecord, p orphanProbe) orphanFate {
	switch {
	case p.members == 0:
		return fateGone
	case !p.owned:
		return fateForeign
	case r.ExitFile != "" && r.StartTicks != 0 && p.leaderTicks == r.StartTicks && !p.exited && !p.reported:
		return fateAdopt
	default:
		return fateKill
	}
}

// probeOrphan gathers the orphanProbe of a recorded attempt.
func (o orphans) probeOrphan(r stateRecord, members []int) orphanProbe {
	a := o.a
	p := orphanProbe{members: len(members)}
	if len(members) == 0 {
		return p
	}
	p.owned = ownedBy(r, members)
	p.leaderTicks, _ = startTicks(r.Pgid)
	if r.ExitFile != "" {
		_, err := os.Stat(r.ExitFile)
		p.exited = err == nil
	}
	a.mu.Lock()
	p.reported = a.finished[r.Task]
	a.mu.Unlock()
	return p
}

// adoptSeqBase numbers the line an adopting agent adds to an attempt's
// log, above any Seq of the process that started it, so that the line
// sorts after that process's lines and each adoption's line is stored.
// The lines of the shim's output file follow, from adoptOutputSeqBase+1
// in the file's order, whichever adoption reads them: an agent that
// adopts the attempt again reads the file from its start, and the master
// stores a line it has already once.
//
// endedNoteSeqBase numbers the agent's line on an attempt that ended
// while no agent ran, which follows the file's lines (deliverEndedOutput):
// above any line of the file (one JSON record a line, within the file's
// cap of 64 MiB by default, far fewer than 2^32 lines), and close enough
// to adoptSeqBase that a gang's numbering (the master's gangSeq, Seq
// times the parts) stays below 2^53, which the dashboard's numbers hold
// exactly, as the file's lines do.
const (
	adoptSeqBase       = 1 << 40
	adoptOutputSeqBase = adoptSeqBase + 1<<20
	endedNoteSeqBase   = adoptOutputSeqBase + 1<<32
)

// adopt takes over a recorded attempt: it runs as before, listed at
// registration, and its end is reported as any other. A running report
// goes first, in case the earlier agent died before sending its own.
func (o orphans) adopt(r stateRecord) (*attempt, error) {
	a := o.a
	t, err := a.runner.Adopt(agent.Orphan{ID: r.Task, Pid: r.Pgid, StartTicks: r.StartTicks, WorkDir: r.WorkDir,
		NodeRank: r.NodeRank, ExitFile: r.ExitFile, StartedAt: r.StartedAt, OutputSeqBase: adoptOutputSeqBase})
	if err != nil {
		return nil, err
	}
	r.Adoptions++
	spec := agent.TaskSpec{JobID: r.Task.JobID, TaskIndex: r.Task.TaskIndex, Attempt: r.Task.Attempt,
		WorkDir: r.WorkDir, GPUs: r.GPUs, NodeRank: r.NodeRank, CheckpointDir: r.CheckpointDir}
	att := &attempt{spec: spec, task: t, rec: r}
	now := time.Now().UTC()
	a.ship.push(r.Task, agent.LogLine{Seq: adoptSeqBase + uint64(r.Adoptions), Time: now, Stream: agent.Stderr,
		Text: fmt.Sprintf("[allot agent] the node's agent restarted; it took this attempt over at %s. %s",
			now.Format(time.RFC3339), orphanOutputNote(t.OutputFile() != ""))})
	a.mu.Lock()
	a.tasks[r.Task] = att
	a.enqueueLocked(api.Report{Task: r.Task, Event: api.EventRunning, At: r.StartedAt})
	a.mu.Unlock()
	// Logged before the master's answer to the registration, which may
	// stop the attempt (it ended it as lost): so not "it runs on".
	a.log.Warn("found the attempt of an earlier agent process running and took it over; "+
		"the master's answer to the registration says whether it goes on (its output read from its shim's output file if it keeps one)",
		"task", r.Task.String(), "pgid", r.Pgid, "started_at", r.StartedAt, "output_file", t.OutputFile())
	return att, nil
}

// orphanOutputNote says, in the agent's line on an adopted or recovered
// attempt, where its output since the earlier agent died comes from and
// what is lost; keeps is whether its shim keeps an output file.
func orphanOutputNote(keeps bool) string {
	if !keeps {
		return "Its task shim, started by an older agent, keeps no output file: the output since the previous " +
			"agent process died is lost, as are the lines that process had read and not yet delivered."
	}
	return "The output since the previous agent process died comes from the task shim's output file; lost are " + orphanLost()
}

// orphanLost lists what a shim's output file cannot give back, for the
// agent's lines on adopted and ended attempts.
func orphanLost() string {
	return fmt.Sprintf("the lines that process had read and not yet delivered (a line it was reading loses its start), "+
		"lines past the file's cap, and output of the task's processes more than %v after its shell exited.",
		agent.ShimOutputGrace)
}

// watchAdopted starts the watchers of the adopted attempts; Run calls it
// once stopCtx, which they use, is set.
func (o orphans) watchAdopted(adopted []*attempt) {
	a := o.a
	a.mu.Lock()
	a.watchers.Add(len(adopted))
	a.mu.Unlock()
	for _, att := range adopted {
		go a.watch(att)
	}
}

// awaitKilled waits, after a kill at once (grace 0), until an adopted
// attempt's group is gone. The master kills an adopted attempt at once
// when it ended it as lost already, and may have placed its next attempt
// on the same GPUs and checkpoint directory in the same reply: commands
// are carried out in order, so the next start waits for this. Done comes
// once no process of the group is left (or agent.Task gave up on one
// stuck in the kernel). A kill with a grace is not awaited: it is a kill
// of an attempt the master holds, killing, until its end is reported, so
// nothing the master sends goes onto its GPUs meanwhile, and waiting
// would hold every later command (other attempts' starts) for up to the
// grace; a kill at once that follows it cuts the grace short and is
// awaited.
func (o orphans) awaitKilled(att *attempt) {
	if att.task.Adopted() {
		<-att.task.Done()
	}
}
