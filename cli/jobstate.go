package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

// A job still ending: every task it has not ended is being killed, and
// holds its GPUs until its agent reports the end (api.Job.Ending): the
// job was killed (stored killed), or it runs and ends once they stop (a
// time limit, a gang's failed part). allot jobs and allot job show call
// it killing, as Slurm calls such a job COMPLETING, so that no one reads
// its GPUs as free nor its work as going on; the default list keeps it
// with the live jobs.

// listStates are the states allot jobs --state takes: the job states,
// held for the queued jobs held (which queued takes too, as Slurm's PD
// does), and killing for the jobs still ending: the STATE column's words
// (trial 2026-11-29c C4: -t held was refused).
var listStates = []string{"queued", api.JobStateHeld, "running", api.JobStateKilling, "completed", "failed", "killed"}

// historyStates are the states allot history --state takes: the job
// states, and held.
var historyStates = []string{"queued", api.JobStateHeld, "running", "completed", "failed", "killed"}

// slurmStates are the words of squeue --states (and their short forms)
// that allot jobs --state takes for its own, case aside, so that a Slurm
// user's habit works: PENDING is queued, COMPLETING is killing (see
// above), CANCELLED is killed. Slurm's states with no counterpart here
// (TIMEOUT, PREEMPTED, NODE_FAIL, ...) stay errors: a job that reached its
// time limit, or was preempted, ends as its tasks put it.
var slurmStates = map[string]string{
	"pending": "queued", "pd": "queued",
	"r":          "running",
	"completing": api.JobStateKilling, "cg": api.JobStateKilling,
	"cd":        "completed",
	"f":         "failed",
	"cancelled": "killed", "canceled": "killed", "ca": "killed",
}

// historyState is the state allot history --state s names, as allot jobs
// --state takes it (listState: a job state in any case, or a Slurm word
// for one, as sacct -s takes them). A job still ending (killing, CG) is
// stored killed or running, which is what history lists, so those are
// refused with the way to see them.
func historyState(s string) (string, error) {
	st, ok := listState(s)
	switch {
	case st == api.JobStateKilling:
		return "", usageErrorf("--state: history lists a job still ending (%s) as killed, or as running while its failed tasks stop; allot jobs --state killing lists those now", s)
	case !ok:
		return "", usageErrorf("--state: expected one of %s (or Slurm's pending, PD, R, CD, F, CA), got %q", strings.Join(historyStates, ", "), s)
	}
	return st, nil
}

// shownOnly are the states allot jobs shows of a running job while a
// task of it is being resized, moved or preempted, which no filter
// takes: --state running lists those jobs (api.JobStateResizing,
// JobStateMoving, JobStatePreempting).
var shownOnly = []string{api.JobStateResizing, api.JobStateMoving, api.JobStatePreempting}

// listState is the state allot jobs --state s names: one of listStates,
// in any case, or a Slurm word for one (slurmStates); ok is false for
// none.
func listState(s string) (string, bool) {
	s = strings.ToLower(s)
	if to, ok := slurmStates[s]; ok {
		return to, true
	}
	return s, slices.Contains(listStates, s)
}

// liveStates is the master's state filter for the jobs allot jobs shows
// by default: those that wait or hold GPUs.
const liveStates = "queued,running," + api.JobStateKilling

// inState reports whether j is listed under --state s: the state it is
// stored in, killed or running, takes the jobs still ending too (shown
// killing); killing takes only those, and held the queued jobs held.
func inState(j api.Job, s string) bool {
	switch s {
	case api.JobStateKilling:
		return j.State == s || j.Ending
	case api.JobStateHeld:
		return j.State == "queued" && j.Held != nil
	}
	return j.State == s
}

// storedState is the state allot history filters by for state s of
// historyStates: GET /history has no held filter, and a held job is
// stored queued.
func storedState(s string) string {
	if s == api.JobStateHeld {
		return "queued"
	}
	return s
}

// liveJobs lists the live jobs f selects. A master older than the killing
// or the held filter refuses it (400 on state); the default list is then
// asked for without killing, as such a master lists no job still ending,
// and held as queued, a held job being stored queued, of which inState
// keeps the held ones.
func liveJobs(ctx context.Context, c *client.Client, f client.JobFilter) ([]api.Job, error) {
	jobs, err := c.Jobs(ctx, f)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || ce.Field != "state" {
		return jobs, err
	}
	switch f.State {
	case liveStates:
		f.State = strings.TrimSuffix(liveStates, ","+api.JobStateKilling)
	case api.JobStateHeld:
		f.State = "queued"
	default:
		return jobs, err
	}
	return c.Jobs(ctx, f)
}

// tasksText is allot job show's Tasks: how many run, or, for a job still
// ending, how many still stop.
func tasksText(j api.Job) string {
	if j.Ending {
		return fmt.Sprintf("%d still stopping of %d", j.Running, j.Tasks)
	}
	return fmt.Sprintf("%d running of %d", j.Running, j.Tasks)
}

// endedRows are allot job show's rows of its end: Kill requested, when
// its kill began, if it was killed while its tasks ran or its tasks are
// being killed while it runs (a time limit, a gang's failed part): one
// name for the one field, whoever asked (a user, the time limit); and
// Ended: when its last task ended, or, while it is ending, that the end
// is yet to come.
func endedRows(j api.Job) [][2]string {
	var rows [][2]string
	kill := j.KillRequestedAt
	if kill == nil && j.Ending && j.State == "killed" {
		kill = j.EndedAt // a master older than kill_requested_at
	}
	if kill != nil {
		rows = append(rows, [2]string{"Kill requested", formatTime(kill)})
	}
	if !j.Ending {
		return append(rows, [2]string{"Ended", formatTime(j.EndedAt)})
	}
	return append(rows, [2]string{"Ended", "not yet: " + plural.Count(j.Running, "task") + " still stopping"})
}
