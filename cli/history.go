package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/client"
)

// historyFlags let allot sim and allot sim compare replay the live
// cluster's own recent history instead of a file (GET
// /api/v1/history/scenario).
type historyFlags struct {
	from bool
	win  client.Window
	save string
	// title says what the exported workload is, from the export's head
	// ("the cluster's jobs submitted from ... to ..."), for a report's
	// heading: its file is a temporary one. "" until path exported it.
	title string
}

func (f *historyFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.from, "from-history", false, "replay the jobs the master ran (admins), instead of a FILE")
	fl.StringVar(&f.win.Since, "since", "", "with --from-history: jobs submitted since: "+whenHelp+"; default 7d, or the cluster's start if later; times count from it")
	fl.StringVar(&f.win.Until, "history-until", "", "with --from-history: jobs submitted before this, as --since (default now)")
	fl.StringVar(&f.save, "save", "", "with --from-history: keep the exported scenario in this file")
}

// path returns the workload to replay: args[0], or the exported history
// written to --save or a temporary file (removed by the returned func).
func (f *historyFlags) path(cmd *cobra.Command, args []string) (string, func(), error) {
	none := func() {}
	switch {
	case f.from && len(args) > 0:
		return "", none, usageErrorf("give a FILE or --from-history, not both")
	case !f.from && len(args) != 1:
		return "", none, usageErrorf("expected a FILE (a scenario or a trace), or --from-history")
	case !f.from:
		if f.save != "" || f.win.Since != "" || f.win.Until != "" {
			return "", none, usageErrorf("--since, --history-until and --save go with --from-history")
		}
		return args[0], none, nil
	}
	if err := checkWindow(&f.win, "--history-until"); err != nil {
		return "", none, err
	}
	c, err := newClient(cmd)
	if err != nil {
		return "", none, err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	data, err := c.HistoryScenario(ctx, f.win)
	if err != nil {
		return "", none, fmt.Errorf("export the cluster's history: %w", err)
	}
	printNotes(cmd.ErrOrStderr(), cmd.CommandPath(), data)
	f.title = exportTitle(data)
	if f.save != "" {
		if err := os.WriteFile(f.save, data, 0o644); err != nil {
			return "", none, fmt.Errorf("--save: %w", err)
		}
		return f.save, none, nil
	}
	dir, err := os.MkdirTemp("", "allot-history-")
	if err != nil {
		return "", none, err
	}
	path := filepath.Join(dir, "history.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", none, err
	}
	return path, func() { os.RemoveAll(dir) }, nil
}

// printNotes repeats on stderr the warnings and notes the export writes
// at the head of the scenario, which a user replaying without --save
// would otherwise never see: "# Warning: ..." for each job of the window
// it left out (the replay cannot make its decisions), printed first, as
// "warning:", and "# Note: ..." for what else it left out or assumed (a
// job still running replayed with a run time from its history, a
// failure it could not express). It returns the warnings.
func printNotes(w io.Writer, who string, data []byte) []string {
	var warnings, notes []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			break // the notes are in the head comment only
		}
		if warning, ok := strings.CutPrefix(line, "# Warning: "); ok {
			warnings = append(warnings, warning)
		}
		if note, ok := strings.CutPrefix(line, "# Note: "); ok {
			notes = append(notes, note)
		}
	}
	for _, warning := range warnings {
		fmt.Fprintf(w, "%s: warning: %s\n", who, warning)
	}
	for _, note := range notes {
		fmt.Fprintf(w, "%s: note: %s\n", who, note)
	}
	return warnings
}

// exportWindow is the head line of the what-if export that names its
// window (master/whatif.go).
var exportWindow = regexp.MustCompile(`(?m)^# The jobs submitted to this cluster from (.+) to (.+), with its pools,$`)

// exportTitle is what a history export holds, in words, from its head;
// "the cluster's history" when the head does not say.
func exportTitle(data []byte) string {
	m := exportWindow.FindSubmatch(data)
	if m == nil {
		return "the cluster's history"
	}
	return fmt.Sprintf("the cluster's jobs submitted from %s to %s", m[1], m[2])
}
