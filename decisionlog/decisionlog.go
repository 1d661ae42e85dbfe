package decisionlog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a decision did.
type Kind uint8

// The kinds, in the order an attempt lives them (the order of lines at
// one time).
const (
	Kill Kind = iota + 1
	Start
	Preempt
	Move
	Resize
	End
)

var kindNames = [...]string{Kill: "kill", Start: "start", Preempt: "preempt", Move: "move", Resize: "resize", End: "end"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// How an attempt ended (End's How).
const (
	Completed = "completed"
	Preempted = "preempted"
	Killed    = "killed"
	TimeLimit = "timelimit"
	Failed    = "failed"
	// Lost: the attempt's node was lost (the master's attempt state
	// "lost", which it writes as it is).
	Lost = "lost"
)

// Node is an attempt's slots on one node.
type Node struct {
	Name  string
	Slots int
}

// Decision is one line of the log.
type Decision struct {
	At   int64 // seconds from time 0
	Kind Kind
	Job  string
	// Task and Attempt name the attempt (Task from 0, Attempt from 1);
	// both are ignored for Kill.
	Task, Attempt int
	Nodes         []Node // Start, Preempt, Move, Resize
	How           string // End
}

// Sort puts decisions in the log's order: by time, and within one second
// in the order things cause each other there (phase), then by job, task,
// attempt and kind.
func Sort(ds []Decision) {
	keys := phases(ds)
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(ds[a].At, ds[b].At); c != 0 {
			return c
		}
		if c := cmp.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return compare(ds[a], ds[b])
	})
	sorted := make([]Decision, len(ds))
	for i, j := range idx {
		sorted[i] = ds[j]
	}
	copy(ds, sorted)
}

// The phases of one second, in the order one causes the next: a job is
// killed; attempts end and let go of their slots (a kill's, a time
// limit's, a completion, a failure, a loss); a pass preempts, moves and
// resizes; the preempted attempts' checkpoints land; the pass (or the
// next one) starts tasks on what all that freed.
const (
	phaseKill = iota
	phaseEnd
	phasePreempt
	phaseReplace
	phaseLanded
	phaseStart
)

// phaseOf is a decision's phase taken alone.
func phaseOf(d Decision) int {
	switch d.Kind {
	case Kill:
		return phaseKill
	case Preempt:
		return phasePreempt
	case Move, Resize:
		return phaseReplace
	case Start:
		return phaseStart
	}
	if d.How == Preempted {
		return phaseLanded
	}
	return phaseEnd
}

// compare orders decisions of one time and phase: by job, the job's
// kill before its attempts' lines, then by task, attempt and kind in the
// order an attempt lives them.
func compare(a, b Decision) int {
	if c := strings.Compare(a.Job, b.Job); c != 0 {
		return c
	}
	if ka, kb := a.Kind == Kill, b.Kind == Kill; ka != kb {
		if ka {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.Task, b.Task); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Attempt, b.Attempt); c != 0 {
		return c
	}
	return cmp.Compare(a.Kind, b.Kind)
}

// attemptKey names an attempt's lines at one time.
type attemptKey struct {
	at            int64
	job           string
	task, attempt int
}

// phases gives each decision its phase, raised where an attempt lives
// more than one line in one second so that its lines keep the order it
// lived them (a start before the end of an attempt that failed at once,
// whose end alone would come first). It depends only on the set of
// decisions, as the order must.
func phases(ds []Decision) []int {
	keys := make([]int, len(ds))
	lines := map[attemptKey][]int{}
	for i, d := range ds {
		keys[i] = phaseOf(d)
		if d.Kind != Kill {
			k := attemptKey{d.At, d.Job, d.Task, d.Attempt}
			lines[k] = append(lines[k], i)
		}
	}
	for _, is := range lines {
		if len(is) < 2 {
			continue
		}
		slices.SortStableFunc(is, func(a, b int) int { return cmp.Compare(ds[a].Kind, ds[b].Kind) })
		for n := 1; n < len(is); n++ {
			keys[is[n]] = max(keys[is[n]], keys[is[n-1]])
		}
	}
	return keys
}

// Line is one decision as the log writes it, without a newline.
func (d Decision) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s", d.At, d.Kind, d.Job)
	if d.Kind == Kill {
		return b.String()
	}
	fmt.Fprintf(&b, " task=%d attempt=%d", d.Task, d.Attempt)
	if len(d.Nodes) > 0 {
		ns := slices.Clone(d.Nodes)
		slices.SortFunc(ns, func(x, y Node) int { return strings.Compare(x.Name, y.Name) })
		b.WriteString(" nodes=")
		for i, n := range ns {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%d", n.Name, n.Slots)
		}
	}
	if d.How != "" {
		b.WriteString(" how=" + d.How)
	}
	return b.String()
}

// Format writes the log: the decisions sorted (a copy; ds is left as
// it is), one line each.
func Format(ds []Decision) string {
	ds = slices.Clone(ds)
	Sort(ds)
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Line())
		b.WriteByte('\n')
	}
	return b.String()
}

// Diff is a unified-style diff of two logs' lines (a longest common
// subsequence, lines prefixed "-" for a only, "+" for b only, " " for
// both, with up to context lines of each unchanged run kept around the
// changes), or "" when they are equal.
func Diff(a, b string, context int) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	// lcs[i][j] is the length of the longest common subsequence of x[i:]
	// and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	for i, j := 0, 0; i < len(x) || j < len(y); {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out = append(out, "  "+x[i])
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+x[i])
			i++
		default:
			out = append(out, "+ "+y[j])
			j++
		}
	}
	return trimContext(out, context)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// trimContext keeps the changed lines and up to n unchanged ones on
// either side of each, marking what it dropped with "@@".
func trimContext(lines []string, n int) string {
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if l[0] == ' ' {
			continue
		}
		for k := max(0, i-n); k <= min(len(lines)-1, i+n); k++ {
			keep[k] = true
		}
	}
	var b strings.Builder
	skipped := false
	for i, l := range lines {
		if !keep[i] {
			skipped = true
			continue
		}
		if skipped {
			b.WriteString("@@\n")
		}
		skipped = false
		b.WriteString(l + "\n")
	}
	if skipped {
		b.WriteString("@@\n")
	}
	return b.String()
}
