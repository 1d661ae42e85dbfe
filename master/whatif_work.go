package master

import (
	"context"
	"fmt"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// The export reads two things off the event log besides the attempts:
// how long a job's tasks ran, and where the live master settled between
// two events of the same second.
//
// How long an exported job's tasks run. The simulator's model of work is
// that a task runs for its job's duration in all, a preemption keeping
// the progress made up to the preemption request (docs/architecture.md),
// and it counts in whole seconds. So a task's work is read off the live
// attempts the same way: each attempt counts from its start to its end,
// or for a preempted one to the request (the event log's transition to
// preempting; the checkpoint that follows does no work; a lost attempt
// does none, its progress lost with its node), each time
// truncated to whole seconds from the window's start, as the export
// truncates submissions. Counting the attempts' lengths instead, as the
// export did, made a preempted job replay only its last attempt's work,
// and a start or end within a second replay a second early or late.
//
// Where it settled. The simulator submits all the jobs of a second and
// then settles once; a live master runs a pass after each event, so two
// jobs submitted in the same second may each have had their pass, the
// first one starting (or preempting for) before the second was even
// submitted: replayed together they are placed together, in priority
// order, and may land elsewhere. A job submitted after a pass that
// decided something in its second (a transition to starting or
// preempting after the previous submission of that second) is exported
// with after_pass, and the replay settles the instant before submitting
// it (sim.JobSpec.AfterPass).

// historyEvents is what the export reads off the event log of the jobs
// submitted since since: when each attempt was asked to stop
// (preempted, moved or resized), and which jobs a pass that decided
// something preceded within their second (afterPass).
type historyEvents struct {
	preempted map[attemptKey]time.Time
	afterPass map[int64]bool
	// firstPass are the jobs that no pass saw in their second, by job:
	// the second (from the window's start) of the first pass that did
	// (whatif_firstpass.go).
	firstPass map[int64]int64
	// changes are the jobs' priority and weight changes, in order.
	changes map[int64][]jobChange
	// moved are the attempts asked to move or resize: the attempt the
	// task restarts as on its reserved placement continues them (first).
	moved map[attemptKey]bool
	// startFailed are the attempts that could not start: their task's
	// transition to failed has the cause store.CauseStartFailed.
	startFailed map[attemptKey]bool
	// startLost are the attempts given up as never started: their task
	// went from starting back to queued, its agent not running it
	// (store.CauseNotRun).
	startLost map[attemptKey]bool
	// notRun are the other attempts lost because their agent did not run
	// them (store.CauseNotRun: it registered again without them, or its sync
	// left them out), but for those killed; nodeLosses are when each
	// node was lost, from the store's node history. Such an attempt whose
	// node was not lost while it ran (lostOnUpNode) was lost on a node
	// that stayed up.
	notRun     map[attemptKey]bool
	nodeLosses map[string][]time.Time
	// partRan are the gangs' attempts lost while some of their parts ran
	// and others were still starting (the event's PartRan): they ran, as the
	// master took them, though the store's attempt never ran.
	partRan map[attemptKey]bool
	// leftEnded are when the parts of lost gangs' attempts on nodes
	// still up, asked to checkpoint at the loss, had all ended
	// (store.CauseLeftEnded: leftTook).
	leftEnded map[attemptKey]time.Time
	// exitFailed are the jobs a task of which its exit actions failed
	// after a preemption (preempted to failed: finish, by
	// lifecycle.Ending.Decide).
	exitFailed map[int64]bool
	// stopped are the attempts a searcher stopped: their task went from
	// killing to completed (stopTrial), the attempt ending killed.
	stopped map[attemptKey]bool
	// killing are when the attempts killed (a user's kill, a time limit,
	// a searcher's stop) were asked to stop: their task's transition to
	// killing (whatif_exits.go's slowKills).
	killing map[attemptKey]time.Time
	// limitKilled are the attempts whose kill was their time limit's
	// (store.CauseTimeLimit).
	limitKilled map[attemptKey]bool
	// startKilled are the attempts whose kill was a failed start's
	// (a gang's other parts killed): no kill the replay makes.
	startKilled map[attemptKey]bool
	// stoppedWaiting counts, by job, the tasks a searcher stopped while
	// they waited (queued to completed), after an attempt.
	stoppedWaiting map[int64]int
	// decisions are when a pass decided something (a task's transition
	// to starting or preempting), in the log's order: the node events
	// of a second that came after one are exported with after_pass
	// (exportNodeEvents).
	decisions []time.Time
	// requeued are when each job was requeued (store.CauseRequeued: its
	// tasks' transitions to preempting, one instant a requeue), in
	// order: no pass decided them (whatif_requeue.go).
	requeued map[int64][]time.Time
	// kills are when the jobs were killed (killTimes): the end of one
	// killed while its tasks ran is its last task's.
	kills map[int64]time.Time
	// agentStopped are when a gang's attempt began to checkpoint as the
	// agent of one of its nodes stopped its part there
	// (store.CauseAgentStopped, agentstop.go): no pass asked it, and the
	// export writes it as agent_preempted from then (whatif_leave.go).
	agentStopped map[attemptKey]time.Time
}

// newHistoryEvents is an empty reading of the event log evs, its kills
// read.
func newHistoryEvents(evs []store.Event) historyEvents {
	return historyEvents{preempted: map[attemptKey]time.Time{}, afterPass: map[int64]bool{}, changes: map[int64][]jobChange{},
		moved: map[attemptKey]bool{}, startFailed: map[attemptKey]bool{}, startLost: map[attemptKey]bool{},
		notRun: map[attemptKey]bool{}, nodeLosses: map[string][]time.Time{}, exitFailed: map[int64]bool{}, partRan: map[attemptKey]bool{},
		leftEnded: map[attemptKey]time.Time{},
		stopped:   map[attemptKey]bool{}, stoppedWaiting: map[int64]int{}, killing: map[attemptKey]time.Time{},
		limitKilled: map[attemptKey]bool{}, startKilled: map[attemptKey]bool{}, kills: killTimes(evs),
		agentStopped: map[attemptKey]time.Time{}, requeued: map[int64][]time.Time{}}
}

// events reads the event log and the node history since since for the
// what-if export.
func (hs *history) events(ctx context.Context, since time.Time) (historyEvents, error) {
	evs, err := hs.st.Events(ctx, store.EventFilter{Since: since})
	if err != nil {
		return historyEvents{}, fmt.Errorf("read the event log: %w", err)
	}
	h := newHistoryEvents(evs)
	nevs, err := hs.st.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		return historyEvents{}, fmt.Errorf("read the node history: %w", err)
	}
	var nodeAt []time.Time
	for _, e := range nevs {
		if e.To == store.NodeLost {
			h.nodeLosses[e.Node] = append(h.nodeLosses[e.Node], e.At)
		}
		nodeAt = append(nodeAt, e.At)
	}
	fp := firstPassScan{out: map[int64]int64{}}
	second, decided := int64(-1), false
	for _, e := range evs {
		if s := int64(e.At.Sub(since) / time.Second); s != second {
			second, decided = s, false
		}
		decisions := len(h.decisions)
		if e.PartRan {
			h.partRan[attemptKey{e.JobID, e.Index, e.Attempt}] = true
		}
		switch {
		case e.Cause == store.CauseLeftEnded:
			h.leftEnded[attemptKey{e.JobID, e.Index, e.Attempt}] = e.At
		case e.Index < 0 && e.From == "" && e.To == string(store.JobQueued) && decided:
			h.afterPass[e.JobID], decided = true, false
		case e.Index < 0 && e.From == "" && e.To == string(store.JobQueued):
		case e.Index < 0 && e.From == e.To:
			if c, ok := jobChangeOf(e); ok {
				h.changes[e.JobID] = append(h.changes[e.JobID], c)
			}
		case e.Index < 0:
		case e.From == string(store.TaskKilling) && e.To == string(store.TaskCompleted):
			h.stopped[attemptKey{e.JobID, e.Index, e.Attempt}] = true
		case e.From == string(store.TaskQueued) && e.To == string(store.TaskCompleted):
			h.stoppedWaiting[e.JobID]++
		case e.From == string(store.TaskPreempted) && e.To == string(store.TaskFailed):
			h.exitFailed[e.JobID] = true
		case e.To == string(store.TaskFailed) && e.Cause == store.CauseStartFailed:
			h.startFailed[attemptKey{e.JobID, e.Index, e.Attempt}] = true
		case e.From == string(store.TaskStarting) && e.Cause == store.CauseNotRun && !e.PartRan &&
			(e.To == string(store.TaskQueued) || e.To == string(store.TaskFailed)): // failed: by its exit actions
			h.startLost[attemptKey{e.JobID, e.Index, e.Attempt}] = true
		case e.Cause == store.CauseNotRun && e.To != string(store.TaskKilled):
			h.notRun[attemptKey{e.JobID, e.Index, e.Attempt}] = true
		case e.To == string(store.TaskKilling):
			h.killing[attemptKey{e.JobID, e.Index, e.Attempt}] = e.At
			h.startKilled[attemptKey{e.JobID, e.Index, e.Attempt}] = e.Cause == store.CauseStartFailed
			h.limitKilled[attemptKey{e.JobID, e.Index, e.Attempt}] = e.Cause == store.CauseTimeLimit
		case e.To == string(store.TaskPreempting) && e.Cause == store.CauseRequeued:
			// A checkpoint as a preemption's (its time is the attempt's
			// checkpoint time), but no pass decided it.
			h.preempted[attemptKey{e.JobID, e.Index, e.Attempt}] = e.At
			h.noteRequeue(e.JobID, e.At)
		case e.To == string(store.TaskPreempting) && e.Cause == store.CauseAgentStopped:
			h.agentStopped[attemptKey{e.JobID, e.Index, e.Attempt}] = e.At
		case e.To == string(store.TaskPreempting):
			h.preempted[attemptKey{e.JobID, e.Index, e.Attempt}] = e.At
			h.moved[attemptKey{e.JobID, e.Index, e.Attempt}] = e.Cause == store.CauseMoved || e.Cause == store.CauseResized
			decided = true
			h.decisions = append(h.decisions, e.At)
		case e.To == string(store.TaskStarting):
			decided = true
			h.decisions = append(h.decisions, e.At)
		}
		fp.see(e, second, len(h.decisions) > decisions, e.Index < 0 && e.From == "" && e.To == string(store.JobQueued))
	}
	h.firstPass = fp.firstPasses(nodeAt, since)
	return h, nil
}

