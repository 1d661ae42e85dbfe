package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// outputCSV is the extra -o format of the accounting commands, for
// spreadsheets and scripts.
const outputCSV = "csv"

// csvFlag is -o for the accounting commands: the usual formats and csv.
type csvFlag struct{ outputFlag }

func (o *csvFlag) register(cmd *cobra.Command) {
	formats := append(slices.Clone(outputFormats), outputCSV)
	cmd.Flags().StringVarP(&o.format, "output", "o", outputTable, "output format: table, wide, json, yaml or csv")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	registerNoHeaders(cmd)
}

func (o *csvFlag) check() error {
	if o.format == outputCSV {
		return nil
	}
	if err := o.outputFlag.check(); err != nil {
		return usageErrorf("--output: expected one of %s, %s, got %q", strings.Join(outputFormats, ", "), outputCSV, o.format)
	}
	return nil
}

// rowsFormat says which rows an accounting command builds: wide adds
// columns (csv always has them all); csv is for programs, which keep
// exact values where the table prints them for reading.
type rowsFormat struct{ wide, csv bool }

// runAccounting fetches v and prints it as asked: structured, csv rows,
// or a table.
func runAccounting(cmd *cobra.Command, out *csvFlag, fetch func(ctx context.Context, c *client.Client, notes io.Writer) (any, error),
	rows func(v any, f rowsFormat) ([]string, [][]string)) error {
	if err := out.check(); err != nil {
		return err
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	// The notes fetch writes go to stderr after the table, not before
	// nor in it: with 2>&1 they follow it (trial 2026-11-29a P4).
	var notes bytes.Buffer
	v, err := fetch(ctx, c, &notes)
	if err != nil {
		return err
	}
	err = printAccounting(tableOut(cmd, cmd.OutOrStdout()), out, v, rows)
	if _, werr := notes.WriteTo(cmd.ErrOrStderr()); err == nil {
		err = werr
	}
	return err
}

// printAccounting prints what runAccounting fetched: as JSON or YAML,
// CSV, or a table with what follows it.
func printAccounting(w io.Writer, out *csvFlag, v any, rows func(v any, f rowsFormat) ([]string, [][]string)) error {
	if done, err := out.structured(w, v); done {
		return err
	}
	header, body := rows(v, rowsFormat{wide: out.wide() || out.format == outputCSV, csv: out.format == outputCSV})
	if out.format == outputCSV {
		cw := csv.NewWriter(w)
		if !headerless(w) {
			cw.Write(header)
		}
		cw.WriteAll(body)
		return cw.Error()
	}
	t := newTable(w, header...)
	for _, r := range body {
		t.row(r...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if u, ok := v.(api.Usage); ok && len(u.Shares) > 0 {
		if err := printShares(w, u.Shares); err != nil {
			return err
		}
		return printShareNotes(w, u) // usagefair.go
	}
	if p, ok := v.(api.Priorities); ok && out.wide() {
		return printWeights(w, p) // priorities.go
	}
	if f, ok := v.(api.Fairness); ok && f.MeasuredSince != nil {
		_, err := fmt.Fprintf(w, "\nThe cluster began at %s, after the window's start (%s): the window is measured from then.\n",
			formatTime(f.MeasuredSince), formatTime(&f.Since))
		return err
	}
	return nil
}

// printShares prints sshare's view after the usage table.
func printShares(w io.Writer, shares []api.Share) error {
	fmt.Fprintln(w)
	t := newTable(w, "ACCOUNT", "RAW SHARES", "NORM SHARES", "EFFECTIVE USAGE", "FAIR SHARE")
	for _, s := range shares {
		// An account with no factor of its own (fair tree's projects and
		// idle leaves) shows "-", as sshare leaves the column empty.
		fs := "-"
		if s.FairShare != nil {
			fs = fmt.Sprintf("%.4f", *s.FairShare)
		}
		t.row(s.Account, strconv.FormatFloat(s.RawShares, 'g', -1, 64), fmt.Sprintf("%.4f", s.NormShares),
			fmt.Sprintf("%.4f", s.EffectiveUsage), fs)
	}
	return t.flush()
}

func newUsageCmd() *cobra.Command {
	var out csvFlag
	var win client.Window
	var by string
	var only client.UsageFilter
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show GPU-hours used per project, user or pool over a window, and fair-share standing",
		Long: `Show the GPU-hours used over a window (default: the last 7 days), grouped
by project, user, pool, or all three, with the jobs and attempts that used
them; the part of running attempts is counted up to now. When a pool uses
multifactor fair share, the accounts' standing follows, as Slurm's sshare
shows it: shares, normalised share of the cluster, effective (decayed)
usage and the fair-share factor. Users see the projects where they have a
role and their own usage; admins see everything. --user and --project
(sacct's -u and -A) keep only that user's or project's GPU-hours among
those; the fair-share standing is not narrowed.`,
		Example: "  allot usage\n  allot usage --since 30d --by user\n  allot usage --since 30d -u ana -A vision\n  allot usage --since 2026-11-01T00:00:00Z --until 2026-11-08T00:00:00Z -o csv",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkWindow(&win, "--until"); err != nil {
				return err
			}
			if !slices.Contains(api.UsageGroupings, by) {
				return usageErrorf("--by: expected one of %s, got %q", strings.Join(api.UsageGroupings, ", "), by)
			}
			return runAccounting(cmd, &out, func(ctx context.Context, c *client.Client, notes io.Writer) (any, error) {
				u, err := c.Usage(ctx, win, by, only)
				if err == nil {
					printReadNote(ctx, notes, c, only.Project, false, only.User)
					printHiddenUsage(notes, u)
				}
				return u, err
			}, usageRows)
		},
	}
	registerWindowFlags(cmd, &win, "7d")
	cmd.Flags().StringVar(&by, "by", "project", "group by project, user, pool or all")
	cmd.Flags().StringVarP(&only.User, "user", "u", "", "only the usage of this user (sacct -u)")
	cmd.Flags().StringVarP(&only.Project, "project", "A", "", "only the usage of this project (sacct -A)")
	_ = cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions(api.UsageGroupings, cobra.ShellCompDirectiveNoFileComp))
	out.register(cmd)
	return cmd
}

