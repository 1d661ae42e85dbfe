package master

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Priority and weight changes, checkpoint costs, failures and node
// losses in the export. The store records a change of a live job (PATCH
// /jobs/{id}) as an event of the job that keeps its state, with the
// values it changed (store.JobChange; its reason says the same to users),
// so the export reads the changes back from the event log: the job
// starts with the values before its first change, and each change
// becomes a set_priority or set_weight event at its second, as the
// simulator replays them (sim's script, lifecycle.EventPriority and
// EventWeight).

// jobChange is one change of a job's priority, weight, time limit, QOS
// or nice; a field not changed is nil.
type jobChange struct {
	at                   time.Time
	fromPrio, toPrio     *int
	fromWeight, toWeight *float64
	fromLimit, toLimit   *time.Duration
	fromQOS, toQOS       *string
	fromNice, toNice     *int
	// fromPre is the job's preemptibility before a change that moved it
	// into or out of the LOW class (LOW work is always preemptible); the
	// simulator's set_priority makes the same move (sim.ClassRule).
	fromPre *bool
	// held is a hold's (true) or a release's (false); nil for any other
	// change (whatif_hold.go).
	held *bool
	// byRequeue: the hold was a requeue's (--hold), exported as the
	// requeue (whatif_requeue.go).
	byRequeue bool
}

// jobChangeOf is the change event e of store.UpdateJob (or HoldJob)
// made; false when it changed none of priority, weight, time limit, QOS,
// nice and hold.
func jobChangeOf(e store.Event) (jobChange, bool) {
	ch := e.Change
	if ch == nil {
		return jobChange{}, false
	}
	c := jobChange{at: e.At, fromPrio: ch.FromPriority, toPrio: ch.ToPriority, fromWeight: ch.FromWeight, toWeight: ch.ToWeight,
		fromPre: ch.FromPreemptible, fromLimit: ch.FromTimeLimit, toLimit: ch.ToTimeLimit, fromQOS: ch.FromQOS, toQOS: ch.ToQOS,
		fromNice: ch.FromNice, toNice: ch.ToNice, held: ch.ToHeld}
	c.byRequeue = c.held != nil && *c.held && strings.HasSuffix(e.Reason, ": "+requeueHoldReason)
	return c, c.toPrio != nil || c.toWeight != nil || c.toLimit != nil || c.toQOS != nil || c.toNice != nil || c.held != nil
}

// exportLimitChanges sets sj's time limit to what it was at submission
// (its QOS and nice are its job file's already, exportHints) and returns
// its changes of time limit, QOS and nice as set_time_limit, set_qos and
// set_nice events, times counted from since, with the live time of each
// (liveOrder). A QOS and a nice are changes only where p's policy reads
// them, as a scenario takes them; a QOS no longer configured is left
// out, as at submission (exportHints).
func exportLimitChanges(sj *scenario.Job, changes []jobChange, since time.Time, p *scenario.Pool, cfg *config.Config) ([]scenario.Event, []time.Time) {
	var evs []scenario.Event
	var times []time.Time
	limitSet := false
	qos := p.Policy == sched.PolicyPriority || p.Policy == sched.PolicyMultifactor
	for _, c := range changes {
		at := int64(c.at.Sub(since) / time.Second)
		if c.toLimit != nil {
			if !limitSet {
				sj.TimeLimit, limitSet = int64(c.fromLimit.Seconds()), true
			}
			evs = append(evs, scenario.Event{At: at, Kind: scenario.EventSetTimeLimit, Job: sj.Name, TimeLimit: int64(c.toLimit.Seconds())})
			times = append(times, c.at)
		}
		if c.toQOS != nil && qos && len(cfg.QOS) > 0 {
			if name, err := cfg.ResolveQOS(*c.toQOS); err == nil {
				evs = append(evs, scenario.Event{At: at, Kind: scenario.EventSetQOS, Job: sj.Name, QOS: name})
				times = append(times, c.at)
			}
		}
		if c.toNice != nil && p.Policy == sched.PolicyMultifactor {
			evs = append(evs, scenario.Event{At: at, Kind: scenario.EventSetNice, Job: sj.Name, Nice: *c.toNice})
			times = append(times, c.at)
		}
	}
	return evs, times
}

