package master

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// What-if on the cluster's own history. GET /history/scenario exports the
// jobs submitted in a window, with the pools, projects, licenses, QOS
// levels, decay and nodes of the cluster now, as a scenario
// (docs/scenario.md) that `allot sim` and `allot sim compare` replay under
// the current configuration and others. The cluster part is the
// configuration's own cluster spec (package spec), which scenario files
// embed too, and scenario.Marshal writes the file from the types
// scenario.Parse reads, so the export and the format cannot drift apart.
// Where pools weigh fair share, the file declares the accounts' leaves
// with their usage at the window's start and aligns the decay's periods
// with the live master's (whatif_usage.go). Jobs keep the QOS and
// licenses of their stored job file (whatif_jobs.go); a task that
// failed live fails in the replay after the same work (fails), a trial
// its searcher stopped early is stopped after the same work (stops,
// whatif_search.go), and one
// whose start failed fails at the same attempt's start (start_fails,
// whatif_changes.go); the file always
// parses (whatif_projects.go). A job's tasks run for the mean work of
// its completed tasks, counted as the simulator counts it
// (whatif_work.go), each completed task whose work was not that mean
// for its own (runs, whatif_runs.go), or, for a job that never completed a task, for the
// longest attempt seen or its time limit (a job still running or waiting
// when exported has not said how long it runs: whatif_live.go assumes a
// run time that cannot end it sooner than it could have ended live, and
// notes it); a job killed by a user is
// killed at the same offset in the replay (one killed before it ran runs
// until then, if it starts), and one submitted after a pass that decided
// something in its second is marked after_pass (whatif_work.go), one whose
// first pass came in the next second says first_pass
// (whatif_firstpass.go). Its
// priority and weight changes are set_priority and set_weight events
// (whatif_changes.go), and the losses and returns of the file's nodes in
// the window node_down and node_up events (the store's node history),
// one that came before a submission of its second naming it in before
// (whatif_before.go); a node deleted in the window is kept, deleted at
// its deletion (node_delete, whatif_deleted.go), and a pool a move left
// with no node is kept with the node it had when the window began
// (whatif_emptied.go). What
// cannot be carried over is said in the file's comments.

func (ca *clusterAPI) handleHistoryScenario(w http.ResponseWriter, r *http.Request) {
	since, until, ok := ca.historyWindow(w, r, "exporting the cluster's history")
	if !ok {
		return
	}
	out, err := ca.historyScenario(r.Context(), since, until)
	if err != nil {
		ca.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Write(out)
}

// historyScenario builds the scenario of the jobs submitted in [since,
// until), times counted from since.
func (ca *clusterAPI) historyScenario(ctx context.Context, since, until time.Time) ([]byte, error) {
	jobs, byJob, ntasks, err := ca.storedJobs(ctx)
	if err != nil {
		return nil, err
	}
	hist, err := ca.m.history.events(ctx, since)
	if err != nil {
		return nil, err
	}
	dels, err := ca.m.history.deleted(ctx, since)
	if err != nil {
		return nil, err
	}
	nevs, err := ca.m.st.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		return nil, fmt.Errorf("read the node history: %w", err)
	}
	ca.m.lock()
	cfg := ca.m.cfg
	sc := ca.scenarioCluster(cfg)
	ca.exportDeletedNodes(sc, dels)
	ca.m.unlock()
	movedOut, stuck := placeStarts(sc, cfg, nevs, since)
	notes := dropEmptyPools(sc, cfg, stuck)
	pools := map[string]*scenario.Pool{}
	for i := range sc.Pools {
		pools[sc.Pools[i].Name] = &sc.Pools[i]
	}
	now := ca.m.now()
	x := jobExport{sc: sc, cfg: cfg, pools: pools, movedOut: movedOut, room: windowRoom(sc, cfg, nevs, since, until),
		hist: &hist, byJob: byJob, ntasks: ntasks, since: since, until: until, now: now}
	for _, j := range jobs {
		notes = append(notes, x.job(j)...)
	}
	for _, note := range []string{emptyWindowNote(jobs, byJob, since, until), carriedInNote(jobs, byJob, since, until)} {
		if note != "" {
			notes = append(notes, note)
		}
	}
	subs, times := x.subs, x.times
	exportCheckpointCosts(sc, jobs, byJob, &hist, since, until, now)
	nodeTimes, err := ca.exportNodeEvents(ctx, sc, cfg, hist.decisions, subs, since, until)
	if err != nil {
		return nil, err
	}
	reshapeNotes, reshapeTimes := exportReshapes(sc, cfg, nevs, afterPassAt(hist.decisions, since), subs, since, until)
	notes = append(notes, reshapeNotes...)
	notes = append(notes, exportJobGPUs(sc)...)
	exportJobTopology(sc)
	if sc.Events, err = liveOrder(sc.Events, slices.Concat(times, nodeTimes, reshapeTimes)); err != nil {
		return nil, err
	}
	usageNotes, err := ca.exportUsage(ctx, sc, cfg, since)
	if err != nil {
		return nil, err
	}
	notes = append(notes, usageNotes...)
	outageNotes, err := ca.outageNotes(ctx, since, until)
	if err != nil {
		return nil, err
	}
	notes = append(notes, outageNotes...)
	changeNotes, err := ca.configChangeNotes(ctx, since, until)
	if err != nil {
		return nil, err
	}
	notes = append(notes, changeNotes...)
	hz, err := ca.m.history.horizon(ctx)
	if err != nil {
		return nil, err
	}
	if note := hz.note(since); note != "" {
		notes = append(notes, note)
	}
	body, err := scenario.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("encode the scenario: %w", err)
	}
	return append(exportHeader(since, until, now, x.dropped, notes), body...), nil
}

