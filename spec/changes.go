package spec

import (
	"fmt"
	"slices"
	"strings"
)

// entries is how one section of named entries (pools, projects, licenses,
// QOS levels) says its changes from one configuration to the next, for a
// reload's reply and the record the what-if export notes.
type entries[T any] struct {
	kind string // "pool", as the lines begin
	name func(T) string
	// added is what follows "added" for a new entry ("policy fifo").
	added func(T) string
	// diffs lists the settings of one entry that differ ("field a → b").
	diffs func(a, b T) []string
	// apart gives each differing setting a line of its own (pools, as
	// they always had), not one line an entry.
	apart bool
}

// changes is kind's lines, in the order of now's entries (entries only
// in was last): "pool x added (policy fifo)", "project vision: quota 4 →
// 8, shares 4 → 8", "license y removed".
func (k entries[T]) changes(was, now []T) []string {
	old := make(map[string]T, len(was))
	for _, e := range was {
		old[k.name(e)] = e
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range now {
		name := k.name(e)
		seen[name] = true
		o, ok := old[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s added (%s)", k.kind, name, k.added(e)))
		case k.apart:
			for _, d := range k.diffs(o, e) {
				out = append(out, k.kind+" "+name+": "+d)
			}
		default:
			if d := k.diffs(o, e); len(d) > 0 {
				out = append(out, k.kind+" "+name+": "+strings.Join(d, ", "))
			}
		}
	}
	for _, e := range was {
		if name := k.name(e); !seen[name] {
			out = append(out, fmt.Sprintf("%s %s removed", k.kind, name))
		}
	}
	return out
}

// Done words a change line, as the changes functions write it, as what
// a reload did, for a note that begins "a configuration reload at ...":
// "added pool x (policy fifo)", "removed qos y", "changed pool hpc:
// reservations easy → conservative" (trial 29h H6: "changed qos y
// removed" read wrong). The lines are stored as text, so it reads them
// back by the form changes gives them.
func Done(line string) string {
	f := strings.Fields(line)
	if len(f) >= 3 && slices.Contains([]string{"pool", "project", "license", "qos"}, f[0]) {
		switch {
		case f[2] == "added":
			return "added " + f[0] + " " + f[1] + strings.TrimPrefix(line, f[0]+" "+f[1]+" added")
		case f[2] == "removed" && len(f) == 3:
			return "removed " + f[0] + " " + f[1]
		}
	}
	return "changed " + line
}

// differ collects "field a → b" for the settings that differ.
type differ []string

func (d *differ) add(field, a, b string) {
	if a != b {
		*d = append(*d, fmt.Sprintf("%s %s → %s", field, a, b))
	}
}
