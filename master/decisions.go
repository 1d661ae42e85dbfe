package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/store"
)

// The live side of the canonical decision log (package decisionlog): the
// decisions the master made for the jobs submitted in a window, read back
// from what it already persists before acting — each attempt (its start,
// placement and end) and the event log's transitions to preempting and
// killing — so recording them costs nothing on the scheduling path. Times
// count whole seconds from since, jobs are named as the what-if export
// names them, so that a replay of the export through the simulator
// (sim.Decisions) writes the same log when both made the same decisions.

// unplacedReason is the reason of the requeue of a task whose move's or
// resize's checkpoint landed with a node of its new placement down
// (lifecycle.Restartable): the move or resize became a preemption
// (store.CauseUnplaced).
const unplacedReason = "requeued: a node of its new placement is down"

// decisions returns the decisions for the jobs submitted in [since,
// until).
//
// A move or a resize is one attempt to the simulator, re-placed at once,
// and two to the master: the attempt checkpoints (a transition to
// preempting that reserves the new placement) and the task restarts on
// the reservation, as a new attempt, when the checkpoint lands. The log
// counts attempts as the simulator does: such a restart continues the
// attempt before it, written as a move or resize line at the request
// with the new placement, and the attempt's end is the last part's.
func (hs *history) decisions(ctx context.Context, since, until time.Time) ([]decisionlog.Decision, error) {
	// The window's jobs, and the attempts of their id range only: the
	// log is served to admins (GET /history/decisions), so a week's log
	// must not read the whole history.
	jobs, err := hs.st.Jobs(ctx, store.JobFilter{SubmittedSince: since, SubmittedBefore: until})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	atts, err := hs.st.Attempts(ctx, store.AttemptFilter{FromJobID: jobs[0].ID, ToJobID: jobs[len(jobs)-1].ID})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	events, err := hs.st.Events(ctx, store.EventFilter{Since: since})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	l := decisionLogger{since: since, names: map[int64]string{}, stops: map[attemptKey]stopRequest{},
		limited: map[attemptKey]bool{}, timedOut: map[int64]bool{}, unplaced: map[attemptKey]bool{},
		kills: killTimes(events)}
	for _, j := range jobs {
		if !j.SubmittedAt.Before(since) && j.SubmittedAt.Before(until) {
			l.names[j.ID] = exportName(j)
		}
	}
	for _, e := range events {
		k := attemptKey{e.JobID, e.Index, e.Attempt}
		switch {
		case l.names[e.JobID] == "" || e.Index < 0:
		case e.Cause == store.CauseAgentStopped: // no pass asked it (agentstop.go)
		case e.Cause == store.CauseRequeued: // a user asked it (api_requeue.go)
		case e.To == string(store.TaskPreempting):
			kind := decisionlog.Preempt
			switch e.Cause {
			case store.CauseMoved:
				kind = decisionlog.Move
			case store.CauseResized:
				kind = decisionlog.Resize
			}
			l.stops[k] = stopRequest{kind, e.At}
		case e.To == string(store.TaskKilling) && e.Cause == store.CauseTimeLimit:
			l.limited[k] = true
		case e.Cause == store.CauseUnplaced:
			l.unplaced[k] = true
		}
	}
	slices.SortFunc(atts, func(a, b store.Attempt) int {
		return cmp.Or(cmp.Compare(a.JobID, b.JobID), cmp.Compare(a.Index, b.Index), cmp.Compare(a.Number, b.Number))
	})
	for i := 0; i < len(atts); {
		n := i + 1
		for n < len(atts) && atts[n].JobID == atts[i].JobID && atts[n].Index == atts[i].Index {
			n++
		}
		if l.names[atts[i].JobID] != "" {
			l.task(atts[i:n])
		}
		i = n
	}
	for _, j := range jobs {
		if l.names[j.ID] != "" && j.State == store.JobKilled && !l.timedOut[j.ID] && !j.EndedAt.IsZero() {
			l.ds = append(l.ds, decisionlog.Decision{At: l.at(killTime(j, l.kills)), Kind: decisionlog.Kill, Job: l.names[j.ID]})
		}
	}
	decisionlog.Sort(l.ds)
	return l.ds, nil
}

