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

// A job still ending. A kill (api_kill.go) stores the job killed at once,
// and its active tasks killing until their agents report the end, which a
// silent node can make take long; meanwhile the tasks hold their GPUs,
// still charged. The views show such a job as killing, not killed (as
// Slurm shows COMPLETING), so that no one reads its GPUs as free: the
// stored state, which the scheduling core and the replays read, stays
// killed, and the API adds ending (api.Job.Ending) beside it.

// stateKilling is the state filter (GET /jobs?state=killing) that selects
// the jobs still ending; no job is stored in it.
const stateKilling = store.JobState(api.JobStateKilling)

// ending reports whether the job has ended in the store while some of its
// tasks still hold their slots, being killed.
func (j *jobRead) ending() bool { return j.rec.State.Terminal() && j.active > 0 }

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
// says more.
func showEnding(out *api.Job, j *jobRead, now time.Time, lost bool) {
	if !j.ending() {
		return
	}
	out.Ending = true
	if lost {
		return
	}
	out.Reason = endingReason(j, now)
}

// endingReason is "being killed: 1 task still stopping on dev-3, its
// agent has not confirmed the end (for 5s); killed through the API by
// alice".
func endingReason(j *jobRead, now time.Time) string {
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
	if at := j.rec.EndedAt; !at.IsZero() {
		msg += fmt.Sprintf(" (for %s)", sched.HumanDuration(max(int64(now.Sub(at)/time.Second), 0)))
	}
	if j.rec.Reason != "" {
		msg += "; " + j.rec.Reason
	}
	return msg
}
