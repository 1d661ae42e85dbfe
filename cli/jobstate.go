package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

// A job still ending: killed in the master's store, its tasks still
// stopping until their agents report the end, holding their GPUs
// meanwhile (api.Job.Ending). allot jobs and allot job show call it
// killing, as Slurm calls such a job COMPLETING, so that no one reads
// its GPUs as free; the default list keeps it with the live jobs.

// listStates are the states allot jobs --state takes: the job states, and
// killing for the jobs still ending.
var listStates = []string{"queued", "running", api.JobStateKilling, "completed", "failed", "killed"}

// liveStates is the master's state filter for the jobs allot jobs shows
// by default: those that wait or hold GPUs.
const liveStates = "queued,running," + api.JobStateKilling

// inState reports whether j is listed under --state s: killed takes the
// jobs still being killed too (shown killing), killing only those.
func inState(j api.Job, s string) bool {
	return j.State == s || (s == api.JobStateKilling && j.Ending)
}

// liveJobs lists the live jobs f selects. A master older than the killing
// filter refuses it (400 on state); its default list is then asked for
// without it, as such a master lists no job still ending.
func liveJobs(ctx context.Context, c *client.Client, f client.JobFilter) ([]api.Job, error) {
	jobs, err := c.Jobs(ctx, f)
	var ce *client.Error
	if f.State == liveStates && errors.As(err, &ce) && ce.Status == http.StatusBadRequest && ce.Field == "state" {
		f.State = strings.TrimSuffix(liveStates, ","+api.JobStateKilling)
		return c.Jobs(ctx, f)
	}
	return jobs, err
}

// tasksText is allot job show's Tasks: how many run, or, for a job still
// ending, how many still stop.
func tasksText(j api.Job) string {
	if j.Ending {
		return fmt.Sprintf("%d still stopping of %d", j.Running, j.Tasks)
	}
	return fmt.Sprintf("%d running of %d", j.Running, j.Tasks)
}

// endedRows are allot job show's rows of its end: Ended, or for a job
// still ending, when the kill was asked for and an Ended that says the
// end is yet to come.
func endedRows(j api.Job) [][2]string {
	if !j.Ending {
		return [][2]string{{"Ended", formatTime(j.EndedAt)}}
	}
	return [][2]string{{"Kill requested", formatTime(j.EndedAt)},
		{"Ended", "not yet: " + plural.Count(j.Running, "task") + " still stopping"}}
}
