package master

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// Exits that outran a lost node's grace. A task that must not run twice
// (not preemptible) is held through its node's loss for lost_node_grace
// (holdsThroughLoss); when the grace runs out the master ends its
// attempt lost, which fails the task, on no agent's word (endAttempt).
// But the task's process may have exited on its own meanwhile, with
// only its agent down: the agent, back, reports the exit from the task
// shim's status (agentd: "attempt ended while the agent was down"), with
// the time the process exited. The master then knows the loss was no
// loss: when that exit came before the master ended the attempt, it
// ends the attempt as the agent says (completed, or failed with its exit
// code), the task as that exit ends it, and an ended job as its tasks
// now end it (lifecycle.EndedJob), its end moved to the exit (or a later
// end of another task: store's lateJobEnd), in one store transaction
// with an event that says why (store.AmendLostEnd); and it charges the
// attempt until the exit, cutting its usage records there (usageexit.go:
// an attempt is charged until its processes exited, by its agent's
// word), which the GPU-seconds metric had held back (lostusage.go). The
// attempt keeps its end (EndedAt): the master held its GPUs until then,
// and the what-if export replays it as any exit heard of late
// (whatif_exits.go: late_exits). The trial metrics the agent sends ahead
// of the exit are stored and shown to a live experiment's searcher
// (experiments.go: lateMetric).
//
// A multi-node attempt is amended only once every part's exit is known
// to precede the master's end: the parts on nodes not lost that exited
// on their own before it are kept with the lost end (keepPartExits), and
// each lost node's part as its agent reports it (store.RecordPartExits),
// until the last; the attempt then ends as its parts did, by the rule
// of a normal finish (gangEnd), at the last part's exit. A part the
// master killed at its end did not exit on its own: the attempt stays
// lost. An exit at or after the master's end of the attempt stays a
// loss: the master gave up on it first, as a kill that reached a
// process before its exit does.

// lateExits amends the ends of attempts the master ended lost that
// their agents report exited before: a part of agents (its late field),
// over the same server.
type lateExits struct {
	server
}

// lateExit applies an agent's report of the exit of attempt r.Task that
// the master no longer holds open. Callers hold mu.
func (ag lateExits) lateExit(ctx context.Context, n *mnode, r api.Report) error {
	ag.m.agents.strays.leftExit(n, r) // a lost gang's part that ended while no master heard (lostgangend.go)
	part, ok := partExitOf(n.rec.Name, r)
	if !ok {
		return ag.noteLost(ctx, n, r) // preempted or killed: no end of its task (lostnote.go)
	}
	tx := ag.m.batches.w()
	lo, ok, err := ag.lostNamed(ctx, tx, n, r)
	if err != nil {
		return err
	}
	if !ok {
		return ag.noteLost(ctx, n, r) // its task not failed at it: requeued at the loss, or none
	}
	jid, a, t := lo.jid, lo.a, lo.t
	l := store.LateExit{JobID: jid, Index: a.Index, Attempt: a.Number, From: store.TaskFailed, At: ag.m.now()}
	if ok, err := ag.lateParts(ctx, tx, a, part, t != nil, &l); !ok || err != nil {
		return err
	}
	l.Reason = lateExitReason(l, n.rec.Name, len(a.Placement))
	if t == nil {
		if ok, err := ag.endedJobAfter(ctx, tx, &l); errors.Is(err, store.ErrNotFound) {
			return nil // pruned meanwhile
		} else if err == nil && !ok {
			return ag.noteLost(ctx, n, r) // the loss did not fail the task (requeued, killed)
		} else if err != nil {
			return err
		}
	}
	rec, trims, err := tx.AmendLostEnd(ctx, l)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		ag.m.log.Warn("late exit not applied", "task", r.Task.String(), "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	if t != nil {
		ag.m.amendTask(t, rec)
		t.exited = l.ExitedAt
	}
	ag.m.batches.later(func() {
		ag.m.recharged(trims)
		ag.m.tails.amended(attemptKey{jid, a.Index, a.Number}, trims)
	})
	ag.m.log.Warn("attempt ended lost had exited before its end; ended as its agent reported", "task", r.Task.String(),
		"state", l.To, "exited_at", l.ExitedAt, "job", l.JobTo)
	return nil
}

// lostOne is an attempt ended lost, its task failed, that an agent's
// late report names: its job, its record, and its task in the mirror
// (nil once its job left the mirror).
type lostOne struct {
	jid int64
	a   store.Attempt
	t   *mtask
}

