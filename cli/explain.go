package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

func newExplainCmd() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:   "explain ID",
		Short: "Explain why a job waits and what would let it start",
		Long: `Explain a job from the master's last scheduling pass: its place in its
pool's queue and how the pool orders it, the jobs ahead, the reason it did
not start, the multifactor priority factor by factor (multifactor pools),
and a counterfactual: the least that would let it start now — the running
jobs that would have to end or be preempted and on which node, the quota
or limit that binds, the jobs holding a license it waits for, or the
constraint no node meets. The answer is played out with the scheduling
core, so that it counts the jobs the pool serves before it: where they
would take what the running jobs free, it names the running jobs whose
ends let it start after them, and those jobs ("the pool's order serves
these first"); where no end alone would start it, those jobs alone. In
backfill pools it replays the head's reservation (a job the ends would
fit but that would delay it is told so); in fair-share pools it calls a
job preemptible only when the share rule could take it, and names a
shrink under way as one. A running elastic job held below its size is
told what it holds and which growth rule keeps it there; one whose task
is being resized, from and to how many slots, for which job. Preempted
attempts say which job took their GPUs and under which rule; resized
ones (an elastic task shrunk for another job, or grown) are listed apart.`,
		Example:           "  allot explain 42\n  allot explain 42 -o json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeJobID,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runOne(cmd, &out, func(ctx context.Context, c *client.Client) (any, error) {
				return c.Explain(ctx, id)
			}, func(w io.Writer, v any) error { return printExplanation(w, v.(api.Explanation)) })
		},
	}
	out.register(cmd)
	return cmd
}

