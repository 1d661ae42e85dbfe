package master

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A running job's reason. The store keeps "a task started" for every
// running job (settleJob), which said nothing a list did not show in
// its state: every running job read the same (trial r R12). The views
// say where and since when it runs instead: "on n[1-2] since 2026-11-28
// 22:01:17 UTC". The stored reason stays as it is, which the replays and
// the history read; a reason that says more (a kill, a lost node, a
// resize, a move, a preemption) is left as those set it.

// startedReason is what settleJob stores as a running job's reason.
const startedReason = "a task started"

// showRunning gives the view of a running job its nodes, and, where its
// reason is the stored startedReason, says where and since when it runs.
func showRunning(out *api.Job, j *jobRead) {
	if len(j.nodes) > 0 {
		out.Nodes = slices.Clone(j.nodes)
	}
	if j.rec.State != store.JobRunning || out.Reason != startedReason || len(j.nodes) == 0 || j.startedAt.IsZero() {
		return
	}
	out.Reason = runningReason(j.nodes, j)
}

// runningReason is "on n2 since 2026-11-28 22:01:17 UTC" (the first
// start of its open attempts on their current placements), with "2 of 16
// tasks" first for a job of several whose tasks do not all hold GPUs (an
// experiment's trials). After a move or resize it is the start on the
// new placement, and says so: "on n1 since 04:19:23 ... (moved or resized
// there; this run started 04:18:57)"; it read the first start, on the old
// node (trial 2026-11-29b B5). The view's started_at stays that start,
// which the time limit counts from: the start of the run the move or
// resize continued, not the job's first attempt's where a preemption or
// fence requeued it since, so "first started" misled (trial 2026-11-29f F8).
func runningReason(nodes []string, j *jobRead) string {
	since := j.placedAt
	if since.IsZero() {
		since = j.startedAt
	}
	s := "on " + api.CompactNodes(nodes) + " since " + msgTime(since)
	if j.replaced && since.After(j.startedAt) {
		first := j.startedAt.UTC().Format("15:04:05")
		if j.startedAt.UTC().YearDay() != since.UTC().YearDay() {
			first = msgTime(j.startedAt)
		}
		s += " (moved or resized there; this run started " + first + ")"
	}
	if j.tasks > 1 && j.holding < j.tasks {
		s = fmt.Sprintf("%d of %d tasks %s", j.holding, j.tasks, s)
	}
	return s
}

// runningSentence is explain's sentence of where and since when a running
// job runs, and, for a job of one task with a time limit, by when the
// limit ends it: "It runs on n2 since 2026-11-28 22:01:17 UTC; its time
// limit of 12m ends it by 2026-11-28 22:13:17 UTC at the latest." (trial 2026-11-29a
// P3: explain said only "It is running."); "" for any other job.
func runningSentence(view api.Job) string {
	if view.State != string(store.JobRunning) || len(view.Nodes) == 0 || view.StartedAt == nil {
		return ""
	}
	s := "It runs on " + api.CompactNodes(view.Nodes) + " since " + msgTime(*view.StartedAt)
	if view.Tasks == 1 && view.TimeLimitS > 0 {
		limit := time.Duration(view.TimeLimitS) * time.Second
		s += fmt.Sprintf("; its time limit of %s ends it by %s at the latest", configSpan(limit),
			msgTime(view.StartedAt.Add(limit)))
	}
	return s + "."
}