// storedJobs reads the stored jobs with their attempts and their
// numbers of tasks, by job id.
func (ca *clusterAPI) storedJobs(ctx context.Context) ([]store.Job, map[int64][]store.Attempt, map[int64]int, error) {
	jobs, err := ca.m.st.Jobs(ctx, store.JobFilter{})
	if err != nil {
		return nil, nil, nil, err
	}
	atts, err := ca.m.st.Attempts(ctx, store.AttemptFilter{})
	if err != nil {
		return nil, nil, nil, err
	}
	tasks, err := ca.m.st.Tasks(ctx, store.TaskFilter{})
	if err != nil {
		return nil, nil, nil, err
	}
	byJob := map[int64][]store.Attempt{}
	for _, a := range atts {
		byJob[a.JobID] = append(byJob[a.JobID], a)
	}
	ntasks := map[int64]int{}
	for _, t := range tasks {
		ntasks[t.JobID]++
	}
	return jobs, byJob, ntasks, nil
}

// exportHeader is the export's opening comment: what it covers, how to
// replay it, the jobs of the window it left out (warnings, first: the
// replay cannot make their decisions), and what else it could not carry
// over or assumed (notes).
func exportHeader(since, until, now time.Time, warnings, notes []string) []byte {
	var head strings.Builder
	fmt.Fprintf(&head, "# The jobs submitted to this cluster from %s to %s, with its pools,\n# projects, licenses, QOS levels and nodes as of %s. Replay it with:\n#   allot sim FILE\n#   allot sim compare FILE --policy current --policy easy\n",
		since.Format(time.RFC3339), until.Format(time.RFC3339), now.Format(time.RFC3339))
	for _, w := range warnings {
		fmt.Fprintf(&head, "# Warning: %s\n", w)
	}
	for _, n := range notes {
		fmt.Fprintf(&head, "# Note: %s\n", n)
	}
	return []byte(head.String())
}

