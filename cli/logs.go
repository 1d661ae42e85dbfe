package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

type logsFlags struct {
	task       int
	follow     bool
	timestamps bool
}

func newJobLogsCmd() *cobra.Command {
	var f logsFlags
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a job's output; -f follows it until the job ends",
		Long: `Print the output of a job's tasks, in order. Lines a task wrote to stderr
go to stderr. With several tasks and no --task, each line starts with its
task's index, as [3]. The lines of a task's attempt after a restart follow
a line on stdout that names it, as --- task 0 attempt 2 (restart 1) ---;
those of the first attempt of a task that has restarted follow
--- task 0 attempt 1 ---.
-f keeps waiting for new lines until the job has ended and every line is
printed. --timestamps begins each line with the time its node read it
(RFC 3339 in UTC with the fraction of a second, as kubectl logs
--timestamps prints it),
before its task's index.`,
		Example: `  allot job logs 12
  allot job logs 12 --task 3 -f
  allot job logs 12 --timestamps`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeJobID,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogs(cmd, args[0], f, cmd.Flags().Changed("task"))
		},
	}
	cmd.Flags().IntVar(&f.task, "task", 0, "only this task's output (tasks count from 0)")
	cmd.Flags().BoolVarP(&f.follow, "follow", "f", false, "wait for new output until the job ends")
	cmd.Flags().BoolVar(&f.timestamps, "timestamps", false, "begin each line with the time its node read it (RFC 3339, UTC)")
	return cmd
}

func runLogs(cmd *cobra.Command, arg string, f logsFlags, oneTask bool) error {
	id, err := parseJobID(arg)
	if err != nil {
		return err
	}
	if oneTask && f.task < 0 {
		return usageErrorf("--task: expected a task index >= 0, got %d", f.task)
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
	if oneTask && f.task >= job.Tasks {
		return fmt.Errorf("--task: job %d has %s, numbered from 0; got %d", id, plural.Count(job.Tasks, "task"), f.task)
	}
	tasks := []int{f.task}
	if !oneTask {
		tasks = make([]int, max(job.Tasks, 1))
		for i := range tasks {
			tasks[i] = i
		}
	}
	if f.follow && len(tasks) > maxFollowTasks {
		return fmt.Errorf("job %d has %d tasks; -f follows at most %d at once: choose one with --task", id, len(tasks), maxFollowTasks)
	}
	w := &logWriter{out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr(), prefix: !oneTask && job.Tasks > 1, timestamps: f.timestamps,
		restarted: restartedTasks(job)}
	if !f.follow {
		// One task after the other, so each task's lines stay together.
		for _, t := range tasks {
			if err := followTask(cmd, c, id, t, false, w); err != nil {
				return err
			}
		}
		if w.lines == 0 && job.State == "queued" && job.Running == 0 {
			// An empty answer alone reads as a job that printed nothing.
			fmt.Fprintf(cmd.ErrOrStderr(), "job %d (%s) is queued and has printed nothing yet; allot explain %d says why it waits\n",
				id, job.Name, id)
		}
		return nil
	}
	// Following lasts until the job ends, so only each request is bounded
	// (by Follow), not the whole; every task is followed at once.
	errs := make(chan error, len(tasks))
	for _, t := range tasks {
		go func() { errs <- followTask(cmd, c, id, t, true, w) }()
	}
	var first error
	for range tasks {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// maxFollowTasks bounds the long polls one `logs -f` keeps open.
const maxFollowTasks = 64

func followTask(cmd *cobra.Command, c *client.Client, id int64, task int, follow bool, w *logWriter) error {
	lq := client.LogQuery{Task: &task}
	_, err := c.Follow(cmd.Context(), id, lq, follow, w.write)
	return err
}

// logWriter prints lines from several tasks' followers one whole line at
// a time, stderr lines to stderr.
type logWriter struct {
	mu          sync.Mutex
	out, errOut io.Writer
	prefix      bool
	timestamps  bool // each line after the time its node read it
	lines       int  // written so far
	// attempts is the attempt of each task's last line printed. A task
	// that restarted prints its start-up lines again, so a line of
	// another attempt, or a first line of a later one, is preceded on
	// stdout by a line that names its attempt.
	attempts map[int]int
	// restarted are the tasks that had more than one attempt when the
	// command began: their first attempt's lines get a header too, so
	// that every attempt of such a task has one (trial q G2).
	restarted map[int]bool
}

// restartedTasks is the tasks of job with more than one attempt.
func restartedTasks(job api.Job) map[int]bool {
	out := map[int]bool{}
	for _, t := range job.TaskList {
		if len(t.Attempts) > 1 || t.Restarts > 0 {
			out[t.Index] = true
		}
	}
	return out
}

func (w *logWriter) write(l api.LogLine) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines++
	if err := w.markAttempt(l); err != nil {
		return err
	}
	dst := w.out
	if l.Stream == "stderr" {
		dst = w.errOut
	}
	return writeLogLine(dst, l, w.prefix, w.timestamps)
}

// markAttempt prints "--- task 0 attempt 2 (restart 1) ---" before l when
// it is the first line of an attempt after the first, and "--- task 0
// attempt 1 ---" before the first line of a task that had restarted
// when the command began; attempts are numbered from 1 and each one
// after the first is a restart.
func (w *logWriter) markAttempt(l api.LogLine) error {
	if w.attempts == nil {
		w.attempts = map[int]int{}
	}
	prev, seen := w.attempts[l.Task]
	w.attempts[l.Task] = l.Attempt
	switch {
	case l.Attempt == prev:
		return nil
	case !seen && l.Attempt <= 1:
		if !w.restarted[l.Task] {
			return nil // one attempt so far: no header to tell it apart
		}
		_, err := fmt.Fprintf(w.out, "--- task %d attempt %d ---\n", l.Task, max(l.Attempt, 1))
		return err
	}
	_, err := fmt.Fprintf(w.out, "--- task %d attempt %d (restart %d) ---\n", l.Task, l.Attempt, l.Attempt-1)
	return err
}

// writeLogLine writes l, after its task's number where prefix says so
// (a job of several tasks) and, for a task across several nodes, after
// the rank and node of the part that printed it (as srun -l labels each
// line with its rank): "[0] text", "[rank 1 gpu-b] text", "[0 rank 1
// gpu-b] text"; after the time its node read it where timestamps says
// so, "2026-11-29T18:31:52.123456789Z [0] text".
func writeLogLine(w io.Writer, l api.LogLine, prefix, timestamps bool) error {
	if timestamps {
		if _, err := io.WriteString(w, l.Time.UTC().Format(time.RFC3339Nano)+" "); err != nil {
			return err
		}
	}
	var label []string
	if prefix {
		label = append(label, strconv.Itoa(l.Task))
	}
	if l.Rank != nil {
		label = append(label, "rank "+strconv.Itoa(*l.Rank), l.Node)
	}
	var err error
	if len(label) > 0 {
		_, err = fmt.Fprintf(w, "[%s] %s\n", strings.Join(label, " "), l.Text)
	} else {
		_, err = fmt.Fprintln(w, l.Text)
	}
	return err
}
