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
	var out csvFlag
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
the table; -o csv gives the wide columns with raw values, for scripts
(sprio --parsable). The factors are the last
scheduling pass's, as allot explain shows one job's. Where you have no
role, only your own jobs are listed, as allot jobs lists them.

--pool names a multifactor pool: a pool of another policy is an error
that names its policy.`,
		Example: "  allot priorities\n  allot sprio --pool research -o wide\n  allot priorities --project vision -o json\n  allot priorities -o csv > prio.csv",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The accounting commands' writer gives -o csv (trial
			// 2026-11-29j J11); the weights follow a wide table there.
			return runAccounting(cmd, &out, func(ctx context.Context, c *client.Client, notes io.Writer) (any, error) {
				p, err := c.Priorities(ctx, f)
				if err == nil && len(p.Jobs) == 0 && out.format != outputJSON && out.format != outputYAML {
					fmt.Fprintln(notes, "note: no job waits in a multifactor pool")
				}
				return p, err
			}, priorityRows)
		},
	}
	out.register(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.Pool, "pool", "p", "", "only jobs of this multifactor pool (sprio -p)")
	fl.StringVarP(&f.Project, "project", "A", "", "only jobs of this project (sprio -A)")
	fl.StringVarP(&f.User, "user", "u", "", "only jobs of this user (sprio -u)")
	for flag, fn := range map[string]cobra.CompletionFunc{"pool": completePools, "project": completeProjects, "user": completeUsers} {
		_ = cmd.RegisterFlagCompletionFunc(flag, fn)
	}
	return cmd
}

// priorityRows are sprio's columns: the priority and each factor's
// weighted part; wide adds the factors (0..1), whose pools' weights
// printAccounting prints below the table (printWeights). The factors
// are numbers, as sprio -n prints them: as percentages, beside PRIORITY,
// FAIRSHARE% 50% read as fair share's part of the priority (trial
// 2026-11-29i I11). csv, for programs, has every column at full
// precision and empty cells for none, as allot usage -o csv.
func priorityRows(v any, f rowsFormat) ([]string, [][]string) {
	p := v.(api.Priorities)
	header := []string{"JOB", "USER", "PROJECT", "POOL", "PRIORITY", "AGE", "FAIRSHARE", "JOBSIZE", "QOS", "POOLFACTOR", "NICE"}
	if f.wide {
		header = append(header, "NAME", "NORM AGE", "NORM FAIRSHARE", "NORM JOBSIZE", "NORM QOS", "NORM POOLFACTOR")
	}
	num, factor, text := prioNum, factorNum, orDash
	if f.csv {
		raw := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
		num, factor, text = raw, raw, func(s string) string { return s }
	}
	var body [][]string
	for _, j := range p.Jobs {
		wt := j.Weighted
		row := []string{strconv.FormatInt(j.ID, 10), text(j.User), j.Project, j.Pool, num(j.Priority),
			num(wt.Age), num(wt.FairShare), num(wt.JobSize), num(wt.QOS), num(wt.Pool), strconv.Itoa(wt.Nice)}
		if f.wide {
			fc := j.Factors
			row = append(row, text(j.Name), factor(fc.Age), factor(fc.FairShare), factor(fc.JobSize), factor(fc.QOS), factor(fc.Pool))
		}
		body = append(body, row)
	}
	return header, body
}

// printWeights prints, below allot priorities' wide table, each pool's
// weights.
func printWeights(w io.Writer, p api.Priorities) error {
	for _, pw := range p.Pools {
		if _, err := fmt.Fprintf(w, "weights of %s: age %s, fair share %s, job size %s, qos %s, pool %s\n", pw.Pool,
			prioNum(pw.Age), prioNum(pw.FairShare), prioNum(pw.JobSize), prioNum(pw.QOS), prioNum(pw.PoolW)); err != nil {
			return err
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
