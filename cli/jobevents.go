package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// allot job events ID: a job's event log (GET /jobs/{id}/events), which
// docs/cli.md promised job updates are logged in.

func newJobEventsCmd() *cobra.Command {
	cmd := jobCommand("events ID", "Show a job's event log: each state change of it and its tasks, and each change made to it",
		"  allot job events 12\n  allot job events 12 -o json", 1,
		func(cmd *cobra.Command, c *client.Client, id int64, _ []string) (api.JobEvents, error) {
			ctx, cancel := requestContext(cmd)
			defer cancel()
			return c.JobEvents(ctx, id)
		}, printJobEvents)
	cmd.Long = `Show a job's event log, oldest first: each transition of the job and of its
tasks (TASK - is the job itself), and each change made to it with allot job
update, set-priority or set-weight, which leaves its state as it was and
says in REASON what it changed (time limit 10m0s → 1m30s, by whom is in
allot audit). CAUSE is why a task's transition was made, in a word
(priority, quota_reclaim, time_limit, not_run, moved, resized, ...), and
for which job. Whoever may read the job may read its events.`
	return cmd
}

func printJobEvents(w io.Writer, evs api.JobEvents) error {
	if len(evs.Events) == 0 {
		_, err := fmt.Fprintf(w, "job %d has no events\n", evs.Job)
		return err
	}
	t := newTable(w, "TIME", "TASK", "FROM→TO", "CAUSE", "REASON")
	for _, e := range evs.Events {
		task := "-"
		if e.Task != nil {
			task = strconv.Itoa(*e.Task)
			if e.Attempt > 0 {
				task += fmt.Sprintf(" (attempt %d)", e.Attempt)
			}
		}
		t.row(formatTime(&e.At), task, transitionWords(e.From, e.To), causeWords(e), reasonWords(e))
	}
	return t.flush()
}

// transitionWords is FROM→TO; a change of the job, which keeps its
// state, shows the state once.
func transitionWords(from, to string) string {
	switch {
	case from == to:
		return to
	case from == "":
		return "→" + to
	}
	return from + "→" + to
}

func causeWords(e api.JobEvent) string {
	c := e.Cause
	if e.ForJob != 0 {
		c = strings.TrimSpace(fmt.Sprintf("%s for job %d", c, e.ForJob))
	}
	return orDash(c)
}

// reasonWords is the event's reason, with its why when the reason does
// not already say it.
func reasonWords(e api.JobEvent) string {
	r := e.Reason
	if e.Why != "" && !strings.Contains(r, e.Why) {
		r = strings.TrimSpace(r + " (" + e.Why + ")")
	}
	return orDash(r)
}