// usageRows is the usage table; the fair-share standing is printed after
// it (printShares), in the table formats only. Wide adds SHARE, each
// row's part of the window's GPU-hours, as sreport's percent does: the
// rows carry nothing more, and the part is what comparing groups needs.
// csv is for programs, as sreport -P gives raw values: an empty cell for
// a group left out (not "-"), GPU-hours at full precision (not rounded
// to 2 decimals) and SHARE as a fraction (0.8, not "80.0%"), with the
// window's bounds (SINCE, UNTIL) on each row and no TOTAL row, which a
// script summing a column would count twice: the columns and names of
// the dashboard's Download CSV (web/static/usage.js; trial 2026-11-29j
// J12).
func usageRows(v any, f rowsFormat) ([]string, [][]string) {
	u := v.(api.Usage)
	header := []string{"POOL", "PROJECT", "USER", "GPU-HOURS", "JOBS", "ATTEMPTS"}
	hours := func(h float64) string { return strconv.FormatFloat(h, 'f', 2, 64) }
	share := func(h float64) string {
		if u.TotalGPUHours <= 0 {
			return "-"
		}
		return strconv.FormatFloat(100*h/u.TotalGPUHours, 'f', 1, 64) + "%"
	}
	group := orDash
	if f.csv {
		hours = func(h float64) string { return strconv.FormatFloat(h, 'f', -1, 64) }
		share = func(h float64) string {
			if u.TotalGPUHours <= 0 {
				return ""
			}
			return strconv.FormatFloat(h/u.TotalGPUHours, 'f', -1, 64)
		}
		group = func(s string) string { return s }
	}
	if f.wide {
		header = append(header, "SHARE")
	}
	if f.csv {
		header = append(header, "SINCE", "UNTIL")
	}
	var body [][]string
	for _, r := range u.Rows {
		row := []string{group(r.Pool), group(r.Project), group(r.User),
			hours(r.GPUHours), strconv.Itoa(r.Jobs), strconv.Itoa(r.Attempts)}
		if f.wide {
			row = append(row, share(r.GPUHours))
		}
		if f.csv {
			row = append(row, rfc3339UTC(&u.Since), rfc3339UTC(&u.Until))
		}
		body = append(body, row)
	}
	if f.csv {
		return header, body
	}
	total := []string{"TOTAL", "", "", hours(u.TotalGPUHours), "", ""}
	if f.wide {
		total = append(total, share(u.TotalGPUHours))
	}
	return header, append(body, total)
}

