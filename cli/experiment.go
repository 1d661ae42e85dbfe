package cli

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/searcher"
)

// searcherStopped leads the reason of a trial that its searcher stopped
// (searcher.Search.Reason), whose attempt allot job show ends stopped.
const searcherStopped = "stopped early by the searcher"

func newExperimentCmd() *cobra.Command {
	show := newExperimentShowCmd()
	cmd := &cobra.Command{
		Use:   "experiment [ID]",
		Short: "Show an experiment's trials and the metrics they reported",
		Long: `Show an experiment's trials and the metrics they reported.
allot experiment ID is allot experiment show ID, with the same -o.`,
		Example:                    "  allot experiment 12\n  allot experiment 12 -o wide",
		ValidArgsFunction:          completeJobID,
		SuggestionsMinimumDistance: 2,
	}
	showsID(cmd, show)
	return cmd
}

// showsID makes group, a noun's command, run show for an ID (allot job 12
// is allot job show 12, as kubectl users type it): any other word is an
// unknown command, with suggestions, as in the other groups, and no
// argument prints the group's help. show's -o is shared: parsed for
// allot NOUN ID, it is the one show reads.
func showsID(group, show *cobra.Command) {
	group.Args = cobra.MaximumNArgs(1)
	group.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		if _, err := strconv.ParseInt(strings.TrimSpace(args[0]), 10, 64); err != nil {
			return unknownCommand(c, args[0])
		}
		return show.RunE(c, args)
	}
	group.Flags().AddFlagSet(show.Flags())
	group.AddCommand(show)
}

func newExperimentShowCmd() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show an experiment's trials with their latest and best metric and the searcher's decisions",
		Long: "Show an experiment's trials with their latest and best value of the searcher's metric (or, without\n" +
			"an adaptive searcher, of the first metric reported) and, for asha and adaptive_asha, each trial's\n" +
			"bracket, the rungs it reached and the searcher's decision (with a note where the rule alone does\n" +
			"not say why: \"promoted at rungs 0-2 as the first to arrive\"), and under the table each rung's\n" +
			"trials joined, promoted, stopped and done, as allot sim prints them. -o json and -o yaml add every\n" +
			"report.",
		Example:           "  allot experiment show 12\n  allot experiment show 12 -o json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeJobID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			id, err := parseID("experiment ID", args[0])
			if err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			// The metrics endpoint answers for any job (a command job may
			// report metrics too), so only the job's kind tells that the ID
			// is not an experiment's; a table of one "trial" under searcher
			// "none" would hide the mistake.
			job, err := c.Job(ctx, id)
			if err != nil {
				return err
			}
			if job.Kind != "experiment" {
				// A job stored without a kind is a command (what-if reads it so).
				return fmt.Errorf("job %d is a %s job, not an experiment: allot job show %d shows it", id, cmp.Or(job.Kind, "command"), id)
			}
			m, err := c.JobMetrics(ctx, id)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if done, err := out.structured(w, m); done {
				return err
			}
			return printExperiment(w, m, out.wide())
		},
	}
	out.register(cmd)
	return cmd
}

// printExperiment prints one row per trial.
func printExperiment(w io.Writer, m api.JobMetrics, wide bool) error {
	// A searcher without a metric (grid, random) shows the first name
	// the trials report; before any report there is none to name.
	metric := m.Metric + " (smaller is better)"
	if !m.SmallerIsBetter {
		metric = m.Metric + " (larger is better)"
	}
	if m.Metric == "" {
		metric = "none reported yet"
	}
	searcher := m.Searcher
	if searcher == "" {
		searcher = "none"
	}
	fmt.Fprintf(w, "Experiment %d  searcher %s  metric %s  reports %d%s\n", m.JobID, searcher, metric, len(m.Points), unjudged(m))
	if b := bestTrial(m); b != nil {
		fmt.Fprintf(w, "Best: trial %d, %s %s at step %d\n", b.Task, m.Metric, optFloat(b.Best), *b.BestStep)
	}
	fmt.Fprintln(w)
	header := []string{"TRIAL", "STATE", "STEP", "LATEST", "BEST", "BEST STEP"}
	adaptive := len(m.Trials) > 0 && m.Trials[0].Decision != ""
	if adaptive {
		header = append(header, "BRACKET", "RUNGS", "DECISION")
	}
	if wide {
		header = append(header, "HYPERPARAMETERS")
	}
	t := newTable(w, header...)
	for _, tr := range m.Trials {
		row := []string{strconv.Itoa(tr.Task), tr.State, optInt(tr.LatestStep), optFloat(tr.Latest), optFloat(tr.Best), optInt(tr.BestStep)}
		if adaptive {
			d := tr.Decision
			if tr.DecisionNote != "" {
				d += ": " + tr.DecisionNote
			}
			row = append(row, optInt(intPtr64(tr.Bracket)), optInt(intPtr64(tr.Rung)), d)
		}
		if wide {
			row = append(row, string(tr.Hyperparameters))
		}
		t.row(row...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if adaptive && len(m.Rungs) > 0 {
		printRungs(w, m)
	}
	return nil
}

// unjudged is what the header adds when an adaptive searcher's metric
// is in none of the reports: the names the trials report instead, so
// that a search on loss whose trials write val_loss, which judged and
// stopped nothing, does not read as one that ran (trial 2026-11-29i I16).
func unjudged(m api.JobMetrics) string {
	if len(m.Rungs) == 0 || len(m.ReportedMetrics) == 0 || m.MetricReports > 0 { // none from an older master
		return ""
	}
	return fmt.Sprintf(", none of metric %s; trials report %s, so the searcher judged no trial",
		m.Metric, strings.Join(m.ReportedMetrics, ", "))
}

// printRungs prints the per-rung summary, the lines allot sim prints
// for an experiment (searcher.WriteRungs), from the trials' rung joins.
func printRungs(w io.Writer, m api.JobMetrics) {
	trials := make([]searcher.TrialRungs, 0, len(m.Trials))
	for _, tr := range m.Trials {
		if tr.Bracket == nil {
			continue
		}
		t := searcher.TrialRungs{Trial: tr.Task, Bracket: *tr.Bracket}
		for _, j := range tr.RungJoins {
			t.Decisions = append(t.Decisions, j.Decision)
		}
		trials = append(trials, t)
	}
	fmt.Fprintln(w, "\nRungs:")
	searcher.WriteRungs(w, "  ", m.Rungs, trials)
}

// bestTrial is the trial with the best value of the metric, by its
// order (SmallerIsBetter, the searcher's), the first of equals; nil
// before any report.
func bestTrial(m api.JobMetrics) *api.TrialMetrics {
	var best *api.TrialMetrics
	for i := range m.Trials {
		tr := &m.Trials[i]
		if tr.Best == nil || tr.BestStep == nil {
			continue
		}
		if best == nil || (m.SmallerIsBetter && *tr.Best < *best.Best) || (!m.SmallerIsBetter && *tr.Best > *best.Best) {
			best = tr
		}
	}
	return best
}

func optInt(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v, 10)
}

func optFloat(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'g', 6, 64)
}

func intPtr64(v *int) *int64 {
	if v == nil {
		return nil
	}
	x := int64(*v)
	return &x
}