// jobWork is what a job's attempts say of its tasks' run time: the mean
// work of the tasks that completed (n of them; for an elastic job in
// seconds at full size), the longest attempt, and
// whether an attempt ran into the job's time limit.
type jobWork struct {
	mean, longest int64
	n             int
	limited       bool
	// failed maps the tasks whose last attempt failed (an error exit) to
	// their work up to the failure, in the same units as mean; most is
	// the most work any task did.
	failed map[int]int64
	most   int64
	// startFailed maps the tasks whose last attempt could not start to
	// that attempt's number as the simulator counts them (simAttempt).
	// A restart on a move's placement that could not start is a failure
	// in failed instead: to the simulator the move continues the attempt
	// at once, with no start that could fail.
	startFailed map[int]int
	// startLost are the starts given up as never started (the attempt
	// as the simulator counts them, and the seconds from the start).
	startLost []scenario.StartLost
	// attemptLost are the attempts lost on nodes that stayed up
	// (lostOnUpNode), as startLost.
	attemptLost []scenario.StartLost
	// agentPreempted are the attempts their agent preempted
	// (whatif_leave.go), as startLost.
	agentPreempted []scenario.StartLost
	// lost counts the tasks whose last attempt its node's loss ended (the
	// task failed, or waits still); most counts the work such an attempt
	// had reached, which a run time must pass for the loss to replay.
	lost int
	// open counts the tasks whose last attempt was still open when
	// exported, and openMost is the most work one of them had done then:
	// a run time that ends them before it would end them before they
	// ended live.
	open     int
	openMost int64
	// stopped are the tasks a searcher stopped as they ran. They are in
	// failed too, since a run time must pass their work as a failure's
	// (exportRunTime), but the export writes them as stops, which end
	// them as the live master did (exportStops).
	stopped map[int]bool
	// done maps the tasks whose last attempt completed to their work, in
	// the same units as mean: those whose work is not the job's run time
	// get runs of their own.
	done map[int]int64
	// exitFailed says a task of the job was failed by its exit actions
	// after a preemption: a run time must pass most for the failure to
	// replay, as for a loss.
	exitFailed bool
}

