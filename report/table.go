package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sim"
)

// gap is the space between table columns.
const gap = 3

// maxLabelColumn is the longest configuration that heads a column; a
// longer one moves every configuration to a legend.
const maxLabelColumn = 32

// WriteTable prints the runs side by side, one column per run, then how
// the workload was read.
func WriteTable(w io.Writer, c *Comparison) error {
	rs := rows(c)
	// Labels are padded to one width so that right-aligning every column
	// leaves them flush left.
	width := len("configuration")
	for _, rw := range rs {
		width = max(width, len(rw.label))
	}
	labels := c.Labels()
	// A configuration longer than a column should be (a cluster's pools
	// spelt out: "osmo: quota, fs: fair_share/preemption, ...") goes in a
	// legend under the table, which would be hundreds of columns wide.
	legend := slices.ContainsFunc(labels, func(l string) bool { return len(l) > maxLabelColumn })
	pad := func(s string) string { return s + strings.Repeat(" ", width-len(s)) }
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 2, 4, gap, ' ', tabwriter.AlignRight)
	head := []string{pad("")}
	pol := []string{pad("configuration")}
	for i, l := range labels {
		head = append(head, c.Runs[i].Name)
		pol = append(pol, l)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	if !legend {
		fmt.Fprintln(tw, strings.Join(pol, "\t")+"\t")
	}
	for _, rw := range rs {
		line := []string{pad(rw.label)}
		for _, r := range c.Runs {
			line = append(line, rw.value(&r.Result.Metrics))
		}
		fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Right alignment puts the gap before the first column too.
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimPrefix(line, strings.Repeat(" ", gap))); err != nil {
			return err
		}
	}
	if legend {
		fmt.Fprintln(w, "\nconfigurations:")
		for i, l := range labels {
			fmt.Fprintf(w, "  %s: %s\n", c.Runs[i].Name, l)
		}
	}
	if after, ok := starveAfter(c); ok {
		fmt.Fprintf(w, "\n%s\n", starveNote(after))
	}
	return WriteInput(w, c.Skipped, c.Notes)
}

// WriteInput prints the summary of how a workload was read: each kind of
// skipped record once, then the notes.
func WriteInput(w io.Writer, skipped []sim.Skip, notes []string) error {
	if len(skipped)+len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped %s: %s (first at line %d)\n", plural.Count(s.Count, "record"), s.Reason, s.FirstLine)
	}
	for _, n := range notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}