func newHistoryCmd() *cobra.Command {
	var out csvFlag
	var f client.HistoryFilter
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the jobs active over a window with their wait, run time, GPU-hours and exit (like sacct)",
		Long: `List every job active over a window (default: the last 24 hours): submitted
before its end and not ended before its start, with its state, wait,
elapsed time, attempts, GPU-hours and the last attempt's exit code, oldest
first. WAIT is all the time the job was queued: to its first start and,
once preempted and requeued, each wait again (to now while it waits);
ELAPSED the time its attempts ran, each to its exit (to now while one
runs), not the time since its first start, as sacct's figures read. A
job's elapsed time and GPU-hours are its whole run's, also where
it ran partly outside the window; allot usage counts only the window's
part. The records come from the master's store, so they survive
restarts; they are fetched a page at a time.`,
		Example: "  allot history\n  allot history --since 7d -u alice --state failed\n  allot history --since 30d -o csv > jobs.csv",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			held := false // a held job is stored queued: asked as such, kept here
			if f.State != "" {
				s, err := historyState(f.State)
				if err != nil {
					return err
				}
				f.State, held = storedState(s), s == api.JobStateHeld
			}
			if err := checkWindow(&f.Window, "--until"); err != nil {
				return err
			}
			return runAccounting(cmd, &out, func(ctx context.Context, c *client.Client, notes io.Writer) (any, error) {
				// A page at a time: a long window may hold many jobs.
				recs := []api.HistoryRecord{}
				err := c.EachHistoryPage(ctx, f, historyPageSize, func(page []api.HistoryRecord) error {
					for _, r := range page {
						if !held || r.State == api.JobStateHeld {
							recs = append(recs, r)
						}
					}
					return nil
				})
				if err == nil {
					printReadNote(ctx, notes, c, f.Project, false, f.User)
				}
				return recs, err
			}, historyRows)
		},
	}
	fl := cmd.Flags()
	registerWindowFlags(cmd, &f.Window, "24h")
	fl.StringVarP(&f.User, "user", "u", "", "only jobs of this user (sacct -u)")
	fl.StringVarP(&f.Project, "project", "A", "", "only jobs of this project (sacct -A)")
	fl.StringVarP(&f.Pool, "pool", "p", "", "only jobs of this pool (squeue -p)")
	// -t as allot jobs and job kill take it (squeue -t); sacct's own -s
	// stays, hidden: one flag has one shorthand.
	fl.StringVarP(&f.State, "state", "t", "", "only jobs in this state (squeue -t; sacct's -s too): "+strings.Join(historyStates, ", ")+" (queued lists the held too), or Slurm's PD, R, CD, F, CA")
	fl.StringVarP(&f.State, "sacct-state", "s", "", "the same as --state (sacct -s)")
	_ = fl.MarkHidden("sacct-state")
	out.register(cmd)
	cmd.AddCommand(newHistoryCheckCmd())
	return cmd
}

// historyPageSize is how many records allot history asks for at a time.
const historyPageSize = 500

// historyRows are allot history's rows. The table prints waits and
// elapsed times as the other commands print durations ("1h 30m"), local
// times and GPU-hours to 2 decimals; csv is for programs (cells).
func historyRows(v any, f rowsFormat) ([]string, [][]string) {
	header := []string{"ID", "NAME", "USER", "PROJECT", "POOL", "STATE", "SUBMITTED", "WAIT", "ELAPSED", "GPU-HOURS", "EXIT"}
	c := tableCells
	if f.csv {
		c = csvCells
		header[7], header[8] = "WAIT_S", "ELAPSED_S"
	}
	wide := f.wide
	if wide {
		header = append(header, "TASKS", "SLOTS", "ATTEMPTS", "ENDED", "REASON")
	}
	var body [][]string
	for _, h := range v.([]api.HistoryRecord) {
		exit := c.none
		if h.ExitCode != nil {
			exit = strconv.Itoa(*h.ExitCode)
		}
		row := []string{strconv.FormatInt(h.ID, 10), h.Name, c.text(h.User), h.Project, h.Pool, h.State,
			c.time(&h.SubmittedAt), c.dur(h.WaitS), c.dur(h.ElapsedS), c.hours(h.GPUHours), exit}
		if wide {
			row = append(row, strconv.Itoa(h.Tasks), strconv.Itoa(h.Slots), strconv.Itoa(h.Attempts),
				c.time(h.EndedAt), c.text(h.Reason))
		}
		body = append(body, row)
	}
	return header, body
}

// cells writes the values of an accounting table's cells: tableCells for
// people, csvCells for programs, as sacct --parsable2 and sreport -P give
// raw values: RFC 3339 times in UTC (not local ones without a zone),
// durations in whole seconds (in a column whose header ends in _S),
// GPU-hours unrounded (summing cells rounded to 0.00 gave wrong totals),
// fractions (0.5, not 50.0%) and an empty cell for none (not "-")
// (trial 2026-11-29i I2), as allot usage -o csv already did.
type cells struct {
	none     string
	text     func(string) string
	time     func(*time.Time) string
	dur      func(int64) string
	hours    func(float64) string
	fraction func(float64) string
}

