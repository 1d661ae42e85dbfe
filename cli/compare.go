package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/report"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/yamlfield"
)

type compareFlags struct {
	workloadFlags
	policies []string
	sets     []string
	html     string
	json     jsonOutput
	csv      string
	parallel int
	history  historyFlags
	// starveAfter is --starve-after as given; starveAfterDefault if not.
	starveAfter string
}

// starveAfterDefault is the wait over which a job counts as starved: a
// day, the longest a batch job is commonly expected to queue.
const starveAfterDefault = "24h"

// defaultPolicies are compared when no --policy or --set is given: the
// three textbook batch policies.
var defaultPolicies = []string{"fcfs", "easy", "conservative"}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare [FILE | --from-history]",
		Short: "Replay one workload under several policies and compare them side by side",
		Long: `Replay one workload (a scenario file or a trace) under several policies or
option sets and print a side-by-side table of their metrics. Each --policy
and each --set is one run: the --policy runs first, then the --set runs,
each in the order given. Without either, fcfs, easy and conservative are
compared.

Each run's column is headed by its name and its configuration: per pool
the policy, what is on (serial, preemption, backfill), the backfill mode
(easy, conservative) and spread placement, and what is off where another
run has it on (priority/no-preemption beside priority/preemption). Two
runs configured alike say so: backfill/easy (same as easy). The last rows
count each run's starved jobs, those that waited over --starve-after
(default 24h) to start, and the job that waited longest; a job that never
started counts with its wait until the run stopped.

--html writes a self-contained report with charts (utilisation and queue
length over time, slots held per project, the CDF of wait) that loads
nothing from the network; --csv writes the numbers to a file, and --json
prints them as JSON instead of the table, as allot sim --json does
(--json=FILE writes them to FILE, beside the table; the older --json FILE
still does).

--policy current is a run under the workload's own settings. With
--from-history the workload is the live cluster's own jobs (admins only:
the master exports those submitted since --since, default 7 days, with its
pools, projects and nodes as a scenario; --save keeps it), and the default
runs are current, fcfs, easy and conservative: what the cluster did under
its configuration against what other policies would have done.`,
		Example: `  allot sim compare SDSC-SP2-1998-4.2-cln.swf.gz
  allot sim compare trace.swf --policy fcfs --policy easy --policy conservative --html out.html --json=out.json --csv out.csv
  allot sim compare trace.swf --json | jq '.runs[].metrics'
  allot sim compare trace.swf --policy easy --set name=easy-spread,policy=backfill,reservations=easy,placement=spread
  allot sim compare trace.swf --starve-after 2d
  allot sim compare --from-history --since 7d --policy current --policy conservative --html whatif.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			_, args = f.json.legacyFile(args, f.history.from)
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if file, rest := f.json.legacyFile(args, f.history.from); file != "" {
				f.json.path, args = file, rest
			}
			path, done, err := f.history.path(cmd, args)
			if err != nil {
				return err
			}
			defer done()
			if f.history.from && len(f.policies)+len(f.sets) == 0 {
				// What if: the cluster as configured against the textbook
				// policies.
				f.policies = append([]string{"current"}, defaultPolicies...)
			}
			return runCompare(cmd.OutOrStdout(), cmd.ErrOrStderr(), path, f)
		},
	}
	f.workloadFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.policies, "policy", nil, "a run under this policy (repeatable): current (the workload's own), fcfs, easy, conservative, fifo, backfill, fair_share, priority")
	fl.StringArrayVar(&f.sets, "set", nil, "a run under an option set (repeatable), e.g. name=easy-spread,policy=backfill,reservations=easy,placement=spread")
	fl.StringVar(&f.html, "html", "", "write an HTML report with charts to this file")
	f.json.register(fl)
	fl.StringVar(&f.csv, "csv", "", "write one CSV row of metrics per run to this file")
	fl.IntVar(&f.parallel, "parallel", runtime.GOMAXPROCS(0), "runs replayed at once")
	fl.StringVar(&f.starveAfter, "starve-after", starveAfterDefault, "count as starved each job that waited longer than this `DURATION` to start (90m, 2d, 1:30:00; seconds if bare)")
	f.history.register(cmd)
	return cmd
}

func runCompare(stdout, stderr io.Writer, path string, f compareFlags) error {
	sets, err := compareSettings(f.policies, f.sets)
	if err != nil {
		return err
	}
	opt, err := f.options()
	if err != nil {
		return err
	}
	opt.OmitJobs, opt.Series = true, true
	if opt.StarveAfter, err = parseStarveAfter(f.starveAfter); err != nil {
		return err
	}
	outs, err := checkOutputs(f)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			outs.discard()
		}
	}()
	w, err := f.load(path)
	if err != nil {
		return err
	}
	warnScenario(stderr, w)
	// Open every run first, so that a bad option set fails before any
	// replay starts.
	replays := make([]*sim.Replay, len(sets))
	for i, set := range sets {
		if replays[i], err = w.Open(set); err != nil {
			closeAll(replays)
			return fmt.Errorf("run %q: %w", set.Name, openError("", err))
		}
	}
	defer closeAll(replays)
	c := &report.Comparison{Workload: path, Title: f.history.title, Slots: w.Slots()}
	if f.history.title != "" && f.history.save == "" {
		// The export's temporary file is gone by the time one reads it.
		c.Workload = f.history.title
	}
	results, err := replayAll(stderr, f, opt, replays)
	if err != nil {
		return err
	}
	for i, res := range results {
		in := replays[i].Input
		c.Runs = append(c.Runs, report.Run{Name: sets[i].Name, Policy: in.Policy(), Config: in.Config(), Result: res})
	}
	c.Skipped, c.Notes = results[0].Skipped, results[0].Notes
	if f.history.title != "" {
		// Compared against allot history, whose WAIT is another measure
		// (trial p F10).
		c.Notes = append(slices.Clone(c.Notes), "wait is from submission to a job's first start; allot history's WAIT also counts "+
			"the waits after each preemption or requeue, so its mean is higher where jobs were preempted (the JCT rows hold those waits)")
	}
	write := report.WriteTable
	if f.json.path == jsonStdout {
		write = report.WriteJSON
	}
	if err := write(stdout, c); err != nil {
		return err
	}
	ok = true
	return writeOutputs(stderr, c, outs)
}

// parseStarveAfter reads --starve-after: a duration as a file's are
// written, over 0 (every job that waited at all is no threshold).
func parseStarveAfter(v string) (int64, error) {
	secs, err := yamlfield.ParseDuration(v)
	if err != nil {
		return 0, usageErrorf("--starve-after: %w", err)
	}
	if secs == 0 {
		return 0, usageErrorf("--starve-after: expected a duration > 0, got %q", strings.TrimSpace(v))
	}
	return secs, nil
}

// compareSettings turns --policy and --set into runs with unique names.
func compareSettings(policies, sets []string) ([]sim.Settings, error) {
	if len(policies)+len(sets) == 0 {
		policies = defaultPolicies
	}
	var out []sim.Settings
	seen := map[string]bool{}
	add := func(s sim.Settings, err error) error {
		if err != nil {
			return err
		}
		if seen[s.Name] {
			return usageErrorf("two runs are named %q; give each --set a distinct name=", s.Name)
		}
		seen[s.Name] = true
		out = append(out, s)
		return nil
	}
	for _, p := range policies {
		if err := add(policyPreset(p)); err != nil {
			return nil, err
		}
	}
	for _, s := range sets {
		if err := add(parseSet(s)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// replayAll runs the replays, up to f.parallel at once, and returns their
// results in order.
func replayAll(stderr io.Writer, f compareFlags, opt sim.Options, replays []*sim.Replay) ([]*sim.Result, error) {
	bar := newProgress(stderr, f.progress && !f.quiet, replays[0], len(replays))
	results := make([]*sim.Result, len(replays))
	errs := make([]error, len(replays))
	sem := make(chan struct{}, max(f.parallel, 1))
	var wg sync.WaitGroup
	for i, rp := range replays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			o := opt
			if bar != nil {
				o.Progress = func(int64, int) { bar.update(i, rp.Fraction()) }
			}
			results[i], errs[i] = sim.Run(rp.Input, o)
		}()
	}
	wg.Wait()
	bar.finish()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
	}
	return results, nil
}

// output is a file of --html, --json or --csv.
type output struct {
	flag, path string
	write      func(io.Writer, *report.Comparison) error
	created    bool // by checkOutputs: removed if the comparison fails
}

type outputs []output

// checkOutputs opens each output file for writing before any replay, so
// that a path that cannot be written fails at once, naming its flag,
// rather than after every run of a long trace. It neither truncates a
// file that exists (a failed comparison leaves an earlier report as it
// was) nor leaves behind one it created, once discarded.
func checkOutputs(f compareFlags) (outputs, error) {
	var outs outputs
	for _, o := range []output{{flag: "--html", path: f.html, write: report.WriteHTML},
		{flag: "--json", path: f.json.path, write: report.WriteJSON}, {flag: "--csv", path: f.csv, write: report.WriteCSV}} {
		if o.path == "" || o.path == jsonStdout {
			continue
		}
		_, statErr := os.Stat(o.path)
		file, err := os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE, 0o666)
		if err != nil {
			outs.discard()
			return nil, fmt.Errorf("%s: %w", o.flag, err)
		}
		file.Close()
		o.created = errors.Is(statErr, fs.ErrNotExist)
		outs = append(outs, o)
	}
	return outs, nil
}

// discard removes the output files checkOutputs created.
func (outs outputs) discard() {
	for _, o := range outs {
		if o.created {
			os.Remove(o.path)
		}
	}
}

func writeOutputs(stderr io.Writer, c *report.Comparison, outs outputs) error {
	for _, o := range outs {
		if err := writeFile(o.path, func(w io.Writer) error { return o.write(w, c) }); err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", o.path)
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(file); err != nil {
		file.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return file.Close()
}

func closeAll(rs []*sim.Replay) {
	for _, r := range rs {
		if r != nil {
			r.Close()
		}
	}
}