// printDryRun prints what a submission would get, in explain's layout,
// with explain's "What would let it start now" for a job that would
// wait; its times count from the master's as_of, as explain's do.
func printDryRun(w io.Writer, d api.DryRun) error {
	ref := d.AsOf
	if ref.IsZero() {
		ref = now()
	}
	name := d.Name
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(w, "Dry run: job %s would be accepted (pool %s, project %s, %s of %s)\n\n%s\n\n",
		name, d.Pool, orDash(d.Project), plural.Count(d.Tasks, "task"), plural.Count(d.Slots, "slot"), wrap(d.Summary, 76))
	// The time limit as the master read it: -t 1:30 is 90 s, as in
	// Slurm. "Time limit", as allot job show says, not "Limit": the
	// summary above may speak of its project's limit of GPUs (trial
	// 2026-11-29e E6).
	limit := "none"
	if d.TimeLimitS > 0 {
		limit = humanDur(time.Duration(d.TimeLimitS) * time.Second)
	}
	fmt.Fprintf(w, "Time limit: %s\n", limit)
	fmt.Fprintf(w, "Queue:      %d of %d\n", d.Position, d.Queued+1)
	switch p := d.Pending; {
	case d.StartsNow:
		fmt.Fprintf(w, "Start:      now\n")
	case p != nil:
		fmt.Fprintf(w, "Reason:     %s: %s\n", p.Reason, p.Message)
		if p.BlockedBy != 0 {
			fmt.Fprintf(w, "Blocked:    by %s\n", blockerText(p))
		}
		fmt.Fprintf(w, "Start:      %s\n", waitStartText(p, d.WouldStart, ref))
	}
	if len(d.Preempts) > 0 {
		fmt.Fprintln(w, "\nWould preempt:")
		t := newTable(w, "  JOB", "NAME", "USER", "TASKS", "SLOTS", "WHY")
		for _, v := range d.Preempts {
			t.row("  "+strconv.FormatInt(v.Job, 10), refName(v.Name, v.Private), orDash(v.User), strconv.Itoa(v.Tasks),
				strconv.Itoa(v.Slots), v.Why)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(d.Resizes) > 0 {
		if err := printResizes(w, d.Resizes); err != nil {
			return err
		}
	}
	// A job that would preempt or shrink waits only for the checkpoints
	// (an older master sent what would let it start all the same).
	if cf := d.WouldStart; cf != nil && !d.StartsNow && len(d.Preempts) == 0 && len(d.Resizes) == 0 {
		if err := printWouldStart(w, cf, ref, d.Summary); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, "Nothing was submitted.")
	return err
}

// printResizes is a dry run's "Would resize" table: the running tasks
// that would shrink to give the job slots, from and to how many.
func printResizes(w io.Writer, rs []api.DryRunResize) error {
	fmt.Fprintln(w, "\nWould resize:")
	t := newTable(w, "  JOB", "NAME", "USER", "SLOTS", "WHY")
	for _, r := range rs {
		t.row("  "+strconv.FormatInt(r.Job, 10), refName(r.Name, r.Private), orDash(r.User),
			fmt.Sprintf("%d → %d", r.From, r.To), r.Why)
	}
	return t.flush()
}

// printExplanation prints an explanation; its times count from the
// master's as_of, as the countdowns in its messages do (from the client's
// clock for a master that does not send it), so that the reason's "in 9m
// 57s" and the Start line agree.
func printExplanation(w io.Writer, x api.Explanation) error {
	ref := x.AsOf
	if ref.IsZero() {
		ref = now()
	}
	state := x.State
	switch {
	case state == "queued" && x.Pending != nil && x.Pending.Reason == api.JobStateHeld:
		state = api.JobStateHeld // as allot jobs shows it (trial 2026-11-29c C4)
	case state != "running":
	case x.Resizing != nil:
		state = api.JobStateResizing
	case x.Preempting != nil:
		state = api.JobStatePreempting
	}
	fmt.Fprintf(w, "Job %d (%s, pool %s, %s)\n\n%s\n", x.Job, state, x.Pool, x.Policy, wrap(x.Summary, 76))
	if x.Position > 0 {
		fmt.Fprintf(w, "\nQueue:    %d of %d, ordered %s\n", x.Position, x.Queued, x.Order)
	}
	if len(x.Ahead) > 0 {
		var refs []string
		for _, a := range x.Ahead {
			who := orDash(a.User)
			if a.Private {
				who = strings.Trim(privateName, "()")
			}
			refs = append(refs, strings.Join(strings.Fields(fmt.Sprintf("%d %s (%s, %s)", a.ID, a.Name, who, plural.Count(a.Slots, "slot"))), " "))
		}
		fmt.Fprintf(w, "Ahead:    %s\n", strings.Join(refs, "; "))
	}
	if p := x.Pending; p != nil {
		fmt.Fprintf(w, "Reason:   %s: %s\n", p.Reason, p.Message)
		if p.BlockedBy != 0 {
			fmt.Fprintf(w, "Blocked:  by %s\n", blockerText(p))
		}
		// "Until when?" is the first thing a waiting user asks: with no
		// estimate the line says why (the job without a time limit that
		// must end, never on today's nodes), as the dry run's does.
		if text := knownStartText(p, x.WouldStart, ref); text != "" {
			fmt.Fprintf(w, "Start:    %s\n", text)
		}
	}
	if f := x.Factors; f != nil {
		fmt.Fprintf(w, "Priority: %.4f (age %.3f, fair share %.3f, size %.3f, QOS %.3f, pool %.3f, nice %d)\n",
			f.Priority, f.Age, f.FairShare, f.JobSize, f.QOS, f.Pool, f.Nice)
		// Where the user ranks and how usage decays: members cannot
		// read the configuration (trial 2026-11-29i I14).
		if x.FairShareNote != "" {
			note := fmt.Sprintf("fair share %.3f (%s)", f.FairShare, x.FairShareNote)
			fmt.Fprintf(w, "          %s\n", strings.ReplaceAll(wrap(note, 66), "\n", "\n          "))
		}
	}
	if cf := x.WouldStart; cf != nil {
		if err := printWouldStart(w, cf, ref, x.Summary); err != nil {
			return err
		}
	}
	printStops(w, x)
	return nil
}

// printStops is explain's history of the job's attempts that stopped
// without ending it: preempted, lost with their nodes, stopped by the
// agents' fence or as their agents stopped, resized.
func printStops(w io.Writer, x api.Explanation) {
	switch {
	case len(x.Preempted) > 0:
		fmt.Fprintln(w, "\nPreempted:")
		for _, p := range x.Preempted {
			fmt.Fprintf(w, "  task %d attempt %d at %s: %s\n", p.Task, p.Attempt, formatTime(&p.At), p.Why)
		}
	case len(x.Preemptions) > 0:
		// A master older than the structured list: its lines as they came.
		fmt.Fprintln(w, "\nPreempted:")
		for _, p := range x.Preemptions {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if len(x.Lost) > 0 {
		fmt.Fprintln(w, "\nLost with their nodes:")
		for _, p := range x.Lost {
			why := p.Why
			if p.Stopped != "" {
				why += "; " + lostStoppedText(&p.At, p.ExitedAt, p.Stopped)
			}
			fmt.Fprintf(w, "  task %d attempt %d at %s: %s\n", p.Task, p.Attempt, formatTime(&p.At), why)
		}
	}
	if len(x.Fenced) > 0 {
		fmt.Fprintln(w, "\nStopped while the master was unreachable (the agents' fence):")
		for _, p := range x.Fenced {
			fmt.Fprintf(w, "  task %d attempt %d at %s: %s\n", p.Task, p.Attempt, fencedWhen(p), p.Why)
		}
	}
	if len(x.AgentStopped) > 0 {
		fmt.Fprintln(w, "\nStopped as their nodes' agents stopped:")
		for _, p := range x.AgentStopped {
			fmt.Fprintf(w, "  task %d attempt %d at %s: %s\n", p.Task, p.Attempt, formatTime(&p.At), p.Why)
		}
	}
	if len(x.Resized) > 0 {
		fmt.Fprintln(w, "\nResized:")
		for _, r := range x.Resized {
			fmt.Fprintf(w, "  task %d attempt %d at %s: %s\n", r.Task, r.Attempt, formatTime(&r.At), r.Why)
		}
	}
}

// printWouldStart is explain's "What would let it start now" section;
// summary is what was printed above it, whose quota sentence is not
// printed again.
func printWouldStart(w io.Writer, cf *api.Counterfactual, ref time.Time, summary string) error {
	fmt.Fprintln(w, "\nWhat would let it start now:")
	switch {
	case cf.Never != "" && strings.Contains(summary, cf.Never):
		// Said in full above (trial 2026-11-29f F3).
		fmt.Fprintln(w, "  nothing on today's nodes, as said above")
	case cf.Never != "":
		fmt.Fprintf(w, "  nothing on today's nodes: %s\n", cf.Never)
	case cf.Limit != "":
		// A master since 2026-11-29 (trial j J2) leaves the message to
		// this section; an older one said it in the summary.
		if cf.Message != "" && !strings.Contains(summary, cf.Message) {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(wrap(cf.Message, 74), "\n", "\n  "))
		}
		fmt.Fprintf(w, "  one of its own tasks ending: %s\n", cf.Limit)
	case len(cf.MustEnd) == 0:
		// No job must end: the slots are free now (and the master's words
		// say what holds it back then: a job before it, a rule), or there
		// is no node to name (the pool's nodes are drained, or the jobs
		// served first would take what any end frees). Its quota below.
		msg := cf.Message
		if cf.Quota != "" {
			msg = strings.TrimSuffix(msg, " "+cf.Quota)
		}
		if msg == "" {
			msg = "it fits now on " + strings.Join(cf.Nodes, ", ")
		}
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(wrap(msg, 74), "\n", "\n  "))
	default:
		if err := printMustEnd(w, cf, ref); err != nil {
			return err
		}
	}
	if len(cf.StartFirst) > 0 {
		if err := printStartFirst(w, cf); err != nil {
			return err
		}
	}
	if cf.Quota != "" && !strings.Contains(summary, cf.Quota) {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(wrap(cf.Quota, 74), "\n", "\n  "))
	}
	return nil
}

// printStartFirst prints the jobs the pool's order serves before the job
// (Counterfactual.StartFirst): with jobs that must end, those that would
// take some of what they free; without, those it waits behind whatever
// ends.
func printStartFirst(w io.Writer, cf *api.Counterfactual) error {
	if len(cf.MustEnd) > 0 {
		fmt.Fprintln(w, "  the pool's order serves these first, taking some of what they free:")
	} else {
		fmt.Fprintln(w, "  the pool's order serves these first, whatever ends:")
	}
	t := newTable(w, "  JOB", "NAME", "USER", "PROJECT", "SLOTS")
	for _, r := range cf.StartFirst {
		t.row("  "+strconv.FormatInt(r.ID, 10), refName(r.Name, r.Private), orDash(r.User), orDash(r.Project), strconv.Itoa(r.Slots))
	}
	return t.flush()
}

// endsColumn is the heading of the column of when each job in refs
// lets go of its GPUs: LIMIT ENDS, its time limit's end; CHECKPOINT BY
// where every one is being preempted and the master gives the deadline
// of its checkpoints (JobRef.CheckpointBy); FREES BY where some are and
// some are not, each row its own.
func endsColumn(refs []api.JobRef) string {
	by := 0
	for _, r := range refs {
		if r.CheckpointBy != nil {
			by++
		}
	}
	switch by {
	case 0:
		return "LIMIT ENDS"
	case len(refs):
		return "CHECKPOINT BY"
	}
	return "FREES BY"
}

// privateName stands for the name of a job the caller may not read: the
// master sends its number, project and slots only (api.JobRef.Private).
const privateName = "(another project's job)"

// refName is a referenced job's name for a table column: never empty.
func refName(name string, private bool) string {
	if private {
		return privateName
	}
	return orDash(name)
}

// blockerText names the job p is blocked by, as another project's when
// the caller may not read it.
func blockerText(p *api.Pending) string {
	s := fmt.Sprintf("job %d", p.BlockedBy)
	if p.BlockedByPrivate {
		s += " " + privateName
	}
	return s
}

// kindResize is waitKind's kind of a job being resized.
const kindResize = "resize"

// waitKind is what the job waits for of r, for the table's columns: its
// Preempt, or kindResize for a job being resized rather than preempted.
func waitKind(r api.JobRef) string {
	if r.Preempt == api.PreemptUnderWay && r.Resize != nil {
		return kindResize
	}
	return r.Preempt
}

// mustEndWaitFor says what the job waits for of a job in MustEnd.
func mustEndWaitFor(r api.JobRef) string {
	if waitKind(r) == kindResize {
		return fmt.Sprintf("its shrink to %s", plural.Count(r.Resize.To, "slot"))
	}
	switch r.Preempt {
	case api.PreemptPossible:
		return "its end or preemption"
	case api.PreemptUnderWay:
		return "its preemption"
	}
	return "its end"
}

// waitStartText is the Start line of a waiting job: its estimate; else the
// soonest it could start where it would (cf.NotBefore), when the jobs
// that must end there reach their time limits; else why there is none,
// by the cause the counterfactual names.
func waitStartText(p *api.Pending, cf *api.Counterfactual, ref time.Time) string {
	if text := knownStartText(p, cf, ref); text != "" {
		return text
	}
	if cf != nil && cf.Limit != "" {
		// Its own cap holds it, not another job (trial 2026-11-29j J2).
		return "unknown: when one of its own tasks ends (" + cf.Limit + ")"
	}
	return "unknown (a task without a time limit stands in the way)"
}

// knownStartText is waitStartText where it has something to say of the
// job's own case: an estimate, never, not before, the job without a time
// limit that must end, or a wait for nothing to name; "" otherwise.
// explain prints its Start line only then, since the section below
// names what must end.
func knownStartText(p *api.Pending, cf *api.Counterfactual, ref time.Time) string {
	switch {
	case p != nil && p.EstimatedStart != nil && p.EstimateBasis == basisCheckpoint:
		return checkpointStartText(*p.EstimatedStart, cf, ref)
	case p != nil && p.EstimatedStart != nil:
		return estimateText(p, ref)
	case cf == nil:
		return ""
	case cf.Never != "":
		return "never on today's nodes"
	case cf.NotBefore != nil:
		return "not before " + whenFrom(*cf.NotBefore, ref) +
			", when the jobs that must end reach their time limits (the forecast gives no estimate)"
	default:
		for _, r := range cf.MustEnd {
			if r.Preempt == "" && r.EndsAt == nil {
				return fmt.Sprintf("unknown (job %d, which must end for it, has no time limit)", r.ID)
			}
		}
		if len(cf.MustEnd) == 0 && len(cf.Nodes) == 0 && cf.Limit == "" {
			// No node to name and no job to wait for (drained nodes, the
			// zero-slot limit): the section's message says what it waits
			// for, as the dashboard says.
			return "unknown: see what would let it start, below"
		}
	}
	return ""
}

// estimateText is the Start line: a reservation's start, or a forecast
// marked as one and, when the master gives its early end, as the range
// that allot jobs and the dashboard show, so that the three agree.
func estimateText(p *api.Pending, ref time.Time) string {
	s := whenFrom(*p.EstimatedStart, ref)
	if e := p.EstimatedStartEarliest; e != nil && e.Before(*p.EstimatedStart) {
		s = whenFrom(*e, ref) + " to " + s
	}
	if p.EstimateBasis == "forecast" {
		s += ", a forecast"
	}
	return s
}

// checkpointStartText is the Start line of a job waiting for the
// checkpoints of jobs being preempted for it: "by 2026-11-28 09:10:57 (in
// 20s), when job 16's checkpoint grace ends", naming the jobs of the
// table below (cf.MustEnd) whose deadline is the estimate's; once it has
// passed (the master's kill is sent, the agents have not yet confirmed
// the end), "now: ... ended at ...".
func checkpointStartText(at time.Time, cf *api.Counterfactual, ref time.Time) string {
	var ids []string
	var due time.Time
	if cf != nil {
		for _, r := range cf.MustEnd {
			if r.CheckpointBy == nil {
				continue
			}
			switch by := *r.CheckpointBy; {
			case by.After(due):
				due, ids = by, []string{strconv.FormatInt(r.ID, 10)}
			case by.Equal(due):
				ids = append(ids, strconv.FormatInt(r.ID, 10))
			}
		}
	}
	whose := "the preempted tasks' checkpoint grace"
	if len(ids) > 0 {
		whose = plural.Noun(len(ids), "job") + " " + strings.Join(ids, ", ") + "'s checkpoint grace"
	}
	if !due.IsZero() && due.Before(ref) {
		return fmt.Sprintf("now: %s ended %s; it starts once the end is confirmed", whose, whenSecFrom(due, ref))
	}
	if !at.After(ref) {
		return "now: " + whose + " has ended; it starts once the end is confirmed"
	}
	return "by " + whenSecFrom(at, ref) + ", when " + whose + " ends"
}

// whenSecFrom is whenFrom to the second, for a deadline seconds away:
// "2026-11-28 09:10:57 (in 20s)".
func whenSecFrom(t, ref time.Time) string {
	s := whenFrom(t, ref)
	return t.In(displayZone).Format("2006-01-02 15:04:05") + s[len("2006-01-02 15:04"):]
}

// when shows a time as a local date-time with how far it is from now:
// "2026-11-26 14:02 (in 2h 10m)".
func when(t time.Time) string { return whenFrom(t, now()) }

// whenFrom is when, counted from ref rather than the client's clock.
func whenFrom(t, ref time.Time) string {
	d := t.Sub(ref).Round(time.Second)
	rel := "now"
	switch {
	case d > 0:
		rel = "in " + humanDur(d)
	case d < 0:
		rel = humanDur(-d) + " ago"
	}
	return t.In(displayZone).Format("2006-01-02 15:04") + " (" + rel + ")"
}

func humanDur(d time.Duration) string { return sched.HumanDuration(int64(d / time.Second)) }

// wrap breaks text into lines of at most width runes at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// fencedWhen dates an attempt its agent's fence stopped by the stop (its
// exit), then when the master came back (its start, from the audit log)
// and when its report arrived: "2026-11-29 01:22:00 (master back at
// 01:22:35, reported at 01:22:46)"; "reported at" alone where the master
// did not restart (or an older master does not say). The master's end
// alone when it has no exit, or one no earlier (a master that took the
// agent's registration for the attempt still running).
func fencedWhen(p api.Preemption) string {
	if p.ExitedAt == nil || p.At.Sub(*p.ExitedAt) < time.Second {
		return formatTime(&p.At)
	}
	layout := "15:04:05"
	if e, x := p.At.In(displayZone), p.ExitedAt.In(displayZone); e.YearDay() != x.YearDay() || e.Year() != x.Year() {
		layout = "2006-01-02 15:04:05"
	}
	reported := "reported at " + p.At.In(displayZone).Format(layout)
	if p.MasterBack != nil {
		return formatTime(p.ExitedAt) + " (master back at " + p.MasterBack.In(displayZone).Format(layout) + ", " + reported + ")"
	}
	return formatTime(p.ExitedAt) + " (" + reported + ")"
}
