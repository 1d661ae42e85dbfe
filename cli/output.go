package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sim"
)

// Output formats of the client commands (docs/cli.md): table for people,
// wide for a table with more columns (the same as table where a command
// has no more to show), json and yaml for programs, both with the API's
// field names.
const (
	outputTable = "table"
	outputWide  = "wide"
	outputJSON  = "json"
	outputYAML  = "yaml"
)

// outputFormats lists the -o values, for messages and completion.
var outputFormats = []string{outputTable, outputWide, outputJSON, outputYAML}

// outputFlag is the -o flag of a command that prints API objects.
type outputFlag struct{ format string }

func (o *outputFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.format, "output", "o", outputTable, "output format: table, wide, json or yaml")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(outputFormats, cobra.ShellCompDirectiveNoFileComp))
}

// check rejects an unknown format before anything is sent; it is a usage
// error (exit 2).
func (o *outputFlag) check() error {
	if slices.Contains(outputFormats, o.format) {
		return nil
	}
	return usageErrorf("--output: expected one of %s, got %q", strings.Join(outputFormats, ", "), o.format)
}

// wide reports whether -o wide asks for the table's extra columns.
func (o *outputFlag) wide() bool { return o.format == outputWide }

// structured prints v as JSON or YAML and reports true, or reports false
// for the table formats, which each command prints its own way.
func (o *outputFlag) structured(w io.Writer, v any) (bool, error) {
	switch o.format {
	case outputJSON:
		return true, writeJSON(w, v)
	case outputYAML:
		return true, writeYAML(w, v)
	}
	return false, nil
}

// writeJSON prints v as indented JSON with <, > and & as they are: the
// entrypoints and messages it prints are read in a terminal and by jq,
// not embedded in HTML, where encoding/json's \u003e escapes are for.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeYAML prints v as YAML with the field names and order of its JSON
// form, so that -o yaml and -o json show the same object: v goes through
// JSON into a yaml.Node, whose flow styles are reset to block style.
func writeYAML(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("encode as YAML: %w", err)
	}
	blockStyle(&doc)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("encode as YAML: %w", err)
	}
	return enc.Close()
}

// blockStyle clears the JSON styles (flow collections, double-quoted
// strings); the encoder still quotes strings that need it, such as
// timestamps and numbers held as strings.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// table writes aligned columns: those of a listing's --columns, when w
// is its columnsWriter (columns.go), else all; the header first, unless
// the columnsWriter leaves it out (--no-headers).
type table struct {
	tw   *tabwriter.Writer
	pick []int // the columns kept, in order; nil for all
}

func newTable(w io.Writer, header ...string) *table {
	noHeader := headerless(w)
	w, idx := pick(w, header)
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0), pick: idx}
	if !noHeader {
		t.row(header...)
	}
	return t
}

// row writes cells (those of the columns kept) as a line; it leaves
// cells as they are, which may be a caller's header.
func (t *table) row(cells ...string) {
	out := cells
	if t.pick != nil {
		out = make([]string, len(t.pick))
		for i, c := range t.pick {
			if c < len(cells) {
				out[i] = cells[c]
			}
		}
	}
	// A tab or newline in a value (a job name, a message) would break the
	// columns.
	clean := strings.NewReplacer("\t", " ", "\n", " ")
	line := make([]string, len(out))
	for i, c := range out {
		line[i] = clean.Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(line, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// Clock and zone of the printed times; tests fix them.
var (
	now         = time.Now
	displayZone = time.Local
)

// formatTime renders a time in the display zone, or "-" for none.
func formatTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.In(displayZone).Format("2006-01-02 15:04:05")
}

// exactDuration shows a configured span (a time limit, a grace period)
// exactly, as a job or configuration file writes it: 1h30m, 45s, 0s, not
// Go's 1h30m0s. Measured spans (waits, countdowns) are humanDur's.
func exactDuration(s int64) string {
	if s == 0 {
		return "0s"
	}
	return sim.Clock(s)
}

// age renders how long ago t was, coarsely: 45s, 12m, 3h, 5d.
func age(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now().Sub(t)
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// formatLabels renders labels as k=v pairs in key order, or "-".
func formatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
