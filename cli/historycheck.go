package cli

import (
	"fmt"
	"io"
	"math"
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
they do not. The export's warnings, printed first on stderr, name the
jobs it left out, whose decisions the replay cannot make; its notes say
what else it could not carry over or assumed. -o wide
also lists the decisions that agreed.`,
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
				if err == nil && !res.Same {
					err = res.failure()
				}
				return err
			}
			return res.print(cmd.OutOrStdout(), out.wide())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&win.Since, "since", "", `jobs submitted since: an RFC 3339 time or a duration ago ("36h", "7d"); default 7d, or the cluster's start if later`)
	fl.StringVar(&win.Until, "until", "", "jobs submitted before this, as --since; default now")
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
	if !res.Same {
		res.Diff = strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	}
	return res
}

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
	fmt.Fprintf(w, "The simulator's decisions differ from the live master's (%s; - live, + replayed, seconds from the window's start):\n", window)
	for _, l := range r.Diff {
		fmt.Fprintln(w, l)
	}
	return r.failure()
}

func (r historyCheck) failure() error {
	changed := 0
	for _, l := range r.Diff {
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "+ ") {
			changed++
		}
	}
	err := fmt.Errorf("the replay differs from the live master in %s (%s, %d replayed)", plural.Count(changed, "line"),
		plural.Count(r.Live, "live decision"), r.Replayed)
	if len(r.LeftOut) > 0 {
		// The first place to look: the export's warnings scroll by
		// before the diff.
		err = fmt.Errorf("%w; the export left out %s, which the replay cannot make the decisions of (the warnings above)",
			err, plural.Count(len(r.LeftOut), "job"))
	}
	return err
}
