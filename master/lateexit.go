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
// now end it (lifecycle.EndedJob), in one store transaction with an
// event that says why (store.AmendLostEnd); and it charges the attempt
// until the exit, cutting its usage records there (usageexit.go: an
// attempt is charged until its processes exited, by its agent's word).
// The attempt keeps its end (EndedAt): the master held its GPUs until
// then, and the what-if export replays it as any exit heard of late
// (whatif_exits.go: late_exits).
//
// Only an attempt on the reporting node alone is amended: a gang's
// other parts, on other nodes, had no say, and the master ended them
// with it. An exit at or after the master's end of the attempt stays a
// loss: the master gave up on it first, as a kill that reached a
// process before its exit does.

// lateExit applies an agent's report of the exit of attempt r.Task that
// the master no longer holds open. Callers hold mu.
func (ag *agents) lateExit(ctx context.Context, n *mnode, r api.Report) error {
	outcome := agent.Outcome(r.Outcome)
	if r.At.IsZero() || (outcome != agent.OutcomeCompleted && outcome != agent.OutcomeFailed) {
		return nil
	}
	jid, err := strconv.ParseInt(r.Task.JobID, 10, 64)
	if err != nil {
		return nil
	}
	tx := ag.m.batches.w()
	atts, err := tx.Attempts(ctx, store.AttemptFilter{JobIDs: []int64{jid}})
	if err != nil {
		return fmt.Errorf("read the attempts of job %d: %w", jid, err)
	}
	a, ok := lostAttempt(atts, r.Task, n.rec.Name, r.At)
	if !ok {
		return nil
	}
	l := store.LateExit{JobID: jid, Index: a.Index, Attempt: a.Number, From: store.TaskFailed,
		To: store.TaskCompleted, State: store.AttemptCompleted, ExitCode: r.ExitCode, ExitedAt: r.At, At: ag.m.now()}
	if outcome == agent.OutcomeFailed {
		l.To, l.State = store.TaskFailed, store.AttemptFailed
	} else if l.ExitCode == nil {
		zero := 0
		l.ExitCode = &zero
	}
	l.Reason = lateExitReason(l, n.rec.Name)
	j := ag.m.jobs[jid]
	var t *mtask
	if j != nil {
		if t = j.tasks[a.Index]; t.att != nil || t.rec.State != store.TaskFailed || t.rec.Attempt != a.Number {
			return nil
		}
	} else if ok, err := ag.endedJobAfter(ctx, tx, &l); errors.Is(err, store.ErrNotFound) || err == nil && !ok {
		return nil // pruned meanwhile, or the loss did not fail the task (requeued, killed)
	} else if err != nil {
		return err
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
		ag.m.setTask(t, rec)
	}
	ag.m.batches.later(func() {
		ag.m.recharged(trims)
		ag.m.amendedTail(attemptKey{jid, a.Index, a.Number}, trims)
	})
	ag.m.log.Warn("attempt ended lost had exited before its end; ended as its agent reported", "task", r.Task.String(),
		"state", l.To, "exited_at", l.ExitedAt, "job", l.JobTo)
	return nil
}

// lostAttempt is the attempt id names among atts when it ended lost,
// after exited, and ran on node alone.
func lostAttempt(atts []store.Attempt, id agent.TaskID, node string, exited time.Time) (store.Attempt, bool) {
	for _, a := range atts {
		if a.Index != id.TaskIndex || a.Number != id.Attempt {
			continue
		}
		if a.EndState != store.AttemptLost || exited.Before(a.StartedAt) || !exited.Before(a.EndedAt) {
			return a, false
		}
		for _, p := range a.Placement {
			if p.Node != node {
				return a, false
			}
		}
		return a, len(a.Placement) > 0
	}
	return store.Attempt{}, false
}

// endedJobAfter sets the job change of l, whose job ended and left the
// mirror: the state its tasks end it in once l's task ends as l says.
// It reports false when l's task is not failed at l's attempt.
func (ag *agents) endedJobAfter(ctx context.Context, tx store.Tx, l *store.LateExit) (bool, error) {
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
// returned at 12:00:30".
func lateExitReason(l store.LateExit, node string) string {
	what := "completed"
	if l.State == store.AttemptFailed {
		what = "failed"
		if l.ExitCode != nil {
			what += " with exit code " + strconv.Itoa(*l.ExitCode)
		}
	}
	return fmt.Sprintf("%s at %s while its node %s was lost; reported when the agent returned at %s",
		what, l.ExitedAt.UTC().Format(time.TimeOnly), node, l.At.UTC().Format(time.TimeOnly))
}

// recharged takes back from the fair share what usage records cut at a
// late exit no longer charge. The GPU-seconds metric, a counter, never
// counted what a late exit can cut (lostusage.go: amendedTail).
func (m *Master) recharged(trims []store.UsageTrim) {
	for _, tr := range trims {
		b, a := tr.Before, tr.After
		m.fair.charge(b.Pool, b.Project, b.User, b.Start.Unix(), b.End.Unix(), -b.GPUSeconds)
		m.fair.charge(a.Pool, a.Project, a.User, a.Start.Unix(), a.End.Unix(), a.GPUSeconds)
	}
}
