package master

import (
	"context"
	"fmt"
	"strings"
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

// timeLimitReason starts the reason of a kill for a time limit
// (checkTimeLimits).
const timeLimitReason = "time limit of "

// moveReason starts the reason of a move's transition to preempting
// (replacements).
const moveReason = "moving to make room"

// decisionLog returns the decisions for the jobs submitted in [since,
// until). Moves and resizes are not mapped yet (the master restarts a
// moved task as a new attempt where the simulator keeps one): the log
// fails on them rather than miswrite them.
func (m *Master) decisionLog(ctx context.Context, since, until time.Time) ([]decisionlog.Decision, error) {
	jobs, err := m.st.Jobs(ctx, store.JobFilter{})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	atts, err := m.st.Attempts(ctx, store.AttemptFilter{})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	events, err := m.st.Events(ctx, store.EventFilter{})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	names := map[int64]string{}
	for _, j := range jobs {
		if !j.SubmittedAt.Before(since) && j.SubmittedAt.Before(until) {
			names[j.ID] = exportName(j)
		}
	}
	at := func(t time.Time) int64 { return int64(t.Sub(since) / time.Second) }
	type key struct {
		job            int64
		index, attempt int
	}
	preempted := map[key]time.Time{}
	limited := map[key]bool{}
	for _, e := range events {
		k := key{e.JobID, e.Index, e.Attempt}
		switch {
		case names[e.JobID] == "" || e.Index < 0:
		case e.To == string(store.TaskPreempting) &&
			(strings.HasPrefix(e.Reason, moveReason) || strings.HasPrefix(e.Reason, resizeReason)):
			return nil, fmt.Errorf("decision log: job %d task %d: moves and resizes are not mapped yet", e.JobID, e.Index)
		case e.To == string(store.TaskPreempting):
			preempted[k] = e.At
		case e.To == string(store.TaskKilling) && strings.HasPrefix(e.Reason, timeLimitReason):
			limited[k] = true
		}
	}
	var ds []decisionlog.Decision
	timedOut := map[int64]bool{}
	for _, a := range atts {
		name := names[a.JobID]
		if name == "" {
			continue
		}
		k := key{a.JobID, a.Index, a.Number}
		d := decisionlog.Decision{Job: name, Task: a.Index, Attempt: a.Number}
		nodes := make([]decisionlog.Node, len(a.Placement))
		for i, p := range a.Placement {
			nodes[i] = decisionlog.Node{Name: p.Node, Slots: len(p.GPUs)}
		}
		start := d
		start.At, start.Kind, start.Nodes = at(a.StartedAt), decisionlog.Start, nodes
		ds = append(ds, start)
		if t, ok := preempted[k]; ok {
			p := d
			p.At, p.Kind, p.Nodes = at(t), decisionlog.Preempt, nodes
			ds = append(ds, p)
		}
		if a.Open() {
			continue
		}
		end := d
		end.At, end.Kind, end.How = at(a.EndedAt), decisionlog.End, string(a.EndState)
		switch a.EndState {
		case store.AttemptCompleted:
			end.How = decisionlog.Completed
		case store.AttemptPreempted:
			end.How = decisionlog.Preempted
		case store.AttemptKilled:
			end.How = decisionlog.Killed
			if limited[k] {
				end.How, timedOut[a.JobID] = decisionlog.TimeLimit, true
			}
		case store.AttemptFailed:
			end.How = decisionlog.Failed
		}
		ds = append(ds, end)
	}
	for _, j := range jobs {
		if names[j.ID] != "" && j.State == store.JobKilled && !timedOut[j.ID] && !j.EndedAt.IsZero() {
			ds = append(ds, decisionlog.Decision{At: at(j.EndedAt), Kind: decisionlog.Kill, Job: names[j.ID]})
		}
	}
	decisionlog.Sort(ds)
	return ds, nil
}
