package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/report"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

type simFlags struct {
	workloadFlags
	json       bool
	noTimeline bool
	series     bool
	jobs       bool
	policy     string
	set        string
	history    historyFlags
	estimates  bool
}

func newSimCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim [FILE | --from-history]",
		Short: "Replay a scenario or a workload trace through the scheduling core on a virtual clock",
		Long: `Replay a scenario file (.yaml) or a workload trace (.swf, .swf.gz, .csv,
.csv.gz) through the same scheduling core the live master uses.

By default a readable report is printed: for a scenario, each job's submit,
start, end, wait and preemptions; then the cluster's metrics (makespan,
utilisation, wait and slowdown percentiles, queue, fairness) and how the
input was read. A trace prints the metrics only unless --jobs is given.
--json prints the machine-readable result.

A bare trace runs on MaxProcs single-slot nodes (MaxNodes when the trace
gives no MaxProcs) under EASY backfilling; --nodes, --slots and --policy
change that. 'allot sim compare' replays one workload under several
policies side by side.

--from-history replays the live cluster's own jobs instead: the master
(admins only) exports the jobs submitted since --since (default 7 days)
with its pools, projects and nodes as a scenario; --save keeps the file.`,
		Example: `  allot sim examples/quickstart.yaml
  allot sim SDSC-SP2-1998-4.2-cln.swf.gz --policy conservative
  allot sim trace.swf --set policy=backfill,reservations=easy,placement=spread --json --series
  allot sim jobs.csv --nodes 64 --slots 8 --policy fcfs
  allot sim --from-history --since 7d --policy conservative`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, done, err := f.history.path(cmd, args)
			if err != nil {
				return err
			}
			defer done()
			if !cmd.Flags().Changed("jobs") {
				f.jobs = !isTrace(path, f.format)
			}
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), path, f)
		},
	}
	fl := cmd.Flags()
	f.workloadFlags.register(cmd)
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.BoolVar(&f.noTimeline, "no-timeline", false, "leave the allocation timeline out of the JSON result")
	fl.BoolVar(&f.estimates, "estimates", false, "record each job's estimated start at submission (the live master's forecast) in the JSON result")
	fl.BoolVar(&f.series, "series", false, "add the time series (utilisation, queue, shares) to the JSON result")
	// false here: RunE picks the default from the input, and cobra would
	// print "(default true)" against the text.
	fl.BoolVar(&f.jobs, "jobs", false, "report every job (default: for scenarios, not for traces)")
	fl.StringVar(&f.policy, "policy", "", "replay under this policy: fcfs, easy, conservative, fifo, backfill, fair_share, priority, or current (the workload's own)")
	fl.StringVar(&f.set, "set", "", "replay under an option set, e.g. policy=backfill,reservations=conservative,placement=spread")
	f.history.register(cmd)
	cmd.AddCommand(newCompareCmd())
	return cmd
}

func runSim(stdout, stderr io.Writer, path string, f simFlags) error {
	if f.policy != "" && f.set != "" {
		return usageErrorf("give --policy or --set, not both")
	}
	set, err := settingsFor(f.policy, f.set)
	if err != nil {
		return err
	}
	opt, err := f.options()
	if err != nil {
		return err
	}
	opt.OmitJobs = !f.jobs
	opt.Timeline = f.json && f.jobs && !f.noTimeline
	opt.Attempts = f.json && f.jobs
	opt.Series = f.json && f.series
	opt.Estimates = f.estimates
	w, err := f.load(path)
	if err != nil {
		return err
	}
	warnScenario(stderr, w)
	rp, err := w.Open(set)
	if err != nil {
		return openError(path, err)
	}
	defer rp.Close()
	bar := newProgress(stderr, f.progress && !f.quiet, rp, 1)
	if bar != nil {
		opt.Progress = func(int64, int) { bar.update(0, rp.Fraction()) }
	}
	res, err := sim.Run(rp.Input, opt)
	bar.finish()
	if err != nil {
		return inFile(path, err)
	}
	if f.json {
		return json.NewEncoder(stdout).Encode(res)
	}
	if err := sim.WriteReport(stdout, res); err != nil {
		return err
	}
	return report.WriteInput(stdout, res.Skipped, res.Notes)
}

// warnScenario tells on stderr, before the run, what a scenario file
// likely did not mean (scenario.Scenario.Warnings), so that the results
// on stdout stay the run's alone.
func warnScenario(stderr io.Writer, w *sim.Workload) {
	if w.Scenario == nil {
		return
	}
	for _, line := range w.Scenario.Warnings() {
		fmt.Fprintln(stderr, "warning: "+line)
	}
}

// settingsFor reads --policy or --set; neither keeps the workload's own.
func settingsFor(policy, set string) (sim.Settings, error) {
	switch {
	case policy != "":
		return policyPreset(policy)
	case set != "":
		return parseSet(set)
	}
	return sim.Settings{}, nil
}

// parseSet reads one --set: a value the CLI rejects, so a usage error.
func parseSet(text string) (sim.Settings, error) {
	s, err := sim.ParseSettings(text)
	if err != nil {
		for _, pair := range strings.Split(text, ",") {
			if k, v, _ := strings.Cut(pair, "="); strings.TrimSpace(k) == "policy" && noPresetWhy(strings.TrimSpace(v)) != "" {
				return s, usageErrorf("--set: %w%s", err, noPresetWhy(strings.TrimSpace(v)))
			}
		}
		return s, usageErrorf("--set: %w", err)
	}
	return s, nil
}

// policyPreset reads one --policy of sim or sim compare: current, the
// workload's own settings unchanged, or one of sim's presets. Its error
// lists current too, since sim.Preset knows nothing of it.
func policyPreset(name string) (sim.Settings, error) {
	if name == "current" {
		return sim.Settings{Name: name}, nil
	}
	s, err := sim.Preset(name)
	if err != nil {
		return sim.Settings{}, usageErrorf("--policy: expected current (the workload's own policies) or one of %s, got %q%s",
			strings.Join(sim.Presets, ", "), name, noPresetWhy(name))
	}
	return s, nil
}

// noPresetWhy says, for a pool policy that is no preset, why a bare
// policy name cannot ask for it and what replays it; "" for others.
func noPresetWhy(name string) string {
	if name != string(sched.PolicyQuota) && name != string(sched.PolicyMultifactor) {
		return ""
	}
	return fmt.Sprintf(": a %s pool needs settings of its own that a policy name cannot give (%s); "+
		"a scenario's %s pools, and those --from-history exports, replay as they are with --policy current", name, poolNeeds[name], name)
}

// poolNeeds says what the pool policies that are no preset need, which a
// bare --policy has no way to say.
var poolNeeds = map[string]string{
	string(sched.PolicyQuota):       "the projects' quotas",
	string(sched.PolicyMultifactor): "the factors' weights and the accounts' shares",
}

// openError names the flag for an option set that does not fit a pool
// of the workload (the file is not at fault, trial 2026-11-29h H3), and
// path, unless "", for anything else.
func openError(path string, err error) error {
	var se *sim.SettingsError
	switch {
	case !errors.As(err, &se) && path == "":
		return err
	case se == nil:
		return inFile(path, err)
	case se.Key == "":
		return fmt.Errorf("--set: %w", se.Err)
	}
	return fmt.Errorf("--set %s=%s: %w; drop %s from --set, which applies to every pool", se.Key, se.Value, se.Err, se.Key)
}

// inFile names path in err, unless err names it already (a trace's
// reader says FILE:LINE: column ...): the file once, at its line.
func inFile(path string, err error) error {
	if strings.Contains(err.Error(), path+":") {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
