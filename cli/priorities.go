package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// newPrioritiesCmd is allot priorities (alias sprio): Slurm's sprio for
// the multifactor pools.
func newPrioritiesCmd() *cobra.Command {
	var out outputFlag
	var f client.PriorityFilter
	cmd := &cobra.Command{
		Use:     "priorities",
		Aliases: []string{"sprio"},
		Short:   "List the waiting jobs of the multifactor pools with each factor's part of their priority (sprio)",
		Long: `List every job waiting in a multifactor pool, in queue order, with its
multi-factor priority and each factor's weighted part, as Slurm's sprio
does: the factor (0..1) times the pool's weight; the priority is their
sum less the nice value. -o wide adds the factors before their weights
(0..1, as sprio -n and allot explain print them: NORM FAIRSHARE 0.500 is
the factor, not a share of the priority) and each pool's weights below
the table. The factors are the last
scheduling pass's, as allot explain shows one job's. Where you have no
role, only your own jobs are listed, as allot jobs lists them.

--pool names a multifactor pool: a pool of another policy is an error
that names its policy.`,
		Example: "  allot priorities\n  allot sprio --pool research -o wide\n  allot priorities --project vision -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOne(cmd, &out, func(ctx context.Context, c *client.Client) (any, error) {
				return c.Priorities(ctx, f)
			}, func(w io.Writer, v any) error {
				return printPriorities(w, cmd.ErrOrStderr(), v.(api.Priorities), out.wide())
			})
		},
	}
	out.register(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.Pool, "pool", "p", "", "only jobs of this multifactor pool (sprio -p)")
	fl.StringVarP(&f.Project, "project", "A", "", "only jobs of this project (sprio -A)")
	fl.StringVarP(&f.User, "user", "u", "", "only jobs of this user (sprio -u)")
	registerNoHeaders(cmd)
	for flag, fn := range map[string]cobra.CompletionFunc{"pool": completePools, "project": completeProjects, "user": completeUsers} {
		_ = cmd.RegisterFlagCompletionFunc(flag, fn)
	}
	return cmd
}

// printPriorities prints sprio's columns: the priority and each factor's
// weighted part; wide adds the factors (0..1) and the pools' weights. An
// empty list prints the header, and a note on errOut says why. The
// factors are numbers, as sprio -n prints them: as percentages, beside
// PRIORITY, FAIRSHARE% 50% read as fair share's part of the priority
// (trial 2026-11-29i I11).
func printPriorities(w, errOut io.Writer, p api.Priorities, wide bool) error {
	header := []string{"JOB", "USER", "PROJECT", "POOL", "PRIORITY", "AGE", "FAIRSHARE", "JOBSIZE", "QOS", "POOLFACTOR", "NICE"}
	if wide {
		header = append(header, "NAME", "NORM AGE", "NORM FAIRSHARE", "NORM JOBSIZE", "NORM QOS", "NORM POOLFACTOR")
	}
	t := newTable(w, header...)
	for _, j := range p.Jobs {
		wt := j.Weighted
		row := []string{strconv.FormatInt(j.ID, 10), orDash(j.User), j.Project, j.Pool, prioNum(j.Priority),
			prioNum(wt.Age), prioNum(wt.FairShare), prioNum(wt.JobSize), prioNum(wt.QOS), prioNum(wt.Pool), strconv.Itoa(wt.Nice)}
		if wide {
			fc := j.Factors
			row = append(row, orDash(j.Name), factorNum(fc.Age), factorNum(fc.FairShare), factorNum(fc.JobSize), factorNum(fc.QOS), factorNum(fc.Pool))
		}
		t.row(row...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if len(p.Jobs) == 0 {
		fmt.Fprintln(errOut, "note: no job waits in a multifactor pool")
	}
	if wide {
		for _, pw := range p.Pools {
			fmt.Fprintf(w, "weights of %s: age %s, fair share %s, job size %s, qos %s, pool %s\n", pw.Pool,
				prioNum(pw.Age), prioNum(pw.FairShare), prioNum(pw.JobSize), prioNum(pw.QOS), prioNum(pw.PoolW))
		}
	}
	return nil
}

// prioNum shows a priority or a weighted part with two decimals at most
// ("12.5", "100").
func prioNum(x float64) string { return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) }

// factorNum shows a factor (0..1) to three decimals, as allot explain
// does ("0.375").
func factorNum(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