// lostNamed finds in tx the attempt ended lost that report r of node n
// names, before the master's end of it (lostAttempt), whose task still
// ends there (failed, in the mirror, with no attempt since); ok is false
// when r names none. Callers hold mu.
func (ag lateExits) lostNamed(ctx context.Context, tx store.Tx, n *mnode, r api.Report) (lostOne, bool, error) {
	jid, err := strconv.ParseInt(r.Task.JobID, 10, 64)
	if err != nil {
		return lostOne{}, false, nil
	}
	atts, err := tx.Attempts(ctx, store.AttemptFilter{JobIDs: []int64{jid}})
	if err != nil {
		return lostOne{}, false, fmt.Errorf("read the attempts of job %d: %w", jid, err)
	}
	a, ok := lostAttempt(atts, r.Task, n.rec.Name, r.At)
	if !ok {
		return lostOne{}, false, nil
	}
	var t *mtask
	if j := ag.m.jobs[jid]; j != nil {
		if t = j.tasks[a.Index]; t.att != nil || t.rec.State != store.TaskFailed || t.rec.Attempt != a.Number {
			return lostOne{}, false, nil
		}
	}
	return lostOne{jid, a, t}, true, nil
}

// keepPartExits stores, with the end of a multi-node attempt that op
// ends lost, failing its task (rec), how its parts that had exited before
// then exited (on nodes not lost, heard of in time), so that a late exit
// of its other parts can amend it (lateParts) whenever it comes.
func keepPartExits(ctx context.Context, tx store.Tx, op *taskOp, rec store.Task) error {
	if op.tr.End == nil || op.tr.End.State != store.AttemptLost || rec.State != store.TaskFailed ||
		op.t.att == nil || len(op.t.att.parts) < 2 {
		return nil
	}
	var parts []store.PartExit
	for _, p := range op.t.att.parts {
		if p.state != partExited || !p.exitedAt.Before(op.tr.At) {
			continue
		}
		if e, ok := partExitOf(p.node, api.Report{Outcome: string(p.outcome), ExitCode: p.exitCode, At: p.exitedAt}); ok {
			parts = append(parts, e)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	_, err := tx.RecordPartExits(ctx, op.tr.JobID, op.tr.Index, op.tr.Attempt, parts)
	if errors.Is(err, store.ErrInvalid) {
		return nil // an agent's clock the store will not take: the end must not wait on it, the part stays unknown
	}
	return err
}

// partExitOf is the exit that report r of node says, when it says the
// attempt's process exited on its own (completed or failed) at a time.
func partExitOf(node string, r api.Report) (store.PartExit, bool) {
	p := store.PartExit{Node: node, ExitCode: r.ExitCode, ExitedAt: r.At}
	switch agent.Outcome(r.Outcome) {
	case agent.OutcomeCompleted:
		p.State = store.AttemptCompleted
		if p.ExitCode == nil {
			zero := 0
			p.ExitCode = &zero
		}
	case agent.OutcomeFailed:
		p.State = store.AttemptFailed
	default:
		return p, false
	}
	return p, !r.At.IsZero()
}

// lateParts sets how l's attempt a ended, its part part exited late: as
// part says for a one-node attempt; for a multi-node one, once every
// part's exit is known (recorded with the end, or reported late since:
// store.RecordPartExits), as its parts say (gangEnd), the last exit its
// exit. It reports false, with part recorded, while a part's exit is
// missing, and when the task is not failed at a (live: the caller
// checked it in the mirror).
func (ag lateExits) lateParts(ctx context.Context, tx store.Tx, a store.Attempt, part store.PartExit, live bool,
	l *store.LateExit) (bool, error) {
	parts := []store.PartExit{part}
	if len(a.Placement) > 1 {
		if !live {
			if ok, err := failedAt(ctx, tx, a); !ok || err != nil {
				return false, err
			}
		}
		var err error
		parts, err = tx.RecordPartExits(ctx, a.JobID, a.Index, a.Number, parts)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
			ag.m.log.Warn("late exit of a part not kept", "job", a.JobID, "index", a.Index, "attempt", a.Number, "err", err)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if len(parts) < len(a.Placement) {
			ag.m.log.Info("part of an attempt ended lost had exited before its end; waiting for its other parts' exits",
				"job", a.JobID, "index", a.Index, "attempt", a.Number, "node", part.Node, "known", len(parts), "parts", len(a.Placement))
			return false, nil
		}
	}
	l.State, l.ExitCode, l.ExitedAt = gangEnd(a.Placement, parts)
	l.To = store.TaskCompleted
	if l.State == store.AttemptFailed {
		l.To = store.TaskFailed
	}
	return true, nil
}

// gangEnd is how an attempt placed on placement ended, every part having
// exited as parts say: as the master ends one whose parts all exited
// (exitKind, exitCode): completed, exit 0, when every part completed,
// else failed with the exit code of the first failed part in placement
// order; at the last part's exit.
func gangEnd(placement []store.Placement, parts []store.PartExit) (store.AttemptState, *int, time.Time) {
	byNode := map[string]store.PartExit{}
	var last time.Time
	for _, p := range parts {
		byNode[p.Node] = p
		if p.ExitedAt.After(last) {
			last = p.ExitedAt
		}
	}
	for _, pl := range placement {
		if p := byNode[pl.Node]; p.State == store.AttemptFailed {
			return store.AttemptFailed, p.ExitCode, last
		}
	}
	zero := 0
	return store.AttemptCompleted, &zero, last
}

// failedAt reports whether attempt a's task, whose job left the mirror,
// is failed at a: only such a task can a late exit amend.
func failedAt(ctx context.Context, tx store.Tx, a store.Attempt) (bool, error) {
	tasks, err := tx.Tasks(ctx, store.TaskFilter{JobID: a.JobID})
	if err != nil {
		return false, fmt.Errorf("read the tasks of job %d: %w", a.JobID, err)
	}
	for _, t := range tasks {
		if t.Index == a.Index {
			return t.State == store.TaskFailed && t.Attempt == a.Number, nil
		}
	}
	return false, nil
}

// lostAttempt is the attempt id names among atts when it ended lost,
// after exited, and ran on node (among others, for a gang).
func lostAttempt(atts []store.Attempt, id agent.TaskID, node string, exited time.Time) (store.Attempt, bool) {
	for _, a := range atts {
		if a.Index != id.TaskIndex || a.Number != id.Attempt {
			continue
		}
		if a.EndState != store.AttemptLost || exited.Before(a.StartedAt) || !exited.Before(a.EndedAt) {
			return a, false
		}
		for _, p := range a.Placement {
			if p.Node == node {
				return a, true
			}
		}
		return a, false
	}
	return store.Attempt{}, false
}

// endedJobAfter sets the job change of l, whose job ended and left the
// mirror: the state its tasks end it in once l's task ends as l says.
// It reports false when l's task is not failed at l's attempt.
func (ag lateExits) endedJobAfter(ctx context.Context, tx store.Tx, l *store.LateExit) (bool, error) {
	job, err := tx.Job(ctx, l.JobID)
	if err != nil {
		return false, fmt.Errorf("read job %d: %w", l.JobID, err)
	}
	tasks, err := tx.Tasks(ctx, store.TaskFilter{JobID: l.JobID})
	if err != nil {
		return false, fmt.Errorf("read the tasks of job %d: %w", l.JobID, err)
	}
	failed, killed := 0, 0
	for _, t := range tasks {
		state := t.State
		if t.Index == l.Index {
			if t.State != l.From || t.Attempt != l.Attempt {
				return false, nil
			}
			state = l.To
		}
		switch state {
		case store.TaskFailed:
			failed++
		case store.TaskKilled:
			killed++
		}
	}
	l.JobFrom = job.State
	l.JobTo = lifecycle.EndedJob(len(tasks), failed, killed, job.Kind == store.KindExperiment)
	switch {
	case !job.State.Terminal() || l.JobTo == job.State:
		l.JobTo = ""
	case l.JobTo == store.JobCompleted && failed+killed > 0:
		l.JobReason = fmt.Sprintf("%d of %s completed", len(tasks)-failed-killed, plural.Count(len(tasks), "trial"))
	case l.JobTo == store.JobCompleted:
		l.JobReason = "every task completed"
	case l.JobTo == store.JobKilled:
		l.JobReason = fmt.Sprintf("%d of %s killed", killed, plural.Count(len(tasks), "task"))
	}
	if l.JobTo != "" {
		l.JobReason += fmt.Sprintf(" (task %d %s while its node was lost, as its agent reported on its return)", l.Index, l.To)
	}
	return true, nil
}

// lateExitReason says why a late exit amends an attempt's end: "completed
// at 11:59:55 while its node n2 was lost; reported when the agent
// returned at 12:00:30"; for an attempt of parts parts, "every part
// completed, the last at ...", or "a part failed with exit code 3, the
// last exit at ...".
func lateExitReason(l store.LateExit, node string, parts int) string {
	what := "completed"
	if l.State == store.AttemptFailed {
		what = "failed"
		if l.ExitCode != nil {
			what += " with exit code " + strconv.Itoa(*l.ExitCode)
		}
	}
	at := " at "
	switch {
	case parts > 1 && l.State == store.AttemptFailed:
		what, at = "a part "+what, ", the last exit at "
	case parts > 1:
		what, at = "every part "+what, ", the last at "
	}
	return fmt.Sprintf("%s%s%s while its node %s was lost; reported when the agent returned at %s",
		what, at, l.ExitedAt.UTC().Format(time.TimeOnly), node, l.At.UTC().Format(time.TimeOnly))
}

// recharged takes back from the fair share what usage records cut at a
// late exit no longer charge. The GPU-seconds metric, a counter, never
// counted what a late exit can cut (lostusage.go: tailBook.amended).
func (m *Master) recharged(trims []store.UsageTrim) {
	for _, tr := range trims {
		b, a := tr.Before, tr.After
		m.fair.charge(b.Pool, b.Project, b.User, b.Start.Unix(), b.End.Unix(), -b.GPUSeconds)
		m.fair.charge(a.Pool, a.Project, a.User, a.Start.Unix(), a.End.Unix(), a.GPUSeconds)
	}
}
