package cli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// historyCheck is allot history check's result: the live master's
// decisions for a window against the simulator's replay of the window's
// export, compared up to Before: At, when the live log was read, or
// Until where --until ended the window before then (compareUntil).
type historyCheck struct {
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
	At       time.Time `json:"at"`
	Before   time.Time `json:"before"`   // the decisions compared are those made before this
	Live     int       `json:"live"`     // live decisions compared
	Replayed int       `json:"replayed"` // replayed decisions compared
	Same     bool      `json:"same"`
	Diff     []string  `json:"diff"` // the differing lines, "- " live, "+ " replayed, with context
	// Timing are the seconds (from the window's start) whose lines
	// differ only by the order in which the live master heard of that
	// second's events (decisionlog.Timing), ascending; TimingOnly says
	// that every difference is such (the check passes, exit 0).
	Timing     []int64 `json:"timing"`
	TimingOnly bool    `json:"timing_only"`
	// LeftOut are the export's warnings: the jobs of the window it left
	// out, whose decisions the replay cannot make, and why.
	LeftOut []string `json:"left_out"`
	// compared are the live decisions compared, which -o wide prints.
	compared []string
}

func newHistoryCheckCmd() *cobra.Command {
	var out outputFlag
	var win client.Window
	var context int
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Replay a window of the cluster's history through the simulator and compare its decisions with the live ones (admins)",
		Long: `Replay the jobs submitted over a window through the simulator and compare,
line by line, the scheduling decisions it makes (starts with their nodes,
preemptions, moves, resizes, kills, attempt ends) with the ones the live
master made: the check that what-if and the forecasts rest on. Admins only.

It reads the master's decision log (GET /api/v1/history/decisions) and
the window's export (GET /api/v1/history/scenario, what allot sim
--from-history replays), replays the export, and compares what happened
before the log was read (before --until, where it ended the window
earlier: the replay has none of the jobs submitted later). It exits 0
when they agree and 1 with the differing lines (- live, + replayed) when
they do not. Lines labelled (timing) differ only by report latency: in
their second the live master placed a task before it heard of an end of
that second and resized or moved it within the second to where the
replay, which takes a second's ends before its starts, placed it; where
every difference is such, the check exits 0. The export's warnings,
printed first on stderr, name the jobs it left out, whose decisions the
replay cannot make; its notes say what else it could not carry over or
assumed. -o wide also lists the decisions that agreed.`,
		Example: "  allot history check\n  allot history check -o wide   # the decisions compared too\n  allot history check --since 2h -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if context < 0 {
				return usageErrorf("--context: expected a number >= 0, got %d", context)
			}
			if err := checkWindow(&win, "--until"); err != nil {
				return err
			}
			if out.wide() && !cmd.Flags().Changed("context") {
				// Wide lists every decision compared, the agreeing ones
				// among the differences too.
				context = math.MaxInt32
			}
			res, err := checkHistory(cmd, win, context)
			if err != nil {
				return err
			}
			if ok, err := out.structured(cmd.OutOrStdout(), res); ok || err != nil {
				if err == nil && !res.Same && !res.TimingOnly {
					err = res.failure()
				}
				return err
			}
			return res.print(cmd.OutOrStdout(), out.wide())
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&win.Since, "since", "S", "", "jobs submitted since (sacct -S): "+whenHelp+"; default 7d, or the cluster's start if later")
	fl.StringVarP(&win.Until, "until", "E", "", "jobs submitted before this, as --since (sacct -E), not in the future; default now")
	fl.IntVar(&context, "context", 3, "unchanged lines shown around each difference")
	out.register(cmd)
	return cmd
}

// checkHistory reads the live log, then the export of the same window,
// replays it and compares the two up to the second the log was read.
func checkHistory(cmd *cobra.Command, win client.Window, context int) (historyCheck, error) {
	c, err := newClient(cmd)
	if err != nil {
		return historyCheck{}, err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	live, err := c.HistoryDecisions(ctx, win)
	if err != nil {
		return historyCheck{}, fmt.Errorf("read the live decisions: %w", err)
	}
	// The window the master resolved, so that the export is of the same
	// jobs even where the defaults count from now.
	data, err := c.HistoryScenario(ctx, client.Window{Since: live.Since.Format(time.RFC3339Nano), Until: live.Until.Format(time.RFC3339Nano)})
	if err != nil {
		return historyCheck{}, fmt.Errorf("export the cluster's history: %w", err)
	}
	leftOut := printNotes(cmd.ErrOrStderr(), cmd.CommandPath(), data)
	sc, err := scenario.Parse("the exported history", data)
	if err != nil {
		return historyCheck{}, err
	}
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		return historyCheck{}, fmt.Errorf("replay the exported history: %w", err)
	}
	res := compareDecisions(live, compareUntil(live, win), replayed, context)
	res.LeftOut = append([]string{}, leftOut...)
	return res, nil
}

// compareUntil is when the comparison of the live log ends: when it was
// read, or the window's end where --until set one before then. The jobs
// submitted since are in neither the export nor the log, but the live
// master placed them, and from then on they preempted or held back the
// window's jobs, which the replay, without them, cannot do. (Without
// --until the window ends as the log is read, a moment before At.)
func compareUntil(live api.DecisionLog, win client.Window) time.Time {
	if win.Until != "" && live.Until.Before(live.At) {
		return live.Until
	}
	return live.At
}

