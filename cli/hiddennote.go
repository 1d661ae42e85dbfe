package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

// printHiddenNote tells a user who may not read every project that the
// pools hold work the list does not show: an empty table on a full pool
// otherwise reads as an idle cluster (trial m F2). GET /pools counts every
// job, which the dashboard shows members too, so the difference from the
// jobs listed is the hidden work. Only an unfiltered list (a --pool aside)
// is compared: other filters leave out readable jobs as well.
func printHiddenNote(ctx context.Context, w io.Writer, c *client.Client, f jobsFlags, shown []api.Job) {
	if f.project != "" || f.user != "" || f.node != "" || f.since != "" || f.state != "" {
		return
	}
	who, err := c.Identity().Whoami(ctx)
	if err != nil || who.Admin || who.Roles["*"] != "" {
		return
	}
	pools, err := c.Pools(ctx)
	if err != nil {
		return
	}
	if note := hiddenNote(pools, shown, f.pool); note != "" {
		fmt.Fprintln(w, note)
	}
}

// hiddenNote is the note for the pools' counts against the jobs shown, or
// "" when nothing is hidden.
func hiddenNote(pools []api.Pool, shown []api.Job, only string) string {
	queued, tasks := map[string]int{}, map[string]int{}
	for _, j := range shown {
		if j.State == "queued" {
			queued[j.Pool]++
		}
		tasks[j.Pool] += j.Running
	}
	hiddenJobs, hiddenTasks := 0, 0
	var full []string
	for _, p := range pools {
		if only != "" && p.Name != only {
			continue
		}
		hq, ht := max(p.QueuedJobs-queued[p.Name], 0), max(p.RunningTasks-tasks[p.Name], 0)
		hiddenJobs, hiddenTasks = hiddenJobs+hq, hiddenTasks+ht
		if (hq > 0 || ht > 0) && p.Slots > 0 && p.Used >= p.Slots {
			full = append(full, p.Name)
		}
	}
	if hiddenJobs == 0 && hiddenTasks == 0 {
		return ""
	}
	var parts []string
	if hiddenJobs > 0 {
		parts = append(parts, plural.Count(hiddenJobs, "queued job"))
	}
	if hiddenTasks > 0 {
		parts = append(parts, plural.Count(hiddenTasks, "running task"))
	}
	note := "note: " + strings.Join(parts, " and ") + " of other projects " + plural.Be(hiddenJobs+hiddenTasks) + " not shown (you have no role there)"
	switch len(full) {
	case 0:
		note += "; allot pools shows each pool's load"
	case 1:
		note += "; pool " + full[0] + " is full: see allot pools"
	default:
		note += "; pools " + strings.Join(full, ", ") + " are full: see allot pools"
	}
	return note
}