// exportChanges sets sj's priority, weight and preemptibility to what they
// were at submission (dropping a checkpoint_every the scenario would then
// refuse; its exit actions are kept) and returns its changes as scenario events, times counted from
// since, with the live time of each (liveOrder).
func exportChanges(sj *scenario.Job, changes []jobChange, since time.Time, p *scenario.Pool) ([]scenario.Event, []time.Time) {
	var evs []scenario.Event
	var times []time.Time
	prioSet, weightSet, preSet := false, false, false
	for _, c := range changes {
		at := int64(c.at.Sub(since) / time.Second)
		if c.toPrio != nil && p.Policy != sched.PolicyMultifactor {
			if !prioSet && *c.fromPrio >= scenario.MinPriority && *c.fromPrio <= scenario.MaxPriority {
				sj.Priority = *c.fromPrio
			}
			if *c.toPrio >= scenario.MinPriority && *c.toPrio <= scenario.MaxPriority {
				evs = append(evs, scenario.Event{At: at, Kind: scenario.EventSetPriority, Job: sj.Name, Priority: *c.toPrio})
				times = append(times, c.at)
			}
		}
		prioSet = prioSet || c.toPrio != nil
		if c.toWeight != nil {
			if !weightSet {
				sj.Weight = *c.fromWeight
			}
			evs = append(evs, scenario.Event{At: at, Kind: scenario.EventSetWeight, Job: sj.Name, Weight: *c.toWeight})
			times = append(times, c.at)
			weightSet = true
		}
		if c.fromPre != nil && !preSet {
			sj.Preemptible, preSet = *c.fromPre, true
			sj.Interactive = scenario.DefaultInteractive(sj.Kind, sj.Preemptible)
		}
	}
	if !sj.Preemptible && sj.MinSlots == 0 {
		// Submitted not preemptible (it became so in the LOW class): a
		// scenario refuses checkpoint_every there.
		sj.CheckpointEvery = 0
	}
	// Its exit actions stay as scenarioJob set them, preemptible or
	// not: they govern its lost attempts and agents' preemptions live,
	// and a scenario takes them on any job.
	return evs, times
}

// exportFails are the failures of the tasks that failed live (failed:
// their work up to the failure, at full size for an elastic job), by
// task, as the scenario's fails: the simulator fails each after that much
// of its work. A task that failed within its first second did no whole
// second of work and is exported with after 0, which fails it as it
// starts, as it did live: after 1 held its slots a second longer. Then
// lateRuns gives those past the job's run time a run time of their own.
// The trials a searcher stopped (stopped) are stops instead
// (exportStops).
func exportFails(failed map[int]int64, stopped map[int]bool) []scenario.TaskFail {
	var out []scenario.TaskFail
	for _, task := range slices.Sorted(maps.Keys(failed)) {
		if stopped[task] {
			continue
		}
		out = append(out, scenario.TaskFail{Task: task, After: failed[task]})
	}
	return out
}

// lateRuns gives each task of sj that failed or was stopped live after
// more work than its run time (the job's Duration, the mean work of its
// completed tasks) a run time of its own (runs) that reaches that end:
// the work it did up to it. A scenario refuses a failure or stop its
// task would complete before, and the export used to leave such ends
// out, completing the task in the replay. A job without a duration
// (still running when exported) has no late ends.
func lateRuns(sj *scenario.Job) {
	if sj.Duration < 0 {
		return
	}
	own := map[int]bool{}
	for _, r := range sj.Runs {
		own[r.Task] = true
	}
	add := func(task int, after int64) {
		if after > sj.Duration && !own[task] {
			sj.Runs = append(sj.Runs, scenario.TaskRun{Task: task, Work: after})
			own[task] = true
		}
	}
	for _, f := range sj.Fails {
		add(f.Task, f.After)
	}
	for _, st := range sj.Stops {
		add(st.Task, st.After)
	}
	slices.SortFunc(sj.Runs, func(a, b scenario.TaskRun) int { return a.Task - b.Task })
}

// exportStartFails are the starts that failed live (startFailed: each
// task's attempt that could not start, as the simulator counts them), by
// task, as the scenario's start_fails: the simulator fails that start.
func exportStartFails(startFailed map[int]int) []scenario.StartFail {
	var out []scenario.StartFail
	for _, task := range slices.Sorted(maps.Keys(startFailed)) {
		out = append(out, scenario.StartFail{Task: task, Attempt: startFailed[task]})
	}
	return out
}