// compareDecisions compares the live log with the replay's decisions
// made before the second of to: what came later, the replay's guess of
// how running and waiting jobs go on, the live master has not decided
// yet (or, after an --until, decided with jobs the replay has not).
func compareDecisions(live api.DecisionLog, to time.Time, replayed []decisionlog.Decision, context int) historyCheck {
	cut := int64(to.Sub(live.Since) / time.Second)
	res := historyCheck{Since: live.Since, Until: live.Until, At: live.At, Before: to, Diff: []string{}}
	var a, b strings.Builder
	for _, l := range live.Lines {
		if at, _, _ := strings.Cut(l, " "); before(at, cut) {
			a.WriteString(l + "\n")
			res.Live++
			res.compared = append(res.compared, l)
		}
	}
	for _, d := range replayed {
		if d.At < cut {
			b.WriteString(d.Line() + "\n")
			res.Replayed++
		}
	}
	diff := decisionlog.Diff(a.String(), b.String(), context)
	res.Same = diff == ""
	res.Timing = []int64{}
	if !res.Same {
		res.Diff = strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
		res.Timing, res.TimingOnly = timingOf(res.compared, replayed, cut)
	}
	return res
}

// timingOf sorts the seconds whose lines differ into those the order in
// which the live master heard of their events explains, and says
// whether they are all: live lines it cannot read (a master of another
// version) make every difference count.
func timingOf(live []string, replayed []decisionlog.Decision, cut int64) ([]int64, bool) {
	var a, b []decisionlog.Decision
	for _, l := range live {
		d, err := decisionlog.Parse(l)
		if err != nil {
			return []int64{}, false
		}
		a = append(a, d)
	}
	for _, d := range replayed {
		if d.At < cut {
			b = append(b, d)
		}
	}
	timing, other := decisionlog.Timing(a, b)
	if timing == nil {
		timing = []int64{}
	}
	return timing, len(timing) > 0 && len(other) == 0
}

// isTiming says whether a diff line ("- 384 start ...") is of a second
// whose difference is timing's.
func (r historyCheck) isTiming(l string) bool {
	if !strings.HasPrefix(l, "- ") && !strings.HasPrefix(l, "+ ") {
		return false
	}
	at, _, _ := strings.Cut(l[2:], " ")
	n, err := strconv.ParseInt(at, 10, 64)
	return err == nil && slices.Contains(r.Timing, n)
}

// timingNote is what the lines labelled "(timing)" mean.
const timingNote = `(timing): in that second the live master placed a task before it heard
of an end of the same second, then resized or moved it within the
second; taken at the second's end, its placement is the replay's, which
takes a second's ends before its starts. Report latency, not a
difference in what the scheduler decides.`

// before reports whether a log line's time field is before cut; a line
// that does not start with a time is kept, so that the diff shows it.
func before(at string, cut int64) bool {
	n, err := strconv.ParseInt(at, 10, 64)
	return err != nil || n < cut
}

// print says whether the replay agrees, with the differing lines; wide
// lists the decisions that agreed too, so that an admin sees what was
// compared.
func (r historyCheck) print(w io.Writer, wide bool) error {
	window := fmt.Sprintf("jobs submitted from %s to %s, as of %s", formatTime(&r.Since), formatTime(&r.Until), formatTime(&r.At))
	if r.Before.Before(r.At) {
		window = fmt.Sprintf("jobs submitted from %s to %s, as of %s: the replay has none of the jobs submitted later",
			formatTime(&r.Since), formatTime(&r.Until), formatTime(&r.Until))
	}
	if r.Same && r.Live == 0 {
		// Agreeing on nothing proves nothing: say so rather than claim
		// the replay matches "0 decisions, line for line".
		fmt.Fprintf(w, "Nothing to compare: neither the live master nor the simulator made a decision (%s); widen --since.\n", window)
		return nil
	}
	if r.Same {
		fmt.Fprintf(w, "The simulator makes the live master's %s, line for line (%s).\n", plural.Count(r.Live, "decision"), window)
		if wide {
			fmt.Fprintln(w, "\nThe decisions (seconds from the window's start):")
			for _, l := range r.compared {
				fmt.Fprintln(w, "  "+l)
			}
		}
		return nil
	}
	if r.TimingOnly {
		fmt.Fprintf(w, "The simulator's decisions differ from the live master's only in timing, within %s (%s; - live, + replayed, seconds from the window's start):\n",
			plural.Count(len(r.Timing), "second"), window)
	} else {
		fmt.Fprintf(w, "The simulator's decisions differ from the live master's (%s; - live, + replayed, seconds from the window's start):\n", window)
	}
	for _, l := range r.Diff {
		if r.isTiming(l) {
			l += "   (timing)"
		}
		fmt.Fprintln(w, l)
	}
	if len(r.Timing) > 0 {
		fmt.Fprintln(w, "\n"+timingNote)
	}
	if r.TimingOnly {
		return nil
	}
	return r.failure()
}

func (r historyCheck) failure() error {
	changed, timing := 0, 0
	for _, l := range r.Diff {
		switch {
		case r.isTiming(l):
			timing++
		case strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "+ "):
			changed++
		}
	}
	more := ""
	if timing > 0 {
		more = fmt.Sprintf("; %d more lines differ only in timing", timing)
		if timing == 1 {
			more = "; 1 more line differs only in timing"
		}
	}
	err := fmt.Errorf("the replay differs from the live master in %s (%s, %d replayed%s)", plural.Count(changed, "line"),
		plural.Count(r.Live, "live decision"), r.Replayed, more)
	if len(r.LeftOut) > 0 {
		// The first place to look: the export's warnings scroll by
		// before the diff.
		err = fmt.Errorf("%w; the export left out %s, which the replay cannot make the decisions of (the warnings above)",
			err, plural.Count(len(r.LeftOut), "job"))
	}
	return err
}
