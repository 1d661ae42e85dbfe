package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/trace"
)

// workloadFlags say how to read a workload and how long to replay it;
// sim and sim compare share them.
type workloadFlags struct {
	format   string
	nodes    countFlag
	slots    countFlag
	projects string
	until    string
	progress bool
	quiet    bool
}

func (f *workloadFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "input format: scenario, swf or csv (default: from the file name)")
	fl.Var(&f.nodes, "nodes", "trace only: nodes in the cluster, >= 1 (default: the trace's MaxProcs, or MaxNodes)")
	fl.Var(&f.slots, "slots", "trace only: slots per node, >= 1 (default 1 for SWF, 8 for CSV)")
	fl.StringVar(&f.projects, "projects", "group", "trace only: what a job's project is, its group or its user")
	fl.StringVar(&f.until, "until", "", "stop the simulation at this time (seconds or a duration such as 10h)")
	fl.BoolVar(&f.progress, "progress", true, "report progress on stderr: a bar on a terminal, else a line every few seconds")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "report no progress (as --progress=false)")
}

func (f *workloadFlags) load(path string) (*sim.Workload, error) {
	if f.projects != "group" && f.projects != "user" {
		return nil, usageErrorf("--projects: want group or user, got %q", f.projects)
	}
	switch f.format {
	case "", sim.FormatScenario, sim.FormatSWF, sim.FormatCSV:
	default:
		return nil, usageErrorf("--format: expected %s, %s or %s, got %q", sim.FormatScenario, sim.FormatSWF, sim.FormatCSV, f.format)
	}
	if f.nodes == 0 && isCSV(path, f.format) {
		return nil, csvNeedsNodes(path)
	}
	w, err := sim.LoadWorkload(path, sim.WorkloadOptions{Format: f.format, Nodes: int(f.nodes), Slots: int(f.slots),
		ProjectsByUser: f.projects == "user"})
	if errors.Is(err, sim.ErrTraceOnly) {
		// A flag that does not apply to the input: the command line's fault.
		return nil, asUsage(err)
	}
	return w, err
}

// csvNeedsNodes is the error of a GPU job CSV given without --nodes. A
// flag the input needs is the command line's fault (a usage error, as
// cli.md's exit codes count it), but a header that cannot be read is
// the file's, and comes first, with the flag, so that one run tells
// both (trial 2026-11-29g G9: the header's error came only once --nodes
// was given).
func csvNeedsNodes(path string) error {
	need := fmt.Errorf("%s: a GPU job CSV does not say how big its cluster was; give --nodes (and --slots, default 8)", path)
	_, c, err := trace.Open(path, sim.FormatCSV)
	if err != nil {
		return errors.Join(err, need)
	}
	c.Close()
	return asUsage(need)
}

// countFlag is an optional count (--nodes, --slots): left out it is 0,
// which lets the workload decide; given, it must be at least 1, since a 0
// would silently mean the default too.
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*c)) }

func (c *countFlag) Type() string { return "int" }

func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return fmt.Errorf("expected a count >= 1 (leave the flag out for the default), got %q", s)
	}
	*c = countFlag(n)
	return nil
}

func (f *workloadFlags) options() (sim.Options, error) {
	opt := sim.Options{Until: -1}
	if f.until != "" {
		u, err := parseSeconds("until", f.until)
		if err != nil {
			return opt, err
		}
		opt.Until = u
	}
	return opt, nil
}

// isCSV tells a GPU job CSV, as LoadWorkload will.
func isCSV(path, format string) bool {
	if format != "" {
		return format == sim.FormatCSV
	}
	return strings.HasSuffix(strings.TrimSuffix(strings.ToLower(path), ".gz"), ".csv")
}

// isTrace tells traces from scenario files, as LoadWorkload will.
func isTrace(path, format string) bool {
	if format != "" {
		return format != sim.FormatScenario
	}
	name := strings.ToLower(strings.TrimSuffix(strings.ToLower(path), ".gz"))
	return strings.HasSuffix(name, ".swf") || strings.HasSuffix(name, ".csv")
}
