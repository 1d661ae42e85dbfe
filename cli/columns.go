package cli

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// Column selection of a listing (allot jobs, allot nodes --columns),
// as squeue -o "%i %j %T" and kubectl's custom-columns: the table keeps
// the named columns, in that order. The listing prints its -o wide
// table to a columnsWriter, and newTable keeps the columns it names.

// columnsFlag is --columns: the columns of a listing to print, in their
// order. valid are the listing's -o wide headers, which it may name.
type columnsFlag struct {
	spec  string
	valid []string
	names []string // the headers spec names, once check has run
}

// register adds --columns to cmd, with completion of the names.
func (c *columnsFlag) register(cmd *cobra.Command, valid []string) {
	c.valid = valid
	cmd.Flags().StringVar(&c.spec, "columns", "", "print only these columns, in this order, comma-separated (as squeue -o): "+
		strings.Join(columnArgs(valid), ","))
	_ = cmd.RegisterFlagCompletionFunc("columns", c.complete)
}

// set reports whether --columns was given.
func (c *columnsFlag) set() bool { return c.spec != "" }

// check parses --columns before anything is sent: an unknown or empty
// column is a usage error (exit 2) that lists the valid ones, and so is
// --columns with -o json or yaml, which print every field.
func (c *columnsFlag) check(out outputFlag) error {
	if !c.set() {
		return nil
	}
	if out.format != outputTable && out.format != outputWide {
		return usageErrorf("--columns: applies to the table (-o table or wide), not -o %s, which prints every field", out.format)
	}
	c.names = nil
	for _, arg := range strings.Split(c.spec, ",") {
		name := columnName(arg)
		if !slices.Contains(c.valid, name) {
			what := "an empty column"
			if strings.TrimSpace(arg) != "" {
				what = "unknown column " + `"` + strings.TrimSpace(arg) + `"`
			}
			return usageErrorf("--columns: %s; expected a comma-separated list of %s", what, strings.Join(columnArgs(c.valid), ", "))
		}
		c.names = append(c.names, name)
	}
	return nil
}

// writer is w for the table of the listing: with --columns, a
// columnsWriter that keeps the named ones.
func (c *columnsFlag) writer(w io.Writer) io.Writer {
	if !c.set() {
		return w
	}
	return withColumns(w, c.names)
}

// complete offers the column names after the last comma, those not
// named yet first: --columns ID,NA<Tab> gives ID,NAME.
func (c *columnsFlag) complete(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cut := strings.LastIndex(toComplete, ",") + 1
	done, typed := toComplete[:cut], strings.ToUpper(toComplete[cut:])
	var out []cobra.Completion
	for _, arg := range columnArgs(c.valid) {
		if strings.HasPrefix(arg, typed) && !slices.Contains(strings.Split(strings.ToUpper(done), ","), arg) {
			out = append(out, done+arg)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | noFiles
}

// columnName is the header a --columns word names: any case, and _ or -
// for a header's space (LAST_SEEN is LAST SEEN).
func columnName(arg string) string {
	return strings.ToUpper(strings.NewReplacer("_", " ", "-", " ").Replace(strings.TrimSpace(arg)))
}

// columnArgs are headers as --columns takes them: LAST SEEN as
// LAST_SEEN, one shell word.
func columnArgs(headers []string) []string {
	out := make([]string, len(headers))
	for i, h := range headers {
		out[i] = strings.ReplaceAll(h, " ", "_")
	}
	return out
}

// columnsWriter is where a listing prints its table: newTable keeps the
// columns names, in that order (all for nil), and leaves the header out
// with noHeader (--no-headers).
type columnsWriter struct {
	io.Writer
	names    []string
	noHeader bool
}

// withColumns is w for a table that keeps the columns names, in that
// order; --no-headers given to w stays.
func withColumns(w io.Writer, names []string) io.Writer {
	cw := tableOptions(w)
	cw.names = names
	return cw
}

// withoutHeader is w for a table printed without its header line
// (--no-headers); the columns given to w stay.
func withoutHeader(w io.Writer) io.Writer {
	cw := tableOptions(w)
	cw.noHeader = true
	return cw
}

// tableOptions is a copy of w's options, or none, around w's writer.
func tableOptions(w io.Writer) *columnsWriter {
	if cw, ok := w.(*columnsWriter); ok {
		c := *cw
		return &c
	}
	return &columnsWriter{Writer: w}
}

// headerless reports whether w's table (or CSV) is to be printed
// without its header line.
func headerless(w io.Writer) bool {
	cw, ok := w.(*columnsWriter)
	return ok && cw.noHeader
}

// pick is, for a table of header, the writer to print to and the index
// of each column to print, nil when w selects none (every column, in
// order).
func pick(w io.Writer, header []string) (io.Writer, []int) {
	cw, ok := w.(*columnsWriter)
	if !ok {
		return w, nil
	}
	if cw.names == nil {
		return cw.Writer, nil
	}
	idx := make([]int, 0, len(cw.names))
	for _, n := range cw.names {
		if i := slices.Index(header, n); i >= 0 {
			idx = append(idx, i)
		}
	}
	return cw.Writer, idx
}

// registerNoHeaders adds --no-headers (kubectl's spelling) to a command
// that prints a listing's table, and --noheader (squeue's), hidden, as
// the same flag: pflag has no second long name. The command's table
// writer is tableOut's.
func registerNoHeaders(cmd *cobra.Command) {
	on := new(bool)
	cmd.Flags().BoolVar(on, "no-headers", false, "print no header line above the table (or -o csv), for scripts; --noheader (squeue's) is the same")
	cmd.Flags().BoolVar(on, "noheader", false, "the same as --no-headers (squeue's spelling)")
	_ = cmd.Flags().MarkHidden("noheader")
}

// tableOut is w for cmd's table: without its header line when cmd has
// --no-headers and it is given.
func tableOut(cmd *cobra.Command, w io.Writer) io.Writer {
	if on, err := cmd.Flags().GetBool("no-headers"); err == nil && on {
		return withoutHeader(w)
	}
	return w
}