var (
	tableCells = cells{none: "-", text: orDash, time: formatTime, dur: sched.HumanDuration,
		hours:    func(h float64) string { return strconv.FormatFloat(h, 'f', 2, 64) },
		fraction: func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }}
	csvCells = cells{none: "", text: func(s string) string { return s }, time: rfc3339UTC,
		dur:      func(s int64) string { return strconv.FormatInt(s, 10) },
		hours:    func(h float64) string { return strconv.FormatFloat(h, 'f', -1, 64) },
		fraction: func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }}
)

// rfc3339UTC writes t as RFC 3339 in UTC, or "" for none.
func rfc3339UTC(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func newFairnessCmd() *cobra.Command {
	var out csvFlag
	var win client.Window
	cmd := &cobra.Command{
		Use:   "fairness",
		Short: "Audit fairness: each project's entitlement against what it got and how long its jobs waited",
		Long: `For a window (default: the last 7 days), compare each project's entitlement,
its share of the cluster by the configuration's project shares (which
default to the quota, or 1 for a project without quota), with the share
of the cluster's GPU-hours it got, and show how many of its jobs waited
and how long. A project that got less than 90% of its entitlement while
it had work waiting is flagged as DEPRIVED, with the reason in words,
unless the waits were negligible: below 1% of its entitled GPU-hours,
counting each wait times the GPUs of one of the job's tasks, or none of
10 minutes. A job still waiting in a pool with no node up waits for a
node, which no share could have served: its wait is shown but not
counted, and the project is flagged NO NODE instead (the note, -o wide,
names the pools). A parent's figures include its sub-projects'.

On a cluster younger than the window, the window is measured from the
cluster's start (its earliest record: a node's first registration, the
first job or usage record), and a line below the table says so.`,
		Example: "  allot fairness\n  allot fairness --since 30d -o csv",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkWindow(&win, "--until"); err != nil {
				return err
			}
			return runAccounting(cmd, &out, func(ctx context.Context, c *client.Client, _ io.Writer) (any, error) {
				return c.Fairness(ctx, win)
			}, fairnessRows)
		},
	}
	registerWindowFlags(cmd, &win, "7d")
	out.register(cmd)
	return cmd
}

// fairnessRows are allot fairness's rows: for people, or with csv for
// programs (cells).
func fairnessRows(v any, rf rowsFormat) ([]string, [][]string) {
	wide := rf.wide
	f := v.(api.Fairness)
	header := []string{"PROJECT", "PARENT", "ENTITLED", "GOT", "GPU-HOURS", "JOBS", "WAITED", "MEAN WAIT", "MAX WAIT", "FLAG"}
	c := tableCells
	// Mean and max waits are statistics, shown as allot sim and allot
	// compare show theirs ("4.3m").
	c.dur = func(s int64) string { return sim.Duration(float64(s)) }
	if rf.csv {
		c = csvCells
		header[7], header[8] = "MEAN_WAIT_S", "MAX_WAIT_S"
	}
	if wide {
		header = append(header, "NOTE")
	}
	var body [][]string
	for _, r := range f.Projects {
		flag := c.none
		switch {
		case r.Deprived:
			flag = "DEPRIVED"
		case r.NoNode > 0:
			// Its jobs wait in a pool with no node up, which no
			// share could have served: not deprivation (the note
			// names the pools).
			flag = "NO NODE"
		}
		row := []string{r.Project, c.text(r.Parent), c.fraction(r.Entitled), c.fraction(r.Got), c.hours(r.GPUHours),
			strconv.Itoa(r.Jobs), strconv.Itoa(r.Waited), c.dur(r.MeanWaitS), c.dur(r.MaxWaitS), flag}
		if wide {
			row = append(row, c.text(r.Note))
		}
		body = append(body, row)
	}
	return header, body
}

// registerWindowFlags adds a window's -S/--since and -E/--until, as
// sacct's -S and -E, with the default span of the command (since its
// start, counted back from now).
func registerWindowFlags(cmd *cobra.Command, win *client.Window, span string) {
	cmd.Flags().StringVarP(&win.Since, "since", "S", "", "start of the window (sacct -S): "+whenHelp+"; default "+span)
	cmd.Flags().StringVarP(&win.Until, "until", "E", "", "end of the window, as --since (sacct -E), not in the future; default now")
}

// printHiddenUsage notes the usage in the window of projects where the
// caller has no role, which the rows and the total leave out: "note: 1
// other project used 1.32 GPU-hours in the window, not shown (you have no
// role there)".
func printHiddenUsage(w io.Writer, u api.Usage) {
	if u.HiddenProjects == 0 {
		return
	}
	fmt.Fprintf(w, "note: %s used %s GPU-hours in the window, not shown (you have no role there)\n",
		plural.Count(u.HiddenProjects, "other project"), strconv.FormatFloat(u.HiddenGPUHours, 'f', 2, 64))
}
