package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

// allot job requeue [--hold]: Slurm's scontrol requeue and requeuehold,
// Run:ai's suspend (with allot job release, resume), Determined's pause.

func newJobRequeueCmd() *cobra.Command {
	var out outputFlag
	var hold bool
	cmd := &cobra.Command{
		Use:               "requeue ID [ID...]",
		Short:             "Stop running jobs at a checkpoint and queue them again (--hold: suspend)",
		Example:           "  allot job requeue 12\n  allot job requeue --hold 12 13   # suspend; allot job release 12 13 resumes",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeJobID,
		RunE:              func(cmd *cobra.Command, args []string) error { return runRequeues(cmd, &out, args, hold) },
		SuggestFor:        []string{"suspend", "pause", "requeuehold"},
	}
	cmd.Long = `Requeue jobs: each running or starting task is asked to checkpoint and
stop exactly as a preemption asks (SIGTERM and the preempt file, with
its pool's grace before SIGKILL), then waits in the queue again and
resumes from its checkpoint: its CHECKPOINT_ROOT/JOB/TASK directory is
the same (a task that wrote none there starts from the beginning). The
job keeps its ID, job file and submission time. Use it to move a job
off a sick node, or to make room for other work.

With --hold the job is also held at once (allot job hold): once its
tasks have checkpointed they wait until allot job release ID, which is
suspend and resume. A queued job has nothing to requeue: the command
says so and succeeds (with --hold it holds the job). An ended job is
refused, and so is a job whose exit actions would fail its task rather
than requeue it (on_preempt: fail, or max_retries reached): a requeue
counts as a requeue there, as a preemption does. A job that is not
preemptible may be requeued too: that is its owner's choice. No
preemption budget is charged. A job's owner, its project's lead and
admins may requeue it; allot job events and allot job show say who did
and when. Several IDs are requeued in one request; a job that cannot be
requeued is reported, the others are still requeued, and the command
then exits 1.`
	cmd.Flags().BoolVarP(&hold, "hold", "H", false, "also hold the job: it waits after its checkpoint until allot job release (suspend)")
	out.register(cmd)
	return cmd
}

// runRequeues requeues the jobs of args, going on past the ones the
// master refuses, and fails at the end if any was refused.
func runRequeues(cmd *cobra.Command, out *outputFlag, args []string, hold bool) error {
	return jobBatch[api.RequeueReply]{
		send: func(cmd *cobra.Command, c *client.Client, ids []int64) ([]api.RequeueResult, error) {
			return requeues(cmd, c, ids, hold)
		},
		print: func(w io.Writer, r api.RequeueReply) error { return printRequeued(w, r, hold) },
		verb:  "requeued",
	}.run(cmd, out, args)
}

// requeues sends one job's requeue alone, whose refusal is the command's
// error, and several in one request (no pass between them), each with
// its result.
func requeues(cmd *cobra.Command, c *client.Client, ids []int64, hold bool) ([]api.RequeueResult, error) {
	ctx, cancel := requestContext(cmd)
	defer cancel()
	if len(ids) > 1 {
		return c.RequeueJobs(ctx, ids, hold)
	}
	r, err := c.Requeue(ctx, ids[0], hold)
	if err != nil {
		return nil, err
	}
	return []api.RequeueResult{{ID: ids[0], Reply: &r}}, nil
}

// printRequeued says what a requeue did.
func printRequeued(w io.Writer, r api.RequeueReply, hold bool) error {
	j := r.Job
	var err error
	switch {
	case r.Requeued > 0 && r.Held:
		_, err = fmt.Fprintf(w, "job %d (%s): %s checkpointing, then held; allot job release %d resumes it\n",
			j.ID, j.Name, plural.Count(r.Requeued, "task"), j.ID)
	case r.Requeued > 0:
		_, err = fmt.Fprintf(w, "job %d (%s): %s checkpointing; it waits in the queue again and resumes from its checkpoint if it wrote one (else from the start)\n",
			j.ID, j.Name, plural.Count(r.Requeued, "task"))
	case r.Held:
		_, err = fmt.Fprintf(w, "job %d (%s): nothing running to requeue; held; allot job release %d lets it start\n", j.ID, j.Name, j.ID)
	case hold && j.Held != nil:
		_, err = fmt.Fprintf(w, "job %d (%s): nothing running to requeue; already held by %s\n", j.ID, j.Name, j.Held.By)
	default:
		_, err = fmt.Fprintf(w, "job %d (%s): nothing running to requeue: %s\n", j.ID, j.Name, j.ShownState())
	}
	return err
}