// An elastic job's work is slot-seconds, as the simulator models it: an
// attempt does as much work per second as it holds slots.
//
// With checkpoint_every (every seconds), an attempt asked to stop keeps
// only the work of its periodic checkpoints, counted from its start, as
// the simulator models it: the master learns of no checkpoint, and
// estimates them so too (lifecycle.LastCheckpoint).
func workOf(j store.Job, atts []store.Attempt, hist *historyEvents, since, now time.Time, elastic bool, every int64) jobWork {
	sec := func(t time.Time) int64 { return int64(t.Sub(since) / time.Second) }
	tw := taskWork{work: map[int]int64{}, done: map[int]bool{}, failed: map[int]bool{}, lost: map[int]bool{},
		open: map[int]bool{}, last: map[int][2]int64{}, reach: map[int]int64{}}
	var w jobWork
	for _, a := range atts {
		end := a.EndedAt
		if end.IsZero() {
			end = now
		}
		w.longest = max(w.longest, int64(end.Sub(a.StartedAt).Seconds()))
		if j.TimeLimit > 0 && a.EndState == store.AttemptKilled && end.Sub(hist.first(atts, a)) >= j.TimeLimit {
			w.limited = true
		}
		asked := false
		if at, ok := hist.preempted[attemptKey{a.JobID, a.Index, a.Number}]; ok && a.EndState == store.AttemptPreempted {
			end, asked = at, true
		} else if l, ok := hist.agentPreempted(atts, a, sec); ok {
			asked = true // its checkpoint saved what a preemption's does
			if at, ok := hist.agentStopped[attemptKey{a.JobID, a.Index, a.Number}]; ok {
				end = at // the replay ends it at its agent's stop (whatif_leave.go)
			}
			w.agentPreempted = append(w.agentPreempted, l)
		}
		rate := int64(1)
		if elastic {
			rate = 0
			for _, p := range a.Placement {
				rate += int64(len(p.GPUs))
			}
		}
		if k := (attemptKey{a.JobID, a.Index, a.Number}); hist.startLost[k] && a.EndState == store.AttemptLost {
			if after := sec(a.EndedAt) - sec(a.StartedAt); after > 0 {
				w.startLost = append(w.startLost, scenario.StartLost{Task: a.Index, Attempt: hist.simAttempt(atts, a), After: after})
			}
		}
		if hist.startCaughtByLoss(atts, a) {
			// Given up by the simulator any time after the node's
			// loss, which catches it first and requeues it
			// (lifecycle.Task.Unanswered), as the master did.
			after := sec(a.EndedAt) - sec(a.StartedAt) + 1
			w.startLost = append(w.startLost, scenario.StartLost{Task: a.Index, Attempt: hist.simAttempt(atts, a), After: after})
		}
		if hist.lostOnUpNode(a) {
			// After 0 too: lost in the second it started, which the
			// simulator applies once that instant has settled. From the
			// start of the attempt a move or resize continued, as the
			// simulator counts it.
			after := sec(a.EndedAt) - sec(hist.first(atts, a))
			w.attemptLost = append(w.attemptLost, scenario.StartLost{Task: a.Index, Attempt: hist.simAttempt(atts, a), After: after})
		}
		// A failed task, whose start failed or not, is never retried.
		if n, ok := hist.startFailure(atts, a); ok && a.EndState == store.AttemptFailed {
			if w.startFailed == nil {
				w.startFailed = map[int]int{}
			}
			w.startFailed[a.Index] = n
			a.EndState = "" // not a failure after work
		}
		if hist.stopped[attemptKey{a.JobID, a.Index, a.Number}] && a.EndState == store.AttemptKilled {
			if w.stopped == nil {
				w.stopped = map[int]bool{}
			}
			w.stopped[a.Index] = true
			a.EndState = store.AttemptFailed // ends after its work, as a failure does
		}
		start, stop := sec(a.StartedAt), sec(end)
		if asked && every > 0 {
			stop = start + (stop-start)/every*every
		}
		tw.add(a, start, stop, rate, every, hist.savedOnLoss(j, atts, a))
	}
	tw.sum(&w, int64(max(j.Slots, 1)), elastic)
	w.exitFailed = hist.exitFailed[j.ID]
	return w
}

