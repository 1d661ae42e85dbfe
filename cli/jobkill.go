package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

func newJobKillCmd() *cobra.Command {
	var out outputFlag
	var k killFilter
	cmd := &cobra.Command{
		Use:   "kill [ID...]",
		Short: "Kill jobs' tasks: by ID, or the live jobs of a user, state, name, project or pool",
		Example: "  allot job kill 12\n  allot job kill 12 13 14\n  allot job kill 12 -o json\n" +
			"  allot job kill -u bo -t PD\n  allot job kill -n sweep -A vision",
		ValidArgsFunction: completeJobID,
		RunE:              func(cmd *cobra.Command, args []string) error { return runKills(cmd, &out, k, args) },
		// Slurm's and Kubernetes' words for it.
		SuggestFor: []string{"cancel", "scancel"},
	}
	cmd.Long = `Kill jobs' tasks: queued ones at once, running ones through their agents
(the job is killed at once, its tasks when their agents report them; until
then it reads killing). A job that has already ended is left as it is, and
the command says so; it still succeeds, so that a kill can be repeated.
Several IDs are killed in one request, as scancel kills a list: no
scheduling pass runs between their kills, so killing one cannot start
another of the list meanwhile; a job that cannot be killed (no such job,
not yours) is reported and the others are still killed; the command
then exits 1. -o json and yaml print the
master's reply: the job's fields and, for a job that had already ended,
"already_ended": true; for several IDs, a list of the replies of the jobs
killed.

As scancel, it takes filters instead of IDs: -u USER, -t STATE (queued,
pending or PD; running or R), -n NAME, -A PROJECT and -p POOL kill
the live jobs that match them all, as allot jobs lists them (so only
jobs you may see), in one request, and print each job killed and how
many; a job already being killed is left to end. With IDs too, only
the IDs that match are killed, and the others are named on stderr with
why; one you may not see, or that does not exist, makes the command exit
1. Without IDs, at
least one filter is needed: allot job kill alone kills nothing. Nothing
matching is not an error. Whether you may kill a job the master decides,
as for an ID.`
	out.register(cmd)
	k.register(cmd)
	return cmd
}

// runKills kills each job of args in turn, going on past the ones the
// master refuses, and fails at the end if any was refused.
func runKills(cmd *cobra.Command, out *outputFlag, k killFilter, args []string) error {
	if err := out.check(); err != nil {
		return err
	}
	if err := k.check(); err != nil {
		return err
	}
	if len(args) == 0 && k.empty() {
		return &usageError{cmd: cmd.CommandPath(), err: errors.New("expected a job ID or a filter (allot job kill ID [ID...], " +
			"or -u USER, -t STATE, -n NAME, -A PROJECT, -p POOL): without either it kills nothing")}
	}
	ids, err := parseJobIDs(args)
	if err != nil {
		return err
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	filtered := !k.empty()
	var failed []error
	if filtered {
		var ok bool
		named := len(ids)
		if ids, failed, ok, err = resolveKills(cmd, c, k, ids); !ok || err != nil {
			if err == nil && (out.format == outputJSON || out.format == outputYAML) {
				_, err = out.structured(cmd.OutOrStdout(), []api.KillReply{})
			}
			if err == nil && len(failed) > 0 {
				err = fmt.Errorf("%s of %d not killed", plural.Count(len(failed), "job"), named)
			}
			return err
		}
	}
	w := cmd.OutOrStdout()
	structured := out.format == outputJSON || out.format == outputYAML
	results, err := kills(cmd, c, ids, filtered)
	if err != nil {
		return err
	}
	refused := len(failed)
	replies := []api.KillReply{}
	for _, x := range results {
		if x.Reply == nil {
			err := jobResultError(x.ID, x.Status, x.Error)
			fmt.Fprintln(cmd.ErrOrStderr(), "allot:", err)
			failed = append(failed, err)
			continue
		}
		replies = append(replies, *x.Reply)
		if !structured {
			if err := printKilled(w, *x.Reply); err != nil {
				return err
			}
		}
	}
	if filtered && !structured {
		if err := printKillCount(w, replies, k); err != nil {
			return err
		}
	}
	if structured {
		// One ID keeps the one reply it always printed; several, a list.
		var v any = replies
		if len(ids) == 1 && !filtered {
			v = replies[0]
		}
		if _, err := out.structured(w, v); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s of %d not killed", plural.Count(len(failed), "job"), len(ids)+refused)
	}
	return nil
}

// kills kills the jobs ids: one job by POST /jobs/{id}/kill, whose
// refusal is the command's error; several, or those a filter chose
// (batch), in one POST /jobs/kill, so
// that no scheduling pass runs between their kills (killing a blocked
// job would otherwise let the master start another job of the list
// before its kill came), each with its own result.
func kills(cmd *cobra.Command, c *client.Client, ids []int64, batch bool) ([]api.KillResult, error) {
	ctx, cancel := requestContext(cmd)
	defer cancel()
	if len(ids) > 1 || batch {
		// The master takes up to maxKillBatch IDs a request; a filter
		// may match more.
		var all []api.KillResult
		for chunk := range slices.Chunk(ids, maxKillBatch) {
			rs, err := c.KillJobs(ctx, chunk)
			if err != nil {
				return all, err
			}
			all = append(all, rs...)
		}
		return all, nil
	}
	r, err := c.Kill(ctx, ids[0])
	if err != nil {
		return nil, err
	}
	return []api.KillResult{{ID: ids[0], Reply: &r}}, nil
}

// maxKillBatch is how many IDs one POST /jobs/kill takes (the master's
// maxKillJobs).
const maxKillBatch = 1000

// printKilled says what a kill did: killed the job, or nothing, as the
// job had already ended (the master's already_ended).
func printKilled(w io.Writer, r api.KillReply) error {
	j := r.Job
	var err error
	switch {
	case !r.AlreadyEnded:
		err = printJobState(w, j)
	case j.Ending:
		_, err = fmt.Fprintf(w, "job %d (%s) is already being killed: %s still stopping\n", j.ID, j.Name, plural.Count(j.Running, "task"))
	case j.State == "killed":
		_, err = fmt.Fprintf(w, "job %d (%s) was already killed\n", j.ID, j.Name)
	default:
		_, err = fmt.Fprintf(w, "job %d (%s) had already ended: %s\n", j.ID, j.Name, j.State)
	}
	return err
}
