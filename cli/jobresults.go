package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

// jobBatch is a command on a list of job IDs that the master does job by
// job (hold, release, requeue): send sends them, print says what was
// done to one, and verb ("held") ends the error of those not done.
type jobBatch[R any] struct {
	send  func(cmd *cobra.Command, c *client.Client, ids []int64) ([]api.JobResult[R], error)
	print func(w io.Writer, r R) error
	verb  string
}

// run does the jobs of args, going on past the ones the master refuses
// (each reported on stderr), and fails at the end if any was refused.
// One ID's structured output is its reply; several IDs' a list.
func (b jobBatch[R]) run(cmd *cobra.Command, out *outputFlag, args []string) error {
	if err := out.check(); err != nil {
		return err
	}
	ids, err := parseJobIDs(args)
	if err != nil {
		return err
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	results, err := b.send(cmd, c, ids)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	structured := out.format == outputJSON || out.format == outputYAML
	replies := []R{}
	var failed int
	for _, x := range results {
		if x.Reply == nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "allot:", jobResultError(x.ID, x.Status, x.Error))
			failed++
			continue
		}
		replies = append(replies, *x.Reply)
		if !structured {
			if err := b.print(w, *x.Reply); err != nil {
				return err
			}
		}
	}
	if structured {
		var v any = replies
		if len(ids) == 1 && len(replies) == 1 {
			v = replies[0]
		}
		if _, err := out.structured(w, v); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%s of %d not %s", plural.Count(failed, "job"), len(ids), b.verb)
	}
	return nil
}

// jobResultError is the error of one job of a list request that the
// master refused: its message names the job when it can ("job 18: its
// exit actions ..."), so the ID leads it only when the message does not,
// as the single-ID form says the job once.
func jobResultError(id int64, status int, msg string) error {
	err := &client.Error{Status: status, Message: msg}
	name := "job " + strconv.FormatInt(id, 10)
	if rest, ok := strings.CutPrefix(msg, name); ok && (rest == "" || !strings.ContainsAny(rest[:1], "0123456789")) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