// scenarioCluster is the scenario's cluster: the configuration's pools
// (with the nodes registered now; a pool with none, too, which
// placeStarts may give the nodes it had when the window began, and
// dropEmptyPools leaves out where not), projects, licenses, QOS levels
// and decay, as the cluster spec's types that both formats share.
// Callers hold mu.
func (ca *clusterAPI) scenarioCluster(cfg *config.Config) *scenario.Scenario {
	sc := &scenario.Scenario{Cluster: spec.Cluster[scenario.Pool]{Projects: cfg.Projects, Licenses: cfg.Licenses,
		QOS: cfg.QOS, Decay: cfg.Decay}}
	for _, p := range cfg.Pools {
		sp := scenario.Pool{Pool: p.Pool, Quota: -1, OnPreempt: cmp.Or(p.OnPreempt, scenario.OnPreemptReschedule), MaxRetries: p.MaxRetries}
		for _, n := range ca.m.nodes {
			if n.pool != p.Name || len(n.rec.GPUs) == 0 {
				continue
			}
			sn := scenario.Node{Node: spec.Node{Name: n.rec.Name, Labels: nodeLabels(ca.m.cfg, n)}, Slots: len(n.rec.GPUs), GPU: n.rec.GPUs[0].Type}
			if len(sn.Labels) == 0 {
				sn.Labels = nil
			}
			sp.Nodes = append(sp.Nodes, sn)
		}
		slices.SortFunc(sp.Nodes, func(a, b scenario.Node) int { return cmp.Compare(a.Name, b.Name) })
		sc.Pools = append(sc.Pools, sp)
	}
	return sc
}

func poolSlots(p *scenario.Pool) int {
	n := 0
	for _, nd := range p.Nodes {
		n += nd.Slots
	}
	return n
}

