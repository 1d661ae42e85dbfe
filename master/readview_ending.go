package master

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// A job still ending: every task it has not ended is being killed, and
// they hold their GPUs, still charged, until their agents report the
// end, which a silent node can make take long. A kill (api_kill.go)
// stores the job killed at once, its active tasks killing; a time limit
// (killOverLimit), a gang's failed part (partExited) or a searcher's stop
// (stopTrial) kills a task while its job stays running, and the job ends
// with that task when no other is left. The views show such a job as
// killing (as Slurm shows COMPLETING), not as killed or running, so that
// no one reads its GPUs as free nor its work as going on: the stored
// state, which the scheduling core and the replays read, stays as it
// is, and the API adds ending (api.Job.Ending) beside it.

// stateKilling is the state filter (GET /jobs?state=killing) that selects
// the jobs still ending; no job is stored in it.
const stateKilling = store.JobState(api.JobStateKilling)

// ending reports whether some of the job's tasks still hold their slots,
// being killed, and it has ended in the store (killed), or will end once
// they stop: no task of it is left that runs or waits.
func (j *jobRead) ending() bool {
	return j.active > 0 && (j.rec.State.Terminal() || j.stopping == j.tasks-j.ended)
}

// killStart is when and why the kill of the job still ending began: the
// job's kill (its stored end until the last task ends, endWithLastTask,
// and its reason, who killed it), else the first kill of a task still
// stopping, and that kill's reason (a time limit, a failed part).
func (j *jobRead) killStart() (time.Time, string) {
	if j.rec.State.Terminal() {
		return j.rec.EndedAt, j.rec.Reason
	}
	return j.killedAt, j.killWhy
}

// stoppingNodes lists, in name order, the nodes where the job's killed
// tasks have parts not yet exited: the agents whose word the end waits
// for. It falls back on every node of its open attempts.
func (j *jobRead) stoppingNodes() []string {
	var out []string
	for _, p := range j.open {
		if p.killing && !slices.Contains(out, p.node) {
			out = append(out, p.node)
		}
	}
	if len(out) == 0 {
		return j.nodes
	}
	slices.Sort(out)
	return out
}

// showEnding marks the view of a job still ending (ending) and says why
// it has not ended yet, counting from now; the stored reason (who killed
// it) follows. It leaves a reason about lost nodes (lostReasonOf), which
// says more. killGrace is the kill_grace its tasks were given
// (jobRead.killGrace), which the reason measures the wait against.
func showEnding(out *api.Job, j *jobRead, now time.Time, lost bool, killGrace time.Duration) {
	if !j.ending() {
		return
	}
	out.Ending = true
	if at, _ := j.killStart(); !at.IsZero() {
		out.KillRequestedAt = &at
	}
	if lost {
		return
	}
	out.Reason = endingReason(j, now, killGrace)
}

// endingReason is "being killed: 1 task still stopping on dev-3, its
// agent has not confirmed the end (for 5s, of a kill_grace of 30s);
// killed through the API by alice", or "...; time limit of 1h0m0s
// reached" for a job still running. Within the kill grace a task may be
// saving its state after the SIGTERM; past it, it was SIGKILLed, and the
// wait is its agent's report. A task killed while being preempted is
// SIGKILLed at the preemption's deadline where that comes first (its
// agent keeps it: stop.go's sendAll), which the reason says instead, as
// the preempting reason said it (preemptingReason): "(for 1s, killed at
// 10:44:50 UTC if not stopped by then, its preemption's deadline)".
func endingReason(j *jobRead, now time.Time, killGrace time.Duration) string {
	nodes := j.stoppingNodes()
	where := ""
	if len(nodes) > 0 {
		where = " on " + strings.Join(nodes, ", ")
	}
	agents := "its agent has"
	if len(nodes) > 1 {
		agents = "their agents have"
	}
	msg := fmt.Sprintf("being killed: %s still stopping%s, %s not confirmed the end",
		plural.Count(j.active, "task"), where, agents)
	at, why := j.killStart()
	if !at.IsZero() {
		msg += killWait(j, at, now, killGrace)
	}
	if why != "" {
		msg += "; " + why
	}
	return msg
}

// killWait is what endingReason says of the wait for the end of a kill
// made at at: for how long, and against which deadline: the kill grace
// killGrace, or the deadline of the preemption the kill came during
// (jobRead.killBy) where that comes first.
func killWait(j *jobRead, at, now time.Time, killGrace time.Duration) string {
	since := max(int64(now.Sub(at)/time.Second), 0)
	if by := j.killBy; !by.IsZero() && !j.killedAt.IsZero() && by.Before(j.killedAt.Add(killGrace)) {
		deadline := by.UTC().Format("15:04:05 UTC")
		if now.Before(by) {
			return fmt.Sprintf(" (for %s, killed at %s if not stopped by then, its preemption's deadline)", sched.HumanDuration(since), deadline)
		}
		return fmt.Sprintf(" (for %s, past its preemption's deadline of %s)", sched.HumanDuration(since), deadline)
	}
	grace := int64(killGrace / time.Second)
	switch {
	case grace <= 0:
		return fmt.Sprintf(" (for %s)", sched.HumanDuration(since))
	case since < grace:
		return fmt.Sprintf(" (for %s, of a kill_grace of %s)", sched.HumanDuration(since), sched.HumanDuration(grace))
	}
	return fmt.Sprintf(" (for %s, past the kill_grace of %s)", sched.HumanDuration(since), sched.HumanDuration(grace))
}