// taskWork gathers what workOf reads off a job's attempts, by task.
type taskWork struct {
	work               map[int]int64
	done, failed, lost map[int]bool     // how the last attempt ended
	open               map[int]bool     // whether it was still open when exported
	last               map[int][2]int64 // the ending attempt's length and rate
	reach              map[int]int64    // the work a lost attempt had reached
}

// add counts attempt a, from start to end (whole seconds from the
// window's start) at rate, with checkpoint_every every (0 for none);
// saved says a lost a's parts on nodes still up checkpointed
// (savedOnLoss).
func (tw *taskWork) add(a store.Attempt, start, end, rate, every int64, saved bool) {
	i := a.Index
	tw.open[i] = a.Open()
	tw.lost[i] = a.EndState == store.AttemptLost
	if tw.lost[i] {
		// A lost attempt throws away its progress since its last
		// periodic checkpoint, as the simulator's node_down and lost do
		// (lifecycle.Tasks.Lose; what a move saved counts in the
		// attempt it continued), or since the checkpoint its parts on
		// nodes still up were asked for (saved), as a preemption's
		// request; the task had to be working until then.
		tw.reach[i] = max(tw.reach[i], tw.work[i]+(end-start)*rate)
		kept := int64(0)
		switch {
		case every > 0:
			kept = (end - start) / every * every
		case saved:
			kept = end - start
		}
		end = start + kept
	}
	tw.work[i] += (end - start) * rate
	tw.done[i] = a.EndState == store.AttemptCompleted
	if a.EndState == store.AttemptFailed {
		tw.failed[i] = true
	}
	if a.EndState == store.AttemptCompleted || a.EndState == store.AttemptFailed {
		tw.last[i] = [2]int64{end - start, rate}
	}
}

