package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

type logsFlags struct {
	task   int
	follow bool
}

func newJobLogsCmd() *cobra.Command {
	var f logsFlags
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a job's output; -f follows it until the job ends",
		Long: `Print the output of a job's tasks, in order. Lines a task wrote to stderr
go to stderr. With several tasks and no --task, each line starts with its
task's index, as [3]. -f keeps waiting for new lines until the job has
ended and every line is printed.`,
		Example: `  allot job logs 12
  allot job logs 12 --task 3 -f`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogs(cmd, args[0], f, cmd.Flags().Changed("task"))
		},
	}
	cmd.Flags().IntVar(&f.task, "task", 0, "only this task's output (tasks count from 0)")
	cmd.Flags().BoolVarP(&f.follow, "follow", "f", false, "wait for new output until the job ends")
	return cmd
}

func runLogs(cmd *cobra.Command, arg string, f logsFlags, oneTask bool) error {
	id, err := parseJobID(arg)
	if err != nil {
		return err
	}
	if oneTask && f.task < 0 {
		return fmt.Errorf("--task: expected a task index >= 0, got %d", f.task)
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	// The job's task count says whether lines need their task's index, and
	// a missing job gets the master's answer rather than an empty log.
	ctx, cancel := requestContext(cmd)
	job, err := c.Job(ctx, id)
	cancel()
	if err != nil {
		return err
	}
	var lq client.LogQuery
	if oneTask {
		if f.task >= job.Tasks {
			return fmt.Errorf("--task: job %d has %d task(s), numbered from 0; got %d", id, job.Tasks, f.task)
		}
		lq.Task = &f.task
	}
	prefix := !oneTask && job.Tasks > 1
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	// Following lasts until the job ends, so only each request is bounded
	// (by Follow), not the whole.
	_, err = c.Follow(cmd.Context(), id, lq, f.follow, func(l api.LogLine) error {
		w := out
		if l.Stream == "stderr" {
			w = errOut
		}
		return writeLogLine(w, l, prefix)
	})
	return err
}

func writeLogLine(w io.Writer, l api.LogLine, prefix bool) error {
	var err error
	if prefix {
		_, err = fmt.Fprintf(w, "[%d] %s\n", l.Task, l.Text)
	} else {
		_, err = fmt.Fprintln(w, l.Text)
	}
	return err
}