// exportNodeEvents are the losses and returns in [since, until) of the
// nodes sc's pools hold, from the store's node history, as node_down and
// node_up events (a leave, an agent's goodbye, is a node_down too: the
// node goes as in a loss, its attempts already ended as reported), added to sc's, with the configuration's lost_node_grace
// where there are losses (the simulator holds what the master held
// through a loss, lifecycle.HoldsThroughLoss). A return of a node not
// lost in the window (a node down at its start) is left out, as the
// scenario starts with every node up. An admin's drains and resumes are
// drain and resume events; a node drained when the window starts is
// drained at 0. A node deleted in the window (whatif_deleted.go) is
// deleted then (node_delete). A node event that a pass deciding something preceded
// within its second (decisions; afterPassAt) is marked after_pass, and
// one that came before a submission of its second (subs, the exported
// jobs) names it in before (whatif_before.go). It returns the live time
// of each event it added (liveOrder): since for the state at the
// window's start.
func (ca *clusterAPI) exportNodeEvents(ctx context.Context, sc *scenario.Scenario, cfg *config.Config, decisions []time.Time,
	subs []exportedSub, since, until time.Time) ([]time.Time, error) {
	// The whole history: whether a node was drained at since is its
	// last drain or resume before.
	evs, err := ca.m.st.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		return nil, fmt.Errorf("read the node history: %w", err)
	}
	inFile := map[string]bool{}
	for _, p := range sc.Pools {
		for _, n := range p.Nodes {
			inFile[n.Name] = true
		}
	}
	ns := newNodeStates()
	out := joinedInWindow(evs, since, until, inFile, ns.down)
	atStart := drainedAtStart(evs, since, inFile)
	for _, e := range atStart {
		ns.admin[e.Node], ns.drained[e.Node] = true, true
	}
	var times []time.Time
	for range len(atStart) + len(out) {
		times = append(times, since)
	}
	after := afterPassAt(decisions, since)
	for _, e := range evs {
		if !e.At.Before(until) || !inFile[e.Node] || e.At.Before(since) {
			// Before the window, only the state at its start counts
			// (drainedAtStart).
			continue
		}
		at := max(int64(e.At.Sub(since)/time.Second), 0)
		for _, ev := range ns.events(e, at) {
			ev.AfterPass = after(e.At)
			ev.Before = beforeJob(subs, e.At, since, at)
			out = append(out, ev)
			times = append(times, e.At)
		}
	}
	out = append(atStart, out...)
	sc.Events = append(sc.Events, out...)
	if slices.ContainsFunc(out, func(e scenario.Event) bool { return e.Kind == scenario.EventNodeDown }) {
		sc.LostNodeGrace = cfg.LostNodeGrace.Truncate(time.Second)
	}
	return times, nil
}

// drainedAtStart are drain events at 0 for the nodes of the file that
// were drained when the window began, by their last drain, resume or
// deletion (a node of its name registered since is a new one, not
// drained) before since, in the order of those events.
func drainedAtStart(evs []store.NodeEvent, since time.Time, inFile map[string]bool) []scenario.Event {
	last := map[string]int{}
	for i, e := range evs {
		if e.At.Before(since) && inFile[e.Node] && (e.To == store.NodeDrained || e.To == store.NodeSchedulable || e.To == store.NodeDeleted) {
			last[e.Node] = i
		}
	}
	var out []scenario.Event
	for i, e := range evs {
		if j, ok := last[e.Node]; ok && j == i && e.To == store.NodeDrained {
			out = append(out, scenario.Event{At: 0, Kind: scenario.EventDrain, Node: e.Node})
		}
	}
	return out
}

// afterPassAt says of each node event exported, in the order of the node
// history, whether a pass decided something (decisions: a task's
// transition to starting or preempting) since the node event before it
// in its second, or since the second began for the first: the live
// master ran that pass between the two, where the simulator observes a
// second's scripted events one after another and then settles, so the
// replay settles before this one (after_pass). A decision at the very
// time of a node event came after it, as the master's pass follows the
// event that asked for it (a clock that stands still within a second
// stamps both alike).
func afterPassAt(decisions []time.Time, since time.Time) func(at time.Time) bool {
	sorted := slices.SortedFunc(slices.Values(decisions), time.Time.Compare)
	prev := time.Time{}
	return func(at time.Time) bool {
		from := since.Add(at.Sub(since).Truncate(time.Second))
		if prev.After(from) {
			from = prev // the node event before, in the same second
		}
		prev = at
		i, _ := slices.BinarySearchFunc(sorted, from, time.Time.Compare)
		return i < len(sorted) && sorted[i].Before(at)
	}
}