// sum fills in w from the tasks' work, for a job of slots slots.
func (tw *taskWork) sum(w *jobWork, slots int64, elastic bool) {
	// An elastic task's work is exported as seconds at full size: the
	// fewest whose slot-seconds end the last attempt when it ended, as
	// the simulator ends it (lifecycle.Task.Due rounds up to the second).
	units := func(i int) int64 {
		if !elastic {
			return tw.work[i]
		}
		l := tw.last[i]
		if l[0] < 1 {
			return (tw.work[i] + slots - 1) / slots
		}
		return (tw.work[i]-l[0]*l[1]+(l[0]-1)*l[1])/slots + 1
	}
	for i := range tw.failed {
		if w.failed == nil {
			w.failed = map[int]int64{}
		}
		w.failed[i] = units(i)
	}
	for i := range tw.work {
		w.most = max(w.most, units(i))
		if tw.open[i] {
			w.open++
			w.openMost = max(w.openMost, units(i))
		}
	}
	for _, r := range tw.reach {
		if elastic {
			r = (r + slots - 1) / slots
		}
		w.most = max(w.most, r)
	}
	for _, l := range tw.lost {
		if l {
			w.lost++
		}
	}
	var sum int64
	for i, d := range tw.done {
		if d {
			if w.done == nil {
				w.done = map[int]int64{}
			}
			w.done[i] = units(i)
			sum += w.done[i]
			w.n++
		}
	}
	if w.n > 0 {
		w.mean = sum / int64(w.n)
	}
}

// killedByLimit says whether a killed job ended as an attempt ran into
// its time limit: the replay's time limit ends it, and a kill event at
// the same time would name a job the user never killed. The attempt's end
// and the job's are stamped by separate reads of the clock, a moment
// apart on a real one, so "the same time" is within a second.
func killedByLimit(j store.Job, atts []store.Attempt, hist *historyEvents) bool {
	for _, a := range atts {
		if j.TimeLimit > 0 && a.EndState == store.AttemptKilled && sameMoment(a.EndedAt, killTime(j, hist.kills)) &&
			a.EndedAt.Sub(hist.first(atts, a)) >= j.TimeLimit {
			return true
		}
	}
	return false
}

// sameMoment says whether two stamps of one transition, each a read of
// the clock, are the same moment: less than a second apart.
func sameMoment(a, b time.Time) bool {
	d := a.Sub(b)
	return d > -time.Second && d < time.Second
}

