package decisionlog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Parse reads one line of the log, as Line writes it, back into a
// Decision.
func Parse(line string) (Decision, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Decision{}, fmt.Errorf("decision %q: expected TIME KIND JOB", line)
	}
	at, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return Decision{}, fmt.Errorf("decision %q: time %q is not a number of seconds", line, f[0])
	}
	d := Decision{At: at, Job: f[2]}
	for k, name := range kindNames {
		if name != "" && name == f[1] {
			d.Kind = Kind(k)
		}
	}
	if d.Kind == 0 {
		return Decision{}, fmt.Errorf("decision %q: unknown kind %q", line, f[1])
	}
	for _, kv := range f[3:] {
		key, val, _ := strings.Cut(kv, "=")
		switch key {
		case "task":
			d.Task, err = strconv.Atoi(val)
		case "attempt":
			d.Attempt, err = strconv.Atoi(val)
		case "how":
			d.How = val
		case "nodes":
			d.Nodes, err = parseNodes(val)
		default:
			err = fmt.Errorf("unknown field %q", key)
		}
		if err != nil {
			return Decision{}, fmt.Errorf("decision %q: %s: %w", line, kv, err)
		}
	}
	return d, nil
}

func parseNodes(s string) ([]Node, error) {
	var ns []Node
	for _, p := range strings.Split(s, ",") {
		name, slots, ok := strings.Cut(p, ":")
		n, err := strconv.Atoi(slots)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("expected NODE:SLOTS, got %q", p)
		}
		ns = append(ns, Node{name, n})
	}
	return ns, nil
}

// Timing compares a live log with a replayed one second by second and
// returns, ascending, the seconds whose lines differ, split into those
// that the order in which the live master heard of a second's events
// explains (timing) and the others. A second's difference is timing's
// when
//
//   - taken at the second's end, the two agree: an attempt started and
//     then moved or resized once in that second counts as started where
//     the move or resize put it (Settle); and
//   - the live log holds, in that second, the end of an attempt other
//     than those whose lines differ: an end the live master may have
//     heard of only after a pass had placed what it freed, while the
//     replay takes a second's ends before its starts.
//
// So an elastic task the live master started shrunk and grew in the
// same second, once the end it waited for was heard, agrees with the
// replay's start at full size; a task placed elsewhere, or in another
// second, does not.
func Timing(live, replayed []Decision) (timing, other []int64) {
	a, b := bySecond(live), bySecond(replayed)
	sa, sb := bySecond(Settle(live)), bySecond(Settle(replayed))
	var secs []int64
	for s := range a {
		secs = append(secs, s)
	}
	for s := range b {
		if _, ok := a[s]; !ok {
			secs = append(secs, s)
		}
	}
	slices.Sort(secs)
	for _, s := range secs {
		if slices.Equal(lines(a[s]), lines(b[s])) {
			continue
		}
		if slices.Equal(lines(sa[s]), lines(sb[s])) && endsOther(a[s], differing(a[s], b[s])) {
			timing = append(timing, s)
		} else {
			other = append(other, s)
		}
	}
	return timing, other
}

// bySecond groups a log's decisions by second, each second's in the
// log's order.
func bySecond(ds []Decision) map[int64][]Decision {
	ds = slices.Clone(ds)
	Sort(ds)
	out := map[int64][]Decision{}
	for _, d := range ds {
		out[d.At] = append(out[d.At], d)
	}
	return out
}

func lines(ds []Decision) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Line()
	}
	return out
}

// attemptOf names the attempt a decision is of; a kill names its job
// only.
type attemptOf struct {
	job           string
	task, attempt int
}

func keyOf(d Decision) attemptOf {
	if d.Kind == Kill {
		return attemptOf{job: d.Job, task: -1}
	}
	return attemptOf{d.Job, d.Task, d.Attempt}
}

// differing are the attempts with a line in one of a and b and not the
// other (as many times).
func differing(a, b []Decision) map[attemptOf]bool {
	count := map[string]int{}
	of := map[string]attemptOf{}
	for _, d := range a {
		count[d.Line()]++
		of[d.Line()] = keyOf(d)
	}
	for _, d := range b {
		count[d.Line()]--
		of[d.Line()] = keyOf(d)
	}
	out := map[attemptOf]bool{}
	for l, n := range count {
		if n != 0 {
			out[of[l]] = true
		}
	}
	return out
}

// endsOther says whether ds holds the end of an attempt not in except.
func endsOther(ds []Decision, except map[attemptOf]bool) bool {
	for _, d := range ds {
		if d.Kind == End && !except[keyOf(d)] {
			return true
		}
	}
	return false
}

// Settle is the log with each attempt started and then moved or resized
// once in the same second taken as started where it stood at the
// second's end: one start on the nodes of its move or resize. Other
// lines are kept as they are, an attempt placed three times or more in
// one second too: which of its moves and resizes came last, neither log
// says.
func Settle(ds []Decision) []Decision {
	ds = slices.Clone(ds)
	Sort(ds)
	type group struct {
		at  int64
		key attemptOf
	}
	placing := map[group][]int{}
	for i, d := range ds {
		if d.Kind == Start || d.Kind == Move || d.Kind == Resize {
			g := group{d.At, keyOf(d)}
			placing[g] = append(placing[g], i)
		}
	}
	drop := map[int]bool{}
	for _, is := range placing {
		if len(is) == 2 && ds[is[0]].Kind == Start {
			ds[is[0]].Nodes = ds[is[1]].Nodes
			drop[is[1]] = true
		}
	}
	out := make([]Decision, 0, len(ds)-len(drop))
	for i, d := range ds {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return out
}
