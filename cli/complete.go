package cli

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
)

// completeTimeout bounds the master's answer to a completion: a shell
// waits for it on every Tab.
const completeTimeout = 2 * time.Second

// noFiles ends a completion that offers no file names.
const noFiles = cobra.ShellCompDirectiveNoFileComp

// completeFrom offers what list gets from the master, quietly nothing when
// the master cannot be reached or refuses: completion must never print an
// error into the user's command line.
func completeFrom(list func(ctx context.Context, c *client.Client) ([]string, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, err := newClient(cmd)
		if err != nil {
			return nil, noFiles
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
		defer cancel()
		out, err := list(ctx, c)
		if err != nil {
			return nil, noFiles
		}
		return out, noFiles
	}
}

// completeJobs is how many of the newest jobs completion offers.
const completeJobs = 200

// completeJobID completes a job ID as the first argument (each argument
// of a command that takes several), with the job's name and state as the
// description: the jobs the command may act on (jobPicks), else the
// newest jobs.
func completeJobID(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	p, picked := jobPicks[strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")]
	if len(args) > 0 && !p.many {
		return nil, noFiles
	}
	return completeFrom(func(ctx context.Context, c *client.Client) ([]string, error) {
		var jobs []api.Job
		var err error
		if picked && p.states != "" {
			// The live jobs, in one answer: the master has few.
			jobs, err = c.Jobs(ctx, client.JobFilter{State: p.states})
		} else {
			// The newest jobs only: a long history would make completion slow.
			var page api.JobPage
			page, err = c.JobsPage(ctx, client.JobFilter{}, completeJobs, "")
			jobs = page.Jobs
		}
		if err != nil {
			return nil, err
		}
		out := make([]string, 0, len(jobs))
		for _, j := range jobs {
			id := strconv.FormatInt(j.ID, 10)
			if (p.keep == nil || p.keep(j)) && !slices.Contains(args, id) {
				out = append(out, cobra.CompletionWithDesc(id, j.Name+" ("+j.ShownState()+")"))
			}
		}
		return out, nil
	})(cmd, args, toComplete)
}

// jobPick is the jobs whose IDs completion offers to a command: those in
// states (the master's filter; "" for the newest jobs, any state) that
// keep keeps (nil: all); many for a command that takes several IDs.
type jobPick struct {
	states string
	keep   func(api.Job) bool
	many   bool
}

// jobPicks are the commands that act on some jobs only, by their path
// below allot: as kubectl completes only the resources that fit, a kill
// is offered no ended job, a release only held ones (trial 2026-11-29i
// I21: every command was offered the newest jobs, ended ones first). A
// job being killed (Ending) has nothing left to kill or change.
var jobPicks = map[string]jobPick{
	"job kill":         {states: "queued,running", keep: notEnding, many: true},
	"job hold":         {states: "queued", keep: func(j api.Job) bool { return j.Held == nil }, many: true},
	"job release":      {states: "queued", keep: func(j api.Job) bool { return j.Held != nil }, many: true},
	"job requeue":      {states: "running", keep: notEnding, many: true},
	"job update":       {states: "queued,running", keep: notEnding},
	"job set-priority": {states: "queued,running", keep: notEnding},
	"job set-weight":   {states: "queued,running", keep: notEnding},
	"experiment":       {keep: isExperiment},
	"experiment show":  {keep: isExperiment},
}

func notEnding(j api.Job) bool { return !j.Ending }

func isExperiment(j api.Job) bool { return j.Kind == string(jobfile.KindExperiment) }

// completeJobArg completes allot job's first argument, where cobra
// offers the group's subcommands: the job IDs besides them (allot job ID
// shows the job), unless what is typed so far cannot begin an ID, which
// spares the master a request on every Tab of a subcommand's name.
func completeJobArg(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.TrimLeft(toComplete, "0123456789") != "" {
		return nil, noFiles
	}
	return completeJobID(cmd, args, toComplete)
}

var (
	completePools = completeFrom(func(ctx context.Context, c *client.Client) ([]string, error) {
		return nameList(c.Pools(ctx))(func(p api.Pool) string { return p.Name })
	})
	completeProjects = completeFrom(func(ctx context.Context, c *client.Client) ([]string, error) {
		return nameList(c.Projects(ctx))(func(p api.Project) string { return p.Name })
	})
	completeNodes = completeFrom(func(ctx context.Context, c *client.Client) ([]string, error) {
		return nameList(c.Nodes(ctx))(func(n api.Node) string { return n.Name })
	})
	// completeUsers offers the users of the jobs the caller may read: the
	// list of users itself is for admins.
	completeUsers = completeFrom(func(ctx context.Context, c *client.Client) ([]string, error) {
		jobs, err := c.Jobs(ctx, client.JobFilter{})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		var out []string
		for _, j := range jobs {
			if j.User != "" && !seen[j.User] {
				seen[j.User] = true
				out = append(out, j.User)
			}
		}
		return out, nil
	})
)

// nameList maps a list answer to its names, passing its error on.
func nameList[T any](items []T, err error) func(name func(T) string) ([]string, error) {
	return func(name func(T) string) ([]string, error) {
		if err != nil {
			return nil, err
		}
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = name(it)
		}
		return out, nil
	}
}

// registerJobsCompletion completes allot jobs' filter flags.
func registerJobsCompletion(cmd *cobra.Command) {
	for flag, f := range map[string]cobra.CompletionFunc{
		"pool": completePools, "project": completeProjects, "node": completeNodes, "user": completeUsers,
		"state": cobra.FixedCompletions(listStates, noFiles),
	} {
		_ = cmd.RegisterFlagCompletionFunc(flag, f)
	}
}
