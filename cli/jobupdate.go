package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/yamlfield"
)

// jobUpdateFlags are allot job update's changes, as typed; "" for a flag
// not given.
type jobUpdateFlags struct {
	priority, weight, timeLimit, qos, nice string
}

// newJobUpdateCmd is Slurm's scontrol update job: one PATCH of what its
// flags name. set-priority and set-weight stay, as the short forms of
// its --priority and --weight.
func newJobUpdateCmd() *cobra.Command {
	var f jobUpdateFlags
	cmd := jobCommand("update ID", "Change a job's priority, weight, time limit, QOS or nice",
		"  allot job update 12 --time-limit 2h\n  allot job update 12 --qos normal --nice 10\n  allot job update 12 --time-limit 1-00:00:00 --priority HIGH", 1,
		func(cmd *cobra.Command, c *client.Client, id int64, _ []string) (api.Job, error) {
			u, err := f.update()
			if err != nil {
				return api.Job{}, err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			var before api.Job
			berr := errNoPriority
			if u.Priority != nil || u.PriorityClass != nil {
				before, berr = c.Job(ctx, id)
			}
			j, err := c.Update(ctx, id, u)
			if err == nil && berr == nil {
				preemptibleNote(cmd.ErrOrStderr(), before, j)
			}
			if err == nil && (u.Priority != nil || u.PriorityClass != nil || u.Weight != nil) {
				multifactorNote(ctx, cmd, c, j, "priority (1-99) or fair-share weight", "")
			}
			return j, err
		}, f.print)
	cmd.Long = `Change what the flags name of a job that has not ended, as Slurm's
scontrol update job does, in one change that the master stores and logs in
the job's events, and then schedules by.

A job's owner may lower its time limit, also while it runs: a task that has
run past the new limit is killed at once, as at its limit, and the answer
says so. --time-limit takes a unit (90m, 2h, 90s) or Slurm's form
(1:30:00, 1-00:00:00); a bare number is refused, since Slurm reads it as
minutes and job files as seconds. Raising a time
limit or removing it (--time-limit 0) needs the admin role, or the lead role
in the job's project. --qos names a QOS level the job's project may use; in
a multifactor pool it moves the job by the QOS factor. --nice (0 to
1000000000) lowers the job's multifactor priority by that much: its owner
may raise it; lowering it needs the admin or lead role, as a negative nice
does in Slurm.`
	fl := cmd.Flags()
	fl.StringVar(&f.priority, "priority", "", "priority: 1..99 (lower is more important) or HIGH, NORMAL, LOW (as set-priority)")
	fl.StringVar(&f.weight, "weight", "", "fair-share weight, a number > 0 (as set-weight)")
	fl.StringVar(&f.timeLimit, "time-limit", "", `time limit per task, with its unit: 90m, 2h, 1d12h, 90s or 1-00:00:00; 0 removes it`)
	fl.StringVar(&f.qos, "qos", "", "QOS level, one the job's project may use")
	fl.StringVar(&f.nice, "nice", "", "nice, 0..1000000000: lowers the job's multifactor priority by that much")
	return cmd
}

// errNoPriority stands for the job not read before an update that does
// not change its priority: no preemptibleNote is due.
var errNoPriority = errors.New("no priority change")

// update reads the flags into the PATCH; a flag not given is left out.
func (f *jobUpdateFlags) update() (api.JobUpdate, error) {
	var u api.JobUpdate
	if f.priority == "" && f.weight == "" && f.timeLimit == "" && f.qos == "" && f.nice == "" {
		return u, usageErrorf("allot job update: expected a change: --priority, --weight, --time-limit, --qos or --nice")
	}
	if f.priority != "" {
		num, class, err := parsePriority(f.priority)
		if err != nil {
			return u, err
		}
		if class != "" {
			u.PriorityClass = &class
		} else {
			u.Priority = &num
		}
	}
	if f.weight != "" {
		w, err := parseWeight(f.weight)
		if err != nil {
			return u, err
		}
		u.Weight = &w
	}
	if f.timeLimit != "" {
		if _, err := timeLimitFlag("--time-limit", f.timeLimit); err != nil {
			return u, err
		}
		text, err := json.Marshal(f.timeLimit)
		if err != nil {
			return u, err
		}
		u.TimeLimit = text // as typed: the master reads the same forms
	}
	if f.qos != "" {
		u.QOS = &f.qos
	}
	if f.nice != "" {
		n, err := strconv.Atoi(strings.TrimSpace(f.nice))
		if err != nil || n < 0 || n > jobfile.MaxNice {
			return u, usageErrorf("--nice: expected a whole number from 0 to %d, got %q", jobfile.MaxNice, f.nice)
		}
		u.Nice = &n
	}
	return u, nil
}

// print says what the job has now of what the flags changed.
func (f *jobUpdateFlags) print(w io.Writer, j api.Job) error {
	var parts []string
	if f.priority != "" {
		parts = append(parts, "priority "+priorityText(j))
	}
	if f.weight != "" {
		parts = append(parts, "weight "+strconv.FormatFloat(j.Weight, 'g', -1, 64))
	}
	if f.timeLimit != "" {
		limit := "none"
		if j.TimeLimitS > 0 {
			limit = exactDuration(j.TimeLimitS)
		}
		parts = append(parts, "time limit "+limit)
	}
	if f.qos != "" {
		parts = append(parts, "qos "+j.QOS)
	}
	if f.nice != "" {
		parts = append(parts, "nice "+strconv.Itoa(j.Nice))
	}
	if _, err := fmt.Fprintf(w, "job %d (%s): %s\n", j.ID, j.Name, strings.Join(parts, ", ")); err != nil {
		return err
	}
	if f.timeLimit != "" && (j.Ending || j.State == "killed") {
		_, err := fmt.Fprintf(w, "job %d has run past its new time limit: its tasks are stopped now, as at their limit\n", j.ID)
		return err
	}
	return nil
}

// timeLimitFlag reads a time limit flag's text (flag names it in the
// error) as seconds: a unit (90m, 2h, 90s), Slurm's form (1-00:00:00,
// 1:30:00), or 0 for none. A bare number is refused: scontrol and sbatch
// read it as minutes, a job file as seconds, and a limit lowered by a
// misreading kills a running job at once.
func timeLimitFlag(flag, text string) (int64, error) {
	if t := strings.TrimSpace(text); t != "0" && strings.Trim(t, "0123456789") == "" {
		return 0, usageErrorf("%s %s: a bare number is ambiguous (Slurm reads minutes, job files seconds); give its unit: %sm, %ss, or Slurm's form such as 1:30:00", flag, t, t, t)
	}
	secs, err := yamlfield.DurationText(text)
	if err != nil {
		return 0, usageErrorf("%s: %v", flag, err)
	}
	return secs, nil
}