// continues says whether attempt a is its task restarting on the
// placement a move or resize reserved, continuing the attempt before it
// (prev) as the simulator counts attempts.
func (h *historyEvents) continues(atts []store.Attempt, a store.Attempt) (prev store.Attempt, ok bool) {
	for i := range atts {
		if b := atts[i]; b.JobID == a.JobID && b.Index == a.Index && b.Number == a.Number-1 {
			return b, h.moved[attemptKey{b.JobID, b.Index, b.Number}] && b.EndState == store.AttemptPreempted &&
				a.StartedAt.Equal(b.EndedAt)
		}
	}
	return store.Attempt{}, false
}

// startFailure says whether attempt a could not start, and its number
// as the simulator (and the decision log) counts its task's attempts,
// from 1, a move or resize continuing the attempt before it; false too
// when a is such a continuation, which the simulator never starts.
func (h *historyEvents) startFailure(atts []store.Attempt, a store.Attempt) (int, bool) {
	if !h.startFailed[attemptKey{a.JobID, a.Index, a.Number}] {
		return 0, false
	}
	if _, ok := h.continues(atts, a); ok {
		return 0, false
	}
	return h.simAttempt(atts, a), true
}

// simAttempt is attempt a's number as the simulator counts attempts: a
// restart on a move's or resize's placement continues the one before.
func (h *historyEvents) simAttempt(atts []store.Attempt, a store.Attempt) int {
	n := 0
	for _, b := range atts {
		if b.JobID == a.JobID && b.Index == a.Index && b.Number <= a.Number {
			if _, ok := h.continues(atts, b); !ok {
				n++
			}
		}
	}
	return n
}

// lostOnUpNode says whether attempt a ended lost, its agent not running
// it, at a sync of its node (so with the node up): the simulator's
// EventAttemptLost. Its node may have been lost while it ran, the attempt
// held through the loss (lost_node_grace): at the node's return its agent
// did not list it, as after a takeover by a join token (a new agent on
// the name, trial 2026-11-29b B14) or a reboot within the grace; the
// simulator's node_up brings a held attempt back running, and this loss
// ends it there as live. One that continues a move or resize is the same
// attempt to the simulator, whose re-placement's landing promises the
// loss again (sim's relanded).
func (h *historyEvents) lostOnUpNode(a store.Attempt) bool {
	return h.notRun[attemptKey{a.JobID, a.Index, a.Number}] && a.EndState == store.AttemptLost
}

// nodeLostUnder says whether a node of attempt a's placement was lost
// between its start and its end.
func (h *historyEvents) nodeLostUnder(a store.Attempt) bool {
	for _, p := range a.Placement {
		for _, at := range h.nodeLosses[p.Node] {
			if !at.Before(a.StartedAt) && !at.After(a.EndedAt) {
				return true
			}
		}
	}
	return false
}

// startCaughtByLoss says whether attempt a ended lost by a loss of a
// node of its placement before any agent answered its start (it never
// ran: the master requeued it, lifecycle.LostRequeues with ran false,
// and held it through no grace): the simulator's start_lost, which the
// node_down catches first. A gang's attempt some of whose parts ran is
// not (partRan): the master took it to have run, so the replay loses it
// as an attempt that ran. One that continues a move or resize is left
// out: the simulator restarts a re-placed task without a start of its
// own to give up.
func (h *historyEvents) startCaughtByLoss(atts []store.Attempt, a store.Attempt) bool {
	k := attemptKey{a.JobID, a.Index, a.Number}
	if a.EndState != store.AttemptLost || !a.RunningAt.IsZero() || h.startLost[k] || h.notRun[k] || h.partRan[k] {
		return false
	}
	if _, ok := h.continues(atts, a); ok {
		return false
	}
	return h.nodeLostUnder(a)
}

// first is when attempt a began as the simulator counts attempts: the
// start of the attempt a move or resize continued (the task restarted
// on its reserved placement as the checkpoint landed), else its own. Its
// time limit runs from there, as the live master counts it
// (mattempt.first).
func (h *historyEvents) first(atts []store.Attempt, a store.Attempt) time.Time {
	for {
		prev, ok := h.continues(atts, a)
		if !ok {
			return a.StartedAt
		}
		a = prev
	}
}
