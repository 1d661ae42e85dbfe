package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
)

// Job states as the API shows them; the last three are terminal. allot
// jobs --state takes killing too (listStates, jobstate.go).
var (
	jobStates      = []string{"queued", "running", "completed", "failed", "killed"}
	terminalStates = []string{"completed", "failed", "killed"}
)

type jobsFlags struct {
	out                                     outputFlag
	columns                                 columnsFlag
	all                                     bool
	pool, project, state, user, node, since string
	watch, subprojects                      bool
	interval                                time.Duration
	// estimate picks START: the range, or one end of it.
	estimate string
}

// estimateKinds are --estimate's values.
var estimateKinds = []string{"range", "limit", "typical"}

// jobsPageSize is how many ended jobs allot jobs asks for at a time.
const jobsPageSize = 500

func newJobsCmd() *cobra.Command {
	var f jobsFlags
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List the queue in scheduling order",
		Long: `List jobs in scheduling order with their place in their pool's queue and,
for waiting jobs, why they wait. By default only queued and running jobs
are shown, and killing ones: jobs whose tasks are all being killed (a
kill, a time limit, a gang's failed part) but still hold their GPUs
until their agents confirm the end; --all adds completed, failed and
killed ones, newest first, and --state shows one state (killed and
running include the killing jobs stored so); it takes squeue's words
too: pending or PD (queued), R, CG (killing), CD, F and CA (killed), in
any case. --node shows the jobs with a task on that
node now; --since those submitted since a time; --project with
--subprojects the jobs of a project and of the projects under it, as
allot projects counts them; where you have no role, only your own jobs
are listed, and a note on stderr says so. An unfiltered table (a --pool
aside) of a user who may not read every project ends with a note on
stderr counting the queued jobs and running tasks of other projects it
leaves out, and which pools are full. Ended jobs are fetched a
page at a time, so that a master with a long history answers each request
quickly.

A filter that names no pool, project, user or node the master knows is an
error that lists the valid values. --columns ID,NAME,STATE prints only
those columns, in that order (any of the -o wide table's, in any case;
squeue -o "%i %j %T"). --watch polls the master every
--interval and prints the list again when it changes (on a terminal,
redrawn in place) until Ctrl-C.`,
		Example: `  allot jobs
  allot jobs --pool research --project vision
  allot jobs --project ml --subprojects
  allot jobs --node dgx-1 -o wide
  allot jobs --columns id,name,state,nodes
  allot jobs -u ana --state pending
  allot jobs --watch
  allot jobs --all --since 7d -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runJobs(cmd, f)
		},
	}
	f.out.register(cmd)
	f.columns.register(cmd, jobsColumns)
	fl := cmd.Flags()
	fl.BoolVar(&f.all, "all", false, "include completed, failed and killed jobs")
	fl.StringVarP(&f.pool, "pool", "p", "", "only jobs of this pool (squeue -p)")
	fl.StringVarP(&f.project, "project", "A", "", "only jobs of this project (squeue -A)")
	fl.BoolVar(&f.subprojects, "subprojects", false, "with --project, the jobs of the projects under it too")
	fl.StringVarP(&f.state, "state", "t", "", "only jobs in this state (squeue -t): queued, held (queued and held, which queued lists too), running, killing (tasks still stopping), completed, failed or killed (running takes the jobs shown resizing, moving or preempting); or Slurm's pending (PD), R, CG, CD, F, CA; all is --all")
	fl.StringVarP(&f.user, "user", "u", "", "only jobs of this user (squeue -u)")
	fl.StringVar(&f.estimate, "estimate", "range", "START shows the forecast's range, or the start if jobs run their whole time limits (limit) or their typical share of them (typical)")
	fl.StringVar(&f.node, "node", "", "only jobs with a task on this node now")
	fl.StringVarP(&f.since, "since", "S", "", "only jobs submitted since: "+whenHelp)
	fl.BoolVarP(&f.watch, "watch", "w", false, "poll and print the list again when it changes, until Ctrl-C")
	fl.DurationVar(&f.interval, "interval", 2*time.Second, "how often --watch polls")
	registerJobsCompletion(cmd)
	registerNoHeaders(cmd)
	return cmd
}

func runJobs(cmd *cobra.Command, f jobsFlags) error {
	if err := f.out.check(); err != nil {
		return err
	}
	if err := f.columns.check(f.out); err != nil {
		return err
	}
	if strings.EqualFold(f.state, "all") {
		// squeue -t all: every state, as --all (trial 2026-11-29b B10).
		f.state, f.all = "", true
	}
	if f.state != "" {
		s, ok := listState(f.state)
		if !ok && slices.Contains(shownOnly, s) {
			return usageErrorf("--state: a job shown %s is stored running, and --state running lists it", s)
		}
		if !ok {
			return usageErrorf("--state: expected one of %s (or Slurm's pending, PD, R, CG, CD, F, CA, or all), got %q", strings.Join(listStates, ", "), f.state)
		}
		f.state = s
	}
	if f.subprojects && f.project == "" {
		return usageErrorf("--subprojects: needs --project")
	}
	if !slices.Contains(estimateKinds, f.estimate) {
		return usageErrorf("--estimate: expected one of %s, got %q", strings.Join(estimateKinds, ", "), f.estimate)
	}
	if f.watch && f.interval < 100*time.Millisecond {
		return usageErrorf("--interval: expected at least 100ms, got %s", f.interval)
	}
	if f.since != "" {
		var err error
		if _, f.since, err = checkWhen("--since", f.since, time.Now()); err != nil {
			return err
		}
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	filter := client.JobFilter{State: f.state, Pool: f.pool, Project: f.project, User: f.user, Node: f.node, Since: f.since,
		Subprojects: f.subprojects}
	render := func(ctx context.Context, w io.Writer) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		jobs, err := fetchJobs(ctx, c, filter, f.all)
		if err != nil {
			return err
		}
		if err := printJobs(tableOut(cmd, w), jobs, filter, f); err != nil || f.watch || (f.out.format != outputTable && !f.out.wide()) {
			return err
		}
		// Tables only: stdout stays the list, and -o json|yaml as it was.
		printHiddenNote(ctx, cmd.ErrOrStderr(), c, f, jobs)
		return nil
	}
	readNote := func() {
		ctx, cancel := requestContext(cmd)
		printReadNote(ctx, cmd.ErrOrStderr(), c, f.project, f.subprojects, f.user)
		cancel()
	}
	if f.watch {
		readNote() // once, above the screens that follow
		return watch(cmd, f.interval, render)
	}
	// The notes follow the table: with 2>&1 they would otherwise come
	// before it or, from a note's own request, amid it (trial
	// 2026-11-29a P4).
	if err := render(cmd.Context(), cmd.OutOrStdout()); err != nil {
		return err
	}
	readNote()
	return nil
}

// fetchJobs gets the live jobs in scheduling order in one request, then,
// when --all or a terminal --state asks for them, the ended jobs newest
// first, a page at a time: a master's history may hold many more ended
// jobs than one answer should carry.
func fetchJobs(ctx context.Context, c *client.Client, filter client.JobFilter, all bool) ([]api.Job, error) {
	live, ended := filter, filter
	live.State, ended.State = liveStates, strings.Join(terminalStates, ",")
	wantLive, wantEnded := true, all && filter.Node == ""
	if filter.State != "" {
		isEnded := slices.Contains(terminalStates, filter.State)
		wantLive, wantEnded = !isEnded, isEnded && filter.Node == ""
		live.State, ended.State = filter.State, filter.State
	}
	jobs := []api.Job{}
	if wantLive {
		var err error
		if jobs, err = liveJobs(ctx, c, live); err != nil {
			return nil, err
		}
	}
	if !wantEnded {
		return jobs, nil
	}
	seen := map[int64]bool{}
	for _, j := range jobs {
		seen[j.ID] = true
	}
	err := c.EachJobsPage(ctx, ended, jobsPageSize, func(page []api.Job) error {
		for _, j := range page {
			if !seen[j.ID] { // a job that ended between the two requests
				jobs = append(jobs, j)
			}
		}
		return nil
	})
	return jobs, err
}

// printJobs prints the jobs that the filter and --all keep.
func printJobs(w io.Writer, jobs []api.Job, filter client.JobFilter, f jobsFlags) error {
	// The master filters too; filtering here as well keeps the listing
	// right whatever the master's version, and gives the default view.
	shown := []api.Job{}
	for _, j := range jobs {
		if keepJob(j, filter, f.all) {
			shown = append(shown, j)
		}
	}
	if done, err := f.out.structured(w, shown); done {
		return err
	}
	// The wide table, of which the narrow one and --columns keep some.
	switch {
	case f.columns.set():
		w = f.columns.writer(w)
	case !f.out.wide():
		w = withColumns(w, jobsNarrow)
	}
	t := newTable(w, jobsColumns...)
	// One time for every row's AGE, START and ELAPSED, each counted
	// down to the whole second alike: read apart and rounded apart, a
	// job started the instant after its submission showed AGE 7s beside
	// ELAPSED 8s (trial 29e E3).
	at := now()
	for _, j := range shown {
		pos := "-"
		if j.Position > 0 {
			pos = strconv.Itoa(j.Position)
		}
		row := []string{pos, strconv.FormatInt(j.ID, 10), j.Name, j.ShownState(), j.Pool, j.Project,
			orDash(j.User), listedPriority(j), strconv.FormatFloat(j.Weight, 'g', -1, 64), jobAge(j.SubmittedAt, at),
			listedSlots(j), fmt.Sprintf("%d/%d", j.Running, j.Tasks), startText(j, f.estimate, at)}
		row = append(append(row, wideRunCells(j, at)...), orDash(jobReason(j)))
		t.row(row...)
	}
	return t.flush()
}

// jobsColumns are the columns of allot jobs -o wide, which --columns
// may name; jobsNarrow those of its table without -o wide.
var (
	jobsColumns = append([]string{"POS", "ID", "NAME", "STATE", "POOL", "PROJECT", "USER", "PRIORITY", "WEIGHT", "AGE",
		"SLOTS", "TASKS", "START"}, append(slices.Clone(wideRunHeader), "REASON")...)
	jobsNarrow = []string{"POS", "ID", "NAME", "STATE", "POOL", "PROJECT", "SLOTS", "TASKS", "START", "REASON"}
)

// startText is when a waiting job should start: "in 2h 10m" ("~" for a
// forecast rather than a reservation, "in ≤20s" for one waiting for
// checkpoints, which it starts by); when a running one started ("12m
// ago", counted back from at), also where some of its tasks still wait
// (an experiment's trials held by max_concurrent_trials: trial 29e E3
// showed "-"); or "-". A waiting job's counts from the master's as_of,
// the time the reason's message counts from, so that START and REASON
// agree ("in 9m 57s" in both); from at for a master that does not send
// it.
func startText(j api.Job, kind string, at time.Time) string {
	p := j.Pending
	if j.StartedAt != nil && (p == nil || j.State == "running") {
		// A running job: when it started, as squeue's START_TIME.
		return startedText(*j.StartedAt, at)
	}
	if p == nil || p.EstimatedStart == nil {
		return "-"
	}
	ref := at
	if p.AsOf != nil {
		ref = *p.AsOf
	}
	start := *p.EstimatedStart
	if e := p.EstimatedStartEarliest; e != nil && kind == "typical" {
		start = *e
	}
	d := start.Sub(ref).Round(time.Second)
	s := "now"
	if d > 0 {
		s = "in " + humanDur(d)
	}
	if e := p.EstimatedStartEarliest; e != nil && d > 0 && kind == "range" {
		// A forecast's range: typical run times, then whole time limits,
		// joined by "to" as explain and the dashboard write it: a hyphen
		// read "now-5m" as five minutes ago (trial o F9). An early end
		// already past reads "now", not "in 0s", which would say the job
		// starts this instant.
		s = "now to " + humanDur(d)
		if de := e.Sub(ref).Round(time.Second); de > 0 {
			s = "in " + humanDur(de) + " to " + humanDur(d)
		}
	}
	switch p.EstimateBasis {
	case "forecast":
		s = "~" + s
	case basisCheckpoint:
		if d > 0 {
			s = "in ≤" + humanDur(d)
		}
	}
	return s
}

// startedText is a running job's start, counted back from now down to
// the whole second, as ELAPSED and AGE are: "3m ago", "now" within the
// second.
func startedText(at, now time.Time) string {
	if d := now.Sub(at).Truncate(time.Second); d > 0 {
		return humanDur(d) + " ago"
	}
	return "now"
}

// jobAge is AGE, how long before at a job was submitted, as ELAPSED
// says how long it ran, in the same units and counted down to the whole
// second alike, so that AGE is never less than ELAPSED: "3m 12s"; "-"
// for no time.
func jobAge(submitted, at time.Time) string {
	if submitted.IsZero() {
		return "-"
	}
	return humanDur(max(at.Sub(submitted).Truncate(time.Second), 0))
}

// basisCheckpoint is api.Pending.EstimateBasis for a job waiting for
// checkpoints: it starts by their grace's end.
const basisCheckpoint = "checkpoint"

// keepJob applies the filter, and without --all or --state hides ended jobs.
func keepJob(j api.Job, f client.JobFilter, all bool) bool {
	switch {
	case f.State != "" && !inState(j, f.State),
		f.Pool != "" && j.Pool != f.Pool,
		f.Project != "" && j.Project != f.Project && !f.Subprojects, // the master knows the tree
		f.User != "" && j.User != f.User:
		return false
	}
	return all || f.State != "" || j.Ending || !slices.Contains(terminalStates, j.State)
}

// jobReason is why a job waits, or how it ended.
func jobReason(j api.Job) string {
	if j.Pending != nil {
		if j.Pending.Message != "" {
			return j.Pending.Message
		}
		return j.Pending.Reason
	}
	return j.Reason
}

func newJobCmd() *cobra.Command {
	show := newJobShowCmd()
	cmd := &cobra.Command{
		Use:   "job [ID]",
		Short: "List jobs; show, change, kill and read the logs and events of one job",
		Long: `List jobs; show, change, hold, release, kill and read the logs and events of one job.
allot job ID is allot job show ID, with the same -o.`,
		Example:                    "  allot job 12\n  allot job 12 -o yaml",
		ValidArgsFunction:          completeJobArg,
		SuggestionsMinimumDistance: 2,
	}
	showsID(cmd, show)
	cmd.AddCommand(listAlias(newJobsCmd(), "jobs"), newJobKillCmd(), newJobHoldCmd(), newJobReleaseCmd(), newJobRequeueCmd(), newJobLogsCmd(), newJobSetPriorityCmd(), newJobSetWeightCmd(), newJobUpdateCmd(),
		newJobEventsCmd(), jobAlias(newExplainCmd(), "explain"))
	return cmd
}

// jobAlias makes a top-level command on one job also a verb of allot job
// (allot job explain ID is allot explain ID): every other verb on one job
// is under allot job, so that is where people look for it (trial
// 2026-11-29b B7: the ID read as allot job's own argument).
func jobAlias(cmd *cobra.Command, of string) *cobra.Command {
	cmd.Short += " (the same as allot " + of + ")"
	cmd.Example = strings.ReplaceAll(cmd.Example, "allot "+of+" ", "allot job "+of+" ")
	return cmd
}

// listAlias makes a listing command the "list" of a group (allot job
// list, allot node list): people who know allot user list and allot
// token list type it, and it is the same command with the same flags.
func listAlias(cmd *cobra.Command, of string) *cobra.Command {
	cmd.Use = "list"
	cmd.Short += " (the same as allot " + of + ")"
	return cmd
}

// jobCommand builds a job subcommand that takes a job ID and -o: run does
// the request and returns the master's reply (a Job, or a reply around
// one such as api.KillReply), which -o json and yaml print whole, as the
// API sent it, and text prints as a table.
func jobCommand[R any](use, short, example string, nargs int, run func(cmd *cobra.Command, c *client.Client, id int64, args []string) (R, error),
	text func(w io.Writer, r R) error) *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:               use,
		Short:             short,
		Example:           example,
		Args:              cobra.ExactArgs(nargs),
		ValidArgsFunction: completeJobID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			r, err := run(cmd, c, id, args[1:])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if done, err := out.structured(w, r); done {
				return err
			}
			return text(w, r)
		},
	}
	out.register(cmd)
	return cmd
}

func newJobShowCmd() *cobra.Command {
	return jobCommand("show ID", "Show a job with its tasks and their attempts",
		"  allot job show 12\n  allot job show 12 -o yaml", 1,
		func(cmd *cobra.Command, c *client.Client, id int64, _ []string) (api.Job, error) {
			ctx, cancel := requestContext(cmd)
			defer cancel()
			return c.Job(ctx, id)
		}, printJob)
}

func newJobSetPriorityCmd() *cobra.Command {
	cmd := jobCommand("set-priority ID PRIORITY", "Change a job's priority: 1..99 (lower is more important) or HIGH, NORMAL, LOW",
		"  allot job set-priority 12 5\n  allot job set-priority 12 LOW", 2,
		func(cmd *cobra.Command, c *client.Client, id int64, args []string) (api.Job, error) {
			num, class, err := parsePriority(args[0])
			if err != nil {
				return api.Job{}, err
			}
			var u api.JobUpdate
			if class != "" {
				u.PriorityClass = &class
			} else {
				u.Priority = &num
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			before, berr := c.Job(ctx, id)
			j, err := c.Update(ctx, id, u)
			if err == nil {
				if berr == nil {
					preemptibleNote(cmd.ErrOrStderr(), before, j)
				}
				multifactorNote(ctx, cmd, c, j, "priority (1-99)",
					" (A move into or out of LOW still makes it preemptible or not.)")
			}
			return j, err
		}, printJobPriority)
	cmd.Long = `Change a job's priority. A number from 1 to 99 sets it exactly; a class
sets the class's canonical number (HIGH 10, NORMAL 42, LOW 80). On waiting
jobs it changes the order; in a pool with preemption a more important job
may preempt running preemptible tasks. A LOW job (60-99) is always
preemptible; moved out of LOW it is preemptible only where its job file
says preemptible: true, and the command says when the change makes it
preemptible or not.`
	return cmd
}

func newJobSetWeightCmd() *cobra.Command {
	return jobCommand("set-weight ID WEIGHT", "Change a job's fair-share weight (a number > 0)",
		"  allot job set-weight 12 3", 2,
		func(cmd *cobra.Command, c *client.Client, id int64, args []string) (api.Job, error) {
			w, err := parseWeight(args[0])
			if err != nil {
				return api.Job{}, err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			j, err := c.Update(ctx, id, api.JobUpdate{Weight: &w})
			if err == nil {
				multifactorNote(ctx, cmd, c, j, "fair-share weight", "")
			}
			return j, err
		}, func(w io.Writer, j api.Job) error {
			_, err := fmt.Fprintf(w, "job %d (%s): weight %s\n", j.ID, j.Name, strconv.FormatFloat(j.Weight, 'g', -1, 64))
			return err
		})
}

// multifactorNote tells, on stderr, whoever changed what of job j that
// its pool orders its queue by multi-factor priority, which reads neither
// the 1-99 priority nor the fair-share weight (sched ignores both there):
// the master keeps the change, but a user who reads "priority 10 (HIGH)"
// would wait for a move up the queue that never comes. extra is what the
// change still does there. Best effort: without the pools, no note.
func multifactorNote(ctx context.Context, cmd *cobra.Command, c *client.Client, j api.Job, what, extra string) {
	pools, err := c.Pools(ctx)
	if err != nil {
		return
	}
	for _, p := range pools {
		if p.Name == j.Pool && p.Policy == "multifactor" {
			fmt.Fprintf(cmd.ErrOrStderr(), "note: pool %s orders its queue by multifactor priority (age, fair share, job size, QOS, pool, less nice), "+
				"which does not read a job's %s: job %d keeps its place in the queue.%s "+
				"Its qos and nice set that place (allot job update %d --qos/--nice changes them; allot explain %d shows its factors).\n",
				p.Name, what, j.ID, extra, j.ID, j.ID)
		}
	}
}

// preemptibleNote says on w when a priority change made a job
// preemptible or not: LOW work always is, and a job moved out of LOW is
// what its job file said (its kind's default where it said nothing), so
// raising a LOW job's priority may make it non-preemptible, which also
// changes what a node's loss does to it (trial 2026-11-29b B12: the
// change went without a word).
func preemptibleNote(w io.Writer, before, after api.Job) {
	switch {
	case before.Preemptible && !after.Preemptible:
		fmt.Fprintf(w, "note: job %d is no longer preemptible: a job out of LOW (priority 60-99) is preemptible only "+
			"where its job file says preemptible: true; to keep it preemptible, give it a priority in 60-99 "+
			"(allot job set-priority %d LOW), or submit it again with preemptible: true\n", after.ID, after.ID)
	case !before.Preemptible && after.Preemptible:
		fmt.Fprintf(w, "note: job %d is now preemptible: a LOW job (priority 60-99) always is\n", after.ID)
	}
}

func printJobState(w io.Writer, j api.Job) error {
	_, err := fmt.Fprintf(w, "job %d (%s): %s\n", j.ID, j.Name, j.ShownState())
	return err
}

func printJobPriority(w io.Writer, j api.Job) error {
	_, err := fmt.Fprintf(w, "job %d (%s): priority %s\n", j.ID, j.Name, priorityText(j))
	return err
}

// listedSlots is the SLOTS of allot jobs: the GPUs a task asks, and what
// the job's tasks hold where that is not as many per running task (an
// elastic task running shrunk, a move's old placement still draining):
// "4 (2 held)".
func listedSlots(j api.Job) string {
	s := strconv.Itoa(j.Slots)
	if j.Holding > 0 && j.Holding != j.Slots*j.Running {
		s += " (" + strconv.Itoa(j.Holding) + " held)"
	}
	return s
}

// listedPriority is the PRIORITY of allot jobs -o wide: in a multifactor
// pool, the multi-factor priority that orders its queue there
// ("10500.0050 (multifactor)", as squeue's %Q): a waiting job's now, a
// running one's as it started ("10500.0011 (multifactor, at start)"),
// which it keeps, as Slurm keeps a running job's; else priorityText. A
// running job beside waiting ones then shows a number of the same kind,
// not its 1-99 priority, which that pool does not read.
func listedPriority(j api.Job) string {
	switch {
	case j.Pending != nil && j.Pending.Priority != 0:
		return strconv.FormatFloat(j.Pending.Priority, 'f', 4, 64) + " (multifactor)"
	case j.MultifactorPriority != 0:
		return strconv.FormatFloat(j.MultifactorPriority, 'f', 4, 64) + " (multifactor, at start)"
	}
	return priorityText(j)
}

// priorityText renders "40 (NORMAL)".
func priorityText(j api.Job) string {
	class := j.PriorityClass
	if class == "" {
		class = string(jobfile.ClassOf(j.Priority))
	}
	if class == "" {
		return strconv.Itoa(j.Priority)
	}
	return fmt.Sprintf("%d (%s)", j.Priority, class)
}
