package sim

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/plural"
)

// WriteReport prints a result for people: one row per job (when the
// result has them), then the cluster metrics, then each experiment's
// search (which trials its searcher promoted and stopped, rung by rung),
// then why each still-waiting job waits.
func WriteReport(w io.Writer, res *Result) error {
	if len(res.Jobs) > 0 {
		if err := writeJobs(w, res.Jobs); err != nil {
			return err
		}
	}
	m := res.Metrics
	fmt.Fprintf(w, "makespan     %s\n", Duration(float64(m.Makespan)))
	fmt.Fprintf(w, "utilisation  %.1f%%\n", 100*m.Utilization)
	fmt.Fprintf(w, "avg wait     %s\n", Duration(m.AvgWait))
	fmt.Fprintf(w, "avg JCT      %s\n", endedOr(&m, Duration(m.AvgJCT)))
	fmt.Fprintf(w, "preemptions  %d\n", m.Preemptions)
	writeDetails(w, &m)
	writeProjects(w, res.Projects)
	writeAccounts(w, res.Accounts, m.Accounts)
	for _, j := range res.Jobs {
		if j.Search != nil {
			fmt.Fprintln(w)
			writeSearch(w, j.Name, j.Search)
		}
	}
	var waiting []string
	for _, j := range res.Jobs {
		if j.Reason != "" {
			waiting = append(waiting, fmt.Sprintf("  %s: %s", j.Name, j.Reason))
		}
	}
	if len(waiting) > 0 {
		fmt.Fprintf(w, "\nstill waiting at %s:\n%s\n", Duration(float64(res.End)), strings.Join(waiting, "\n"))
	}
	return nil
}

// ended reports whether some job ended, so that the figures over ended
// jobs (JCT, slowdown) mean something: a run cut off before any job ended
// would print 0s, which reads as instant.
func ended(m *Metrics) bool { return m.AnyEnded() }

// AnyEnded reports whether some job ended (completed, killed or failed):
// without one, the figures over ended jobs (avg_jct, jct,
// bounded_slowdown) are undefined, not 0; reports print "-" for them and
// the JSON null.
func (m *Metrics) AnyEnded() bool { return m.Completed+m.Killed+m.Failed > 0 }

// endedOr is s when some job ended, else "-".
func endedOr(m *Metrics, s string) string {
	if ended(m) {
		return s
	}
	return "-"
}

