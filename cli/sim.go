package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

type simFlags struct {
	json       bool
	noTimeline bool
	until      string
	progress   bool
}

func newSimCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim SCENARIO.yaml",
		Short: "Replay a scenario through the scheduling core on a virtual clock",
		Long: `Replay a scenario file through the same scheduling core the live master uses.

By default a readable report is printed: each job's submit, start, end, wait
and preemptions, and the cluster's makespan, utilisation, average wait and
average job completion time. --json prints the machine-readable result.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&f.noTimeline, "no-timeline", false, "leave the allocation timeline out of the JSON result")
	cmd.Flags().StringVar(&f.until, "until", "", "stop the simulation at this time (seconds or a duration such as 10h)")
	cmd.Flags().BoolVar(&f.progress, "progress", true, "show a progress bar when stderr is a terminal")
	return cmd
}

func runSim(stdout, stderr io.Writer, path string, f simFlags) error {
	opt := sim.Options{Until: -1, Timeline: f.json && !f.noTimeline}
	if f.until != "" {
		u, err := parseSeconds("until", f.until)
		if err != nil {
			return err
		}
		opt.Until = u
	}
	sc, err := scenario.Load(path)
	if err != nil {
		return err
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		return err
	}
	if bar := progressBar(stderr, f.progress, in); bar != nil {
		opt.Progress = func(now int64, submitted int) { _ = bar.Set(submitted) }
		defer func() { _ = bar.Finish() }()
	}
	res, err := sim.Run(in, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		return enc.Encode(res)
	}
	return sim.WriteReport(stdout, res)
}

// progressBar returns a bar on stderr when it is a terminal and the run is
// long enough to be worth one.
func progressBar(stderr io.Writer, want bool, in *sim.Input) *progressbar.ProgressBar {
	file, ok := stderr.(*os.File)
	if !want || !ok || !term.IsTerminal(int(file.Fd())) {
		return nil
	}
	total := -1
	if s, ok := in.Jobs.(interface{ Len() int }); ok {
		total = s.Len()
		if total < 1000 {
			return nil
		}
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000))
}
