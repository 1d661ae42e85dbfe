package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
)

// printMustEnd prints the running jobs that would have to end, or could
// be preempted, for the job to start on cf.Nodes, with what each holds
// there and when its time limit ends, or, for one being preempted, its
// checkpoint's deadline (endsColumn). Where they differ (one must end,
// another could be preempted) a column says which.
func printMustEnd(w io.Writer, cf *api.Counterfactual, ref time.Time) error {
	// Jobs on none of cf.Nodes (runs_on) must end for the jobs the pool
	// serves first, not to free those nodes: a table of their own, so
	// that "on n2, once these end" lists only n2's (trial 2026-11-29b B8).
	var there, away []api.JobRef
	for _, r := range cf.MustEnd {
		if len(r.RunsOn) > 0 && len(cf.Nodes) > 0 {
			away = append(away, r)
		} else {
			there = append(there, r)
		}
	}
	if len(away) == 0 || len(there) == 0 {
		return printMustEndTable(w, cf, cf.MustEnd, "", ref)
	}
	if err := printMustEndTable(w, cf, there, "", ref); err != nil {
		return err
	}
	return printMustEndTable(w, cf, away, "  and on "+strings.Join(api.RunsOnOf(away), ", ")+", for the jobs the pool serves before it, once these %s:\n", ref)
}

// printMustEndTable prints refs, the jobs of cf.MustEnd on one side, as
// printMustEnd says, under head (a format of the verb; "" for the
// heading of cf's nodes).
func printMustEndTable(w io.Writer, cf *api.Counterfactual, refs []api.JobRef, head string, ref time.Time) error {
	kinds := map[string]bool{}
	for _, r := range refs {
		kinds[waitKind(r)] = true
	}
	ends := "end or are preempted"
	switch {
	case len(kinds) > 1:
	case kinds[api.PreemptUnderWay]:
		ends = "are preempted"
	case kinds[kindResize]:
		ends = "are resized"
	case kinds[""] && (len(cf.Nodes) == 0 || !strings.Contains(cf.Message, "preempted")):
		// Every job must end. (A master older than JobRef.Preempt
		// worded the message by the pool alone: "ends or is preempted"
		// where it may preempt.)
		ends = "end"
	}
	switch {
	case head != "":
		fmt.Fprintf(w, head, ends)
	case len(cf.Nodes) == 0:
		// A quota pool's limit or quota binds: its project's own jobs
		// in the pool, wherever they run.
		fmt.Fprintf(w, "  once these of its project's jobs %s:\n", ends)
	default:
		fmt.Fprintf(w, "  on %s, once these %s:\n", strings.Join(cf.Nodes, ", "), ends)
	}
	cols := []string{"  JOB", "NAME", "USER", "PROJECT", "SLOTS", endsColumn(refs)}
	if len(kinds) > 1 {
		cols = append(cols, "WAIT FOR")
	}
	t := newTable(w, cols...)
	for _, r := range refs {
		ends := "no time limit"
		switch {
		case r.CheckpointBy != nil:
			// Being preempted: its time limit no longer matters.
			ends = whenSecFrom(*r.CheckpointBy, ref)
		case r.EndsAt != nil:
			ends = whenFrom(*r.EndsAt, ref)
		}
		slots := strconv.Itoa(r.Slots)
		if r.Resize != nil {
			slots = fmt.Sprintf("%d → %d", r.Resize.From, r.Resize.To)
		}
		row := []string{"  " + strconv.FormatInt(r.ID, 10), refName(r.Name, r.Private), orDash(r.User), orDash(r.Project), slots, ends}
		if len(kinds) > 1 {
			row = append(row, mustEndWaitFor(r))
		}
		t.row(row...)
	}
	return t.flush()
}