// writeDetails prints the distributions, queue and fairness metrics.
func writeDetails(w io.Writer, m *Metrics) {
	fmt.Fprintf(w, "jobs         %s\n", jobCounts(m))
	dist := func(label string, d metrics.Dist, format func(float64) string) {
		fmt.Fprintf(w, "%-12s p50 %s  p90 %s  p99 %s  max %s\n", label,
			format(d.P50), format(d.P90), format(d.P99), format(d.Max))
	}
	dist("wait", m.Wait, Duration)
	if ended(m) {
		dist("JCT", m.JCT, Duration)
	} else {
		fmt.Fprintf(w, "%-12s - (no job ended)\n", "JCT")
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	// One precision for the whole line, so that its figures line up in
	// the reader's eye (the shortest form gave 590.054 beside 1870.3).
	sd := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	if ended(m) {
		fmt.Fprintf(w, "slowdown     mean %s  p50 %s  p90 %s  p99 %s  max %s (bounded: max(1, JCT / max(run, 10s)))\n",
			sd(m.BoundedSlowdown.Mean), sd(m.BoundedSlowdown.P50), sd(m.BoundedSlowdown.P90),
			sd(m.BoundedSlowdown.P99), sd(m.BoundedSlowdown.Max))
	} else {
		fmt.Fprintf(w, "slowdown     - (no job ended)\n")
	}
	fmt.Fprintf(w, "queue        mean %s, max %d\n", numCount(m.AvgQueue, "job"), m.MaxQueue)
	if m.Preemptions > 0 || m.Requeues > 0 || m.PreemptionLostSlotHours > 0 {
		fmt.Fprintf(w, "lost         %s checkpointing after %s\n", numCount(m.PreemptionLostSlotHours, "slot-hour"), checkpointedAfter(m))
	}
	if m.LostWorkSlotHours > 0 {
		fmt.Fprintf(w, "lost work    %s since the last checkpoints (preempted or lost)\n", numCount(m.LostWorkSlotHours, "slot-hour"))
	}
	if m.Moves > 0 {
		fmt.Fprintf(w, "moved        %s (consolidation)\n", plural.Count(m.Moves, "task"))
	}
	if m.Resizes > 0 {
		fmt.Fprintf(w, "resized      %s\n", resizedText(m))
	}
	fmt.Fprintf(w, "fairness     Jain %s over %s\n", num(m.JainFairness), plural.Count(len(m.Projects), "project"))
	if len(m.Accounts) > 0 {
		fmt.Fprintf(w, "fairness     Jain %s over %s (received ÷ entitled by shares)\n", num(m.JainFairnessAccounts),
			plural.Count(ChargedAccounts(m), "account"))
	}
}

// ChargedAccounts counts the accounts of Metrics.JainFairnessAccounts:
// those that jobs charged.
func ChargedAccounts(m *Metrics) int {
	n := 0
	for _, a := range m.Accounts {
		if a.Charged {
			n++
		}
	}
	return n
}

// checkpointedAfter names what the checkpoints of
// PreemptionLostSlotHours followed, of preemptions, requeues, moves and
// resizes,
// those that happened: "preemption", "resize", "preemption or resize".
func checkpointedAfter(m *Metrics) string {
	var kinds []string
	for _, k := range []struct {
		n    int
		what string
	}{{m.Preemptions, "preemption"}, {m.Requeues, "requeue"}, {m.Moves, "move"}, {m.Resizes, "resize"}} {
		if k.n > 0 {
			kinds = append(kinds, k.what)
		}
	}
	switch len(kinds) {
	case 0:
		return "preemption, move or resize"
	case 1:
		return kinds[0]
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " or " + kinds[len(kinds)-1]
}

// resizedText says the elastic tasks resized in place, shrinks (for
// another job) and growths apart: "1 elastic task shrunk for another
// job, 1 grown", "2 elastic tasks grown".
func resizedText(m *Metrics) string {
	grown := m.Resizes - m.Shrinks
	if m.Shrinks == 0 {
		return plural.Count(grown, "elastic task") + " grown"
	}
	s := plural.Count(m.Shrinks, "elastic task") + " shrunk for another job"
	if m.Shrinks > 1 {
		s = plural.Count(m.Shrinks, "elastic task") + " shrunk for other jobs"
	}
	if grown > 0 {
		s += fmt.Sprintf(", %d grown", grown)
	}
	return s
}

// jobCounts says how the submitted jobs ended: "11 submitted: 8
// completed, 3 killed (1 at its time limit), 0 unfinished". Each job is
// killed at its own time limit, so several are "at their time limits";
// failed jobs are named only when there are some.
func jobCounts(m *Metrics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d submitted: %d completed, %d killed", m.Jobs, m.Completed, m.Killed)
	switch {
	case m.Killed == 0:
	case m.TimeLimitKills == 0:
		b.WriteString(" (none at a time limit)")
	case m.TimeLimitKills == 1:
		b.WriteString(" (1 at its time limit)")
	default:
		fmt.Fprintf(&b, " (%d at their time limits)", m.TimeLimitKills)
	}
	if m.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", m.Failed)
	}
	fmt.Fprintf(&b, ", %d unfinished", m.Unfinished)
	return b.String()
}

// numCount renders a measured amount with its noun: "1 slot-hour", "0.5
// slot-hours", as plural.Count does for whole counts. It keeps two
// decimals, as the GPU-hours of writeProjects do: the result holds six,
// which read as noise ("3.866667 slot-hours"). An amount too small to
// show in two decimals reads "<0.01", not a 0 that denies it.
func numCount(x float64, noun string) string {
	r := round(x, 2)
	s := strconv.FormatFloat(r, 'f', -1, 64)
	if r == 0 && x > 0 {
		s = "<0.01"
	}
	n := 2
	if r == 1 || r == -1 {
		n = 1
	}
	return s + " " + plural.Noun(n, noun)
}

// writeJobs prints one row per job; a PRIORITY column when some job ran
// in a multifactor pool. Its times are in Duration's form, as the
// metrics below it: a wait of 5h40m in the table and "max 5.7h" under it
// read as two numbers; --json keeps the exact seconds.
func writeJobs(w io.Writer, jobs []JobResult) error {
	prio := false
	for _, j := range jobs {
		prio = prio || j.Priority != nil
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	head := "JOB\tSTATE\tSUBMIT\tSTART\tEND\tWAIT\tPREEMPTIONS"
	if prio {
		head += "\tPRIORITY"
	}
	fmt.Fprintln(tw, head)
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d", j.Name, j.State, Duration(float64(j.Submit)),
			durationPtr(j.Start), durationPtr(j.End), durationPtr(j.Wait), j.Preemptions)
		if prio {
			p := "-"
			if j.Priority != nil {
				p = strconv.FormatFloat(*j.Priority, 'g', 6, 64)
			}
			fmt.Fprintf(tw, "\t%s", p)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// writeAccounts prints each fair-share account's decayed usage. An
// account with sub-accounts gives its subtree's, as allot usage does on
// the live cluster, and its own beside it: the JSON result's usage is
// its own only, which read alone makes a project whose users did the
// work look idle. Then, for an account in fair (the accounts' fairness),
// the slot-hours its subtree received and was entitled to.
func writeAccounts(w io.Writer, as []AccountResult, fair []metrics.AccountSummary) {
	got := make(map[string]*metrics.AccountSummary, len(fair))
	for i := range fair {
		got[fair[i].Name] = &fair[i]
	}
	tree := map[string]float64{}
	parent := map[string]string{}
	for _, a := range as {
		parent[a.Name] = a.Parent
	}
	hasSub := map[string]bool{}
	for _, a := range as {
		tree[a.Name] += a.Usage
		for p, seen := a.Parent, 0; p != "" && seen < len(as); p, seen = parent[p], seen+1 {
			tree[p] += a.Usage
			hasSub[p] = true
		}
	}
	num := func(v float64) string { return strconv.FormatFloat(round(v, 4), 'f', -1, 64) }
	for _, a := range as {
		fmt.Fprintf(w, "account      %s (shares %s): usage %s", a.Name, strconv.FormatFloat(a.Shares, 'f', -1, 64), num(tree[a.Name]))
		if hasSub[a.Name] {
			fmt.Fprintf(w, " with its sub-accounts (own %s)", num(a.Usage))
		}
		if f := got[a.Name]; f != nil {
			fmt.Fprintf(w, "; received %s of %s entitled (%s)", numCount(f.SlotHours, "slot-hour"),
				strconv.FormatFloat(round(f.EntitledSlotHours, 2), 'f', -1, 64), num(f.ShareRatio))
		}
		fmt.Fprintln(w)
	}
}

// Duration formats an amount of time for reading, to one decimal of its
// largest unit: 45s, 12.5m, 3.2h, 4.1d. It is the one format of the
// durations the simulator's readable outputs print (this report, the
// comparison table and its charts), so that a makespan reads the same in
// both: a span of years in Clock's form ("17507h2m3s") is unreadable.
func Duration(sec float64) string {
	switch a := math.Abs(sec); {
	case a < 60:
		return trimDecimals(math.Round(sec*10)/10) + "s"
	case a < 3600:
		return trimDecimals(math.Round(sec/6)/10) + "m"
	case a < 86400:
		return trimDecimals(math.Round(sec/360)/10) + "h"
	default:
		return trimDecimals(math.Round(sec/8640)/10) + "d"
	}
}

// trimDecimals prints a number with at most three decimals and no
// trailing zeros.
func trimDecimals(x float64) string {
	s := strconv.FormatFloat(x, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Clock formats seconds exactly: 0, 45s, 2h, 1h30m, as a scenario's own
// times are written, for messages that point into a scenario (the event
// at 1h30m); Duration rounds, for the report.
func Clock(sec int64) string {
	if sec == 0 {
		return "0"
	}
	s := (time.Duration(sec) * time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func durationPtr(p *int64) string {
	if p == nil {
		return "-"
	}
	return Duration(float64(*p))
}

// writeProjects prints each quota project's quota and the GPU time it used.
func writeProjects(w io.Writer, ps []ProjectResult) {
	for _, p := range ps {
		limit := ""
		if p.Limit > 0 {
			limit = fmt.Sprintf(", limit %d", p.Limit)
		}
		fmt.Fprintf(w, "%-12s %s (quota %d%s): %s GPU-hours\n", p.Kind, p.Name, p.Quota, limit,
			strconv.FormatFloat(round(float64(p.GPUSeconds)/3600, 2), 'f', -1, 64))
	}
}