// stopRequest is an attempt's transition to preempting: a preemption, a
// move or a resize.
type stopRequest struct {
	kind decisionlog.Kind
	at   time.Time
}

type decisionLogger struct {
	since    time.Time
	names    map[int64]string
	stops    map[attemptKey]stopRequest
	limited  map[attemptKey]bool // attempts killed by their time limit
	timedOut map[int64]bool      // jobs with such an attempt
	// unplaced are the attempts whose move or resize became a
	// preemption (store.CauseUnplaced).
	unplaced map[attemptKey]bool
	kills    map[int64]time.Time // killTimes
	ds       []decisionlog.Decision
}

// at is t in whole seconds from since.
func (l *decisionLogger) at(t time.Time) int64 { return int64(t.Sub(l.since) / time.Second) }

// task logs the attempts of one task, in order.
func (l *decisionLogger) task(atts []store.Attempt) {
	number := 0
	for i, a := range atts {
		k := attemptKey{a.JobID, a.Index, a.Number}
		d := decisionlog.Decision{Job: l.names[a.JobID], Task: a.Index, Nodes: placementNodes(a.Placement)}
		if i > 0 && l.continues(atts[i-1], a) {
			stop := l.stops[attemptKey{a.JobID, a.Index, atts[i-1].Number}]
			d.At, d.Kind = l.at(stop.at), stop.kind
		} else {
			number++
			d.At, d.Kind = l.at(a.StartedAt), decisionlog.Start
		}
		d.Attempt = number
		l.ds = append(l.ds, d)
		stop, stopped := l.stops[k]
		if stopped && (stop.kind == decisionlog.Preempt || l.unplaced[k]) {
			p := d
			p.At, p.Kind = l.at(stop.at), decisionlog.Preempt
			l.ds = append(l.ds, p)
		}
		if a.Open() || (i+1 < len(atts) && l.continues(a, atts[i+1])) {
			continue
		}
		end := decisionlog.Decision{At: l.at(a.EndedAt), Kind: decisionlog.End, Job: d.Job, Task: a.Index,
			Attempt: number, How: endHow(a.EndState)}
		if a.EndState == store.AttemptKilled && l.limited[k] {
			end.How, l.timedOut[a.JobID] = decisionlog.TimeLimit, true
		}
		l.ds = append(l.ds, end)
	}
}

// continues says whether attempt b is a's task restarting on the
// placement a move or resize of a reserved: a was asked to move or
// resize, ended checkpointed, was not requeued instead (unplaced), and b
// started in the same transaction.
func (l *decisionLogger) continues(a, b store.Attempt) bool {
	k := attemptKey{a.JobID, a.Index, a.Number}
	stop := l.stops[k]
	return (stop.kind == decisionlog.Move || stop.kind == decisionlog.Resize) && !l.unplaced[k] &&
		a.EndState == store.AttemptPreempted && b.StartedAt.Equal(a.EndedAt)
}

func placementNodes(ps []store.Placement) []decisionlog.Node {
	nodes := make([]decisionlog.Node, len(ps))
	for i, p := range ps {
		nodes[i] = decisionlog.Node{Name: p.Node, Slots: len(p.GPUs)}
	}
	return nodes
}

func endHow(st store.AttemptState) string {
	switch st {
	case store.AttemptCompleted:
		return decisionlog.Completed
	case store.AttemptPreempted:
		return decisionlog.Preempted
	case store.AttemptKilled:
		return decisionlog.Killed
	case store.AttemptFailed:
		return decisionlog.Failed
	}
	return string(st)
}
