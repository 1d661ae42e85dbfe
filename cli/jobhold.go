package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// allot job hold and allot job release: Slurm's scontrol hold and
// release, Run:ai's suspend and resume of a job not yet running.

func newJobHoldCmd() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:               "hold ID [ID...]",
		Short:             "Keep queued jobs from starting until released",
		Example:           "  allot job hold 12\n  allot job hold 12 13 14\n  allot submit --hold train.yaml",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeJobID,
		RunE:              func(cmd *cobra.Command, args []string) error { return runHolds(cmd, &out, args, true) },
		SuggestFor:        []string{"suspend"},
	}
	cmd.Long = `Hold queued jobs: no scheduling pass considers a held job until it is
released (allot job release ID). It keeps its ID, its job file and its
submission time, so it keeps its age and its place when released; allot
jobs shows it held, with who held it and when, and allot explain ID says
so. Only a job with no task holding GPUs (starting, running, being
preempted or killed) can be held: a hold does not preempt. To suspend a
running job, requeue it held (allot job requeue ID --hold: its tasks
checkpoint, then it waits held); else let it end, or kill it. Holding a
held job changes nothing and says so; the command still succeeds, as
scontrol hold does. A job's owner, its project's lead and admins may
hold it. Several IDs are held in one request; a job that cannot be held
is reported, the others are still held, and the command then exits 1.
allot submit --hold (-H) submits a job held.`
	out.register(cmd)
	return cmd
}

func newJobReleaseCmd() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:               "release ID [ID...]",
		Short:             "Let held jobs be scheduled again",
		Example:           "  allot job release 12\n  allot job release 12 13 14",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeJobID,
		RunE:              func(cmd *cobra.Command, args []string) error { return runHolds(cmd, &out, args, false) },
		SuggestFor:        []string{"resume", "unhold"},
	}
	cmd.Long = `Release held jobs (allot job hold, allot submit --hold): the next
scheduling pass considers them again, by their submission time as before
the hold. Releasing a job that is not held changes nothing and says so;
the command still succeeds. A job's owner (a member of its project), its
project's lead and admins may release it. Several IDs are released in
one request; a job that cannot be released is reported, the others are
still released, and the command then exits 1.`
	out.register(cmd)
	return cmd
}

// runHolds holds (hold true) or releases the jobs of args, going on past
// the ones the master refuses, and fails at the end if any was refused.
func runHolds(cmd *cobra.Command, out *outputFlag, args []string, hold bool) error {
	verb := "released"
	if hold {
		verb = "held"
	}
	return jobBatch[api.HoldReply]{
		send: func(cmd *cobra.Command, c *client.Client, ids []int64) ([]api.HoldResult, error) {
			return holds(cmd, c, ids, hold)
		},
		print: func(w io.Writer, r api.HoldReply) error { return printHeld(w, r, hold) },
		verb:  verb,
	}.run(cmd, out, args)
}

// holds sends one job's hold or release alone, whose refusal is the
// command's error, and several in one request, each with its result.
func holds(cmd *cobra.Command, c *client.Client, ids []int64, hold bool) ([]api.HoldResult, error) {
	ctx, cancel := requestContext(cmd)
	defer cancel()
	if len(ids) > 1 {
		return c.HoldJobs(ctx, ids, hold)
	}
	do := c.Release
	if hold {
		do = c.Hold
	}
	r, err := do(ctx, ids[0])
	if err != nil {
		return nil, err
	}
	return []api.HoldResult{{ID: ids[0], Reply: &r}}, nil
}

// printHeld says what a hold or release did.
func printHeld(w io.Writer, r api.HoldReply, hold bool) error {
	j := r.Job
	var err error
	switch {
	case hold && r.Changed:
		_, err = fmt.Fprintf(w, "job %d (%s): held; allot job release %d lets it start\n", j.ID, j.Name, j.ID)
	case hold && j.Held != nil:
		_, err = fmt.Fprintf(w, "job %d (%s) was already held by %s at %s\n", j.ID, j.Name, j.Held.By,
			j.Held.At.UTC().Format("2006-01-02 15:04 UTC"))
	case hold:
		_, err = fmt.Fprintf(w, "job %d (%s): %s\n", j.ID, j.Name, j.ShownState())
	case r.Changed:
		_, err = fmt.Fprintf(w, "job %d (%s): released; it waits by its submission time again\n", j.ID, j.Name)
	default:
		_, err = fmt.Fprintf(w, "job %d (%s) was not held: %s\n", j.ID, j.Name, j.ShownState())
	}
	return err
}