// usesFairShareAccounts reports whether an exported pool reads accounts:
// a multifactor pool that weighs fair share, left out for want of nodes,
// reads none, and the scenario parser refuses accounts that no pool reads.
func usesFairShareAccounts(pools []scenario.Pool) bool {
	for _, p := range pools {
		if p.Policy == sched.PolicyMultifactor && p.Multifactor.FairShare > 0 {
			return true
		}
	}
	return false
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// exportName is a job's name in the export: jID-NAME, with what a
// scenario name cannot hold replaced.
func exportName(j store.Job) string {
	return fmt.Sprintf("j%d-%s", j.ID, strings.Trim(unsafeName.ReplaceAllString(j.Name, "-"), "-"))
}

// scenarioJob is one job in the scenario, with a note of what its run
// time assumes where it is not what the job did (a job still live when
// exported, whatif_live.go), or false when its run time cannot be known.
func scenarioJob(j store.Job, atts []store.Attempt, hist *historyEvents, tasks int, since, now time.Time, p *scenario.Pool, cfg *config.Config) (scenario.Job, []string, bool) {
	sj := scenario.Job{Name: exportName(j),
		Kind: cmp.Or(string(j.Kind), scenario.KindCommand), Submit: int64(j.SubmittedAt.Sub(since).Seconds()), Pool: j.Pool,
		Tasks: tasks, Slots: j.Slots, Duration: -1, TimeLimit: int64(j.TimeLimit.Seconds()),
		Priority: scenario.DefaultPriority, Weight: scenario.DefaultWeight, Preemptible: j.Preemptible,
		User: j.User, Project: j.Project, OnPreempt: p.OnPreempt, MaxRetries: p.MaxRetries}
	if j.Weight > 0 {
		sj.Weight = j.Weight
	}
	// A scenario has no cap on a job's slots in use (its max_slots is an
	// elastic task's size): the master's cap by max_slots goes into
	// max_concurrent, as many tasks as it lets run at once.
	sj.MaxConcurrent = lifecycle.MaxRunning(tasks, j.MaxConcurrent, j.Slots, j.MaxSlots)
	// Multifactor pools compute each job's priority, and take none.
	if j.Priority >= scenario.MinPriority && j.Priority <= scenario.MaxPriority && p.Policy != sched.PolicyMultifactor {
		sj.Priority = j.Priority
	}
	sj.Interactive = scenario.DefaultInteractive(sj.Kind, sj.Preemptible)
	// A job charges the leaf of its project and user, as live; "-" is the
	// master's user of jobs without one. Only pools that weigh fair share
	// take an account.
	if p.Policy == sched.PolicyMultifactor && p.Multifactor.FairShare > 0 {
		sj.Account, sj.User = j.Project, cmp.Or(j.User, noUser)
	}
	// An elastic job's tasks ask for its slots and may shrink to
	// min_slots; a spec that does not decode is noted by exportHints.
	h, err := decodeSpec(j.Spec, j.Kind)
	if err == nil && h.minSlots > 0 && h.minSlots <= j.Slots {
		sj.MinSlots = h.minSlots
	}
	if err == nil {
		sj.GPU = h.gpu // kept where the pool's nodes have the type (exportJobGPUs)
		// Kept where a task may span nodes (exportJobTopology).
		sj.Topology = string(h.topology)
	}
	// checkpoint_every: the master estimates each allocation's last
	// checkpoint from it, and a scenario takes it from a job that can be
	// preempted or resized only.
	if err == nil && (sj.Preemptible || sj.MinSlots > 0) {
		sj.CheckpointEvery = h.checkpointEvery
	}
	// Its exit actions as they are live: its file's, else its pool's
	// (p's, the configuration's), for every job in every pool: a lost
	// attempt that waits again and an agent's preemption count as
	// retries of a job that no pass preempts too, as a scenario's do.
	if ea := exitActionsOf(cfg, &mjob{rec: j, spec: h}); err == nil {
		sj.OnPreempt, sj.MaxRetries = ea.onPreempt, ea.maxRetries
	}
	w := workOf(j, atts, hist, since, now, sj.MinSlots > 0, sj.CheckpointEvery)
	note, ok := exportRunTime(j, w, &sj)
	if !ok {
		return sj, nil, false
	}
	sj.Fails = exportFails(w.failed, w.stopped)
	sj.Stops = exportStops(w.failed, w.stopped)
	sj.Runs = exportRuns(w.done, sj.Duration)
	sj.StartFails = exportStartFails(w.startFailed)
	sj.StartLost = w.startLost
	sj.Lost = w.attemptLost
	sj.AgentPreempted = w.agentPreempted
	sj.LateExits = hist.lateExits(atts)
	sj.SlowKills = hist.slowKills(j, atts, since, now)
	sj.EndsAfterPass = hist.endsAfterPass(atts, since)
	return sj, slices.DeleteFunc([]string{note, stoppedNote(j, sj.Name, len(w.stopped), hist.stoppedWaiting[j.ID])},
		func(n string) bool { return n == "" }), true
}

// exportRunTime sets sj's Duration from what its attempts did, and
// returns false when that cannot be known. A job still live when
// exported has not said how long it runs: liveRunTime says what the
// replay assumes, in a note.
func exportRunTime(j store.Job, w jobWork, sj *scenario.Job) (string, bool) {
	if !j.State.Terminal() {
		return liveRunTime(j, w, sj), true
	}
	switch {
	case w.n > 0:
		sj.Duration = w.mean
	case len(w.failed) > 0 || len(w.startFailed) > 0 || w.lost > 0 || w.exitFailed:
		// No task completed: any run time longer than every task's work
		// replays the failures (and the failed starts, after the work of
		// the attempts before them, and the losses of the nodes they ran
		// on) alike, and the tasks killed with the job run until the kill.
		sj.Duration = w.most + 1
	case w.limited:
		// Its time limit ended it: the replay's ends it too.
	case j.State == store.JobKilled:
		// Killed before it ran or while it ran, before any task was
		// done: in the replay it runs until the kill event (Duration
		// -1), at the offset a user killed it. Its attempts' lengths
		// only say when the kill came: as run times, the replay would
		// complete the task at the instant of the kill, before it.
	case w.longest > 0:
		sj.Duration = w.longest
	case sj.TimeLimit > 0:
		sj.Duration = sj.TimeLimit
	default:
		return "", false
	}
	return "", true
}

// jobExport is what the export of each stored job reads and adds to.
type jobExport struct {
	sc                *scenario.Scenario
	cfg               *config.Config
	pools             map[string]*scenario.Pool
	movedOut          map[string]int // placeStarts'
	room              map[string]int // windowRoom's
	hist              *historyEvents
	byJob             map[int64][]store.Attempt
	ntasks            map[int64]int
	since, until, now time.Time
	subs              []exportedSub // the jobs exported, with their submission
	// times are the live times of the events added to sc (liveOrder).
	times []time.Time
	// dropped say which jobs of the window the export left out, and why
	// (drop): the file's warnings.
	dropped []string
}

// drop says that job j, submitted in the window, is left out, and why:
// the replay runs without it, so it differs from the live master's
// decisions wherever the job ran or waited, which a warning says
// (exportHeader), apart from the notes on what the export assumed.
func (x *jobExport) drop(j store.Job, why string, args ...any) {
	x.dropped = append(x.dropped, fmt.Sprintf("job %d (%s) left out: %s; the replay runs without it, so its decisions differ from the live ones wherever the job ran or waited",
		j.ID, exportName(j), fmt.Sprintf(why, args...)))
}

// job exports stored job j into the scenario, with its changes and its
// kill, when it was submitted within the window and can be replayed; it
// returns the notes on what the export left out or assumed.
func (x *jobExport) job(j store.Job) (notes []string) {
	sc, cfg, pools, since, until, now := x.sc, x.cfg, x.pools, x.since, x.until, x.now
	byJob, ntasks, hist := x.byJob, x.ntasks, x.hist
	if j.SubmittedAt.Before(since) || !j.SubmittedAt.Before(until) {
		return notes
	}
	p := pools[j.Pool]
	if p == nil {
		x.drop(j, "its pool %s has no node now", j.Pool)
		return notes
	}
	if total := x.roomOf(p); j.Slots > total {
		x.drop(j, "a task of %d slots is larger than pool %s was at any time in the window (%d slots)", j.Slots, j.Pool, total)
		return notes
	}
	if j.Project != "" && cfg.ProjectIndex(j.Project) < 0 {
		if note := goneProject(sc, j.Project, usesFairShareAccounts(sc.Pools)); note != "" {
			notes = append(notes, note)
		}
	}
	sj, notes1, ok := scenarioJob(j, byJob[j.ID], hist, max(ntasks[j.ID], 1), since, now, p, cfg)
	if !ok {
		x.drop(j, "it never ran and has no time limit, so its run time is unknown")
		return notes
	}
	notes = append(notes, notes1...)
	lateRuns(&sj)
	sj.AfterPass = hist.afterPass[j.ID]
	if s, ok := hist.firstPass[j.ID]; ok {
		// Given to the replay's scheduler first in the second of its
		// first pass, before any decision there (whatif_firstpass.go).
		sj.FirstPass, sj.AfterPass = s, false
	}
	changes, changeTimes := exportChanges(&sj, hist.changes[j.ID], since, p)
	note, ok := exportHints(j, &sj, p, cfg)
	switch {
	case !ok:
		x.drop(j, "%s", note)
		return notes
	case note != "":
		notes = append(notes, note)
	}
	limitChanges, limitTimes := exportLimitChanges(&sj, hist.changes[j.ID], since, p, cfg)
	changes, changeTimes = append(changes, limitChanges...), append(changeTimes, limitTimes...)
	holds, holdTimes := exportHolds(&sj, j.SubmittedAt, hist.changes[j.ID], hist.decisions, since) // whatif_hold.go
	changes, changeTimes = append(changes, holds...), append(changeTimes, holdTimes...)
	requeues, requeueTimes := exportRequeues(sj.Name, hist.requeued[j.ID], hist.changes[j.ID], hist.decisions, since) // whatif_requeue.go
	changes, changeTimes = append(changes, requeues...), append(changeTimes, requeueTimes...)
	if why := neverFits(&sj, p, sc.Projects); why != "" {
		sj.AllowInfeasible = true
		notes = append(notes, fmt.Sprintf("job %d can never run here now (%s); it waits, as the live master keeps it waiting (allow_infeasible)", j.ID, why))
	}
	if err := scenario.DisallowedQOS(sc, &sj); err != nil {
		// A reload took its level off the list after the master accepted
		// it; the live job keeps it (jobsUnder.disallowedQOS).
		sj.KeepQOS = true
		notes = append(notes, fmt.Sprintf("job %d keeps its QOS, as the live job does, though its project's list no longer allows it: %v (keep_qos)", j.ID, err))
	}
	sc.Jobs = append(sc.Jobs, sj)
	x.subs = append(x.subs, exportedSub{sj.Name, hist.arrival(j.ID, j.SubmittedAt, since)})
	sc.Events = append(sc.Events, changes...)
	x.times = append(x.times, changeTimes...)
	if j.State == store.JobKilled && !j.EndedAt.IsZero() && !killedByLimit(j, byJob[j.ID], hist) {
		at := killTime(j, hist.kills)
		sc.Events = append(sc.Events, killEvent(sj.Name, at, hist.decisions, since))
		x.times = append(x.times, at)
	}
	return notes
}
