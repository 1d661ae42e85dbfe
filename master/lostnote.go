package master

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// Ends of lost attempts heard of late, that amend nothing. When a node's
// agent dies, the master ends a preemptible attempt there lost at the
// node's loss and requeues its task; meanwhile the task's shim fences the
// attempt on its own (agent/shimfence.go): it asks the task to checkpoint
// and stops it, before the master's loss, so that the requeued attempt
// never overlaps it. The agent, back, reports the attempt preempted, with
// the time its processes exited. That report cannot amend the attempt as
// a late exit does (lateexit.go: the task was requeued, not failed, and
// a preemption is no end of a task), and the scheduler's decision, the
// requeue at the loss, stands. But the researcher's question after a
// node loss, "did my old copy stop, and checkpoint, before the new one
// started?", has its answer there, and the account was charged until the
// loss for GPUs idle since the exit. So the master notes the report on
// the attempt (store.NoteLostExit), once: its end by the agent's word
// (ReportedEnd and ReportedReason) and its exit (ExitedAt), with an event
// of the job that says it, and cuts the attempt's usage at the exit in
// the same transaction, taking the cut back from the fair share
// (recharged) and, for the GPU-seconds metric, from the tail it held
// (lostusage.go). The attempt stays lost, ended at the loss (EndedAt),
// which the scheduler and the event log keep. `allot job show` and
// `allot explain` say when and how it stopped (lostStopped).
//
// Any end with an exit time is noted so (a preemptible task that
// completed or failed while its node was lost, too) when a late exit
// does not amend it: only an attempt of one node, since the end of one
// part says nothing of the others'.

// noteLost notes on the one-node attempt ended lost that report r of
// node n names, before the master's end of it, the end r reports.
// Callers hold mu.
func (ag lateExits) noteLost(ctx context.Context, n *mnode, r api.Report) error {
	end := store.AttemptState(r.Outcome)
	switch agent.Outcome(r.Outcome) {
	case agent.OutcomeCompleted, agent.OutcomeFailed, agent.OutcomePreempted, agent.OutcomeKilled:
	default:
		return nil
	}
	jid, err := strconv.ParseInt(r.Task.JobID, 10, 64)
	if err != nil || r.At.IsZero() {
		return nil
	}
	tx := ag.m.batches.w()
	atts, err := tx.Attempts(ctx, store.AttemptFilter{JobIDs: []int64{jid}})
	if err != nil {
		return fmt.Errorf("read the attempts of job %d: %w", jid, err)
	}
	a, ok := lostAttempt(atts, r.Task, n.rec.Name, r.At)
	if !ok || len(a.Placement) != 1 || a.ReportedEnd != "" {
		return nil
	}
	var code *int // a preempted or killed process's exit code says nothing of its end
	if p, ok := partExitOf(n.rec.Name, r); ok {
		code = p.ExitCode
	}
	l := store.LostExit{JobID: jid, Index: a.Index, Attempt: a.Number, End: end, ExitCode: code, ExitedAt: r.At,
		Reason: r.Error, At: ag.m.now()}
	a.ReportedEnd, a.ReportedReason, a.ExitCode, a.ExitedAt = l.End, l.Reason, l.ExitCode, l.ExitedAt
	l.Note = lostNoteReason(a, n.rec.Name, l.At)
	trims, err := tx.NoteLostExit(ctx, l)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		ag.m.log.Warn("late end of a lost attempt not noted", "task", r.Task.String(), "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	ag.m.batches.later(func() {
		ag.m.recharged(trims)
		ag.m.tails.amended(attemptKey{jid, a.Index, a.Number}, trims)
	})
	ag.m.log.Info("attempt ended lost had ended before its loss; noted as its agent reported", "task", r.Task.String(),
		"end", l.End, "exited_at", l.ExitedAt)
	return nil
}

// lostNoteReason is the event's reason for the note of lost attempt a,
// its reported end set, by node's agent heard at heard: "the agent of
// node qa, back at 19:16:02, reported it exited at 18:45:13, 11s before
// its loss (fenced by its task shim, checkpoint requested)".
func lostNoteReason(a store.Attempt, node string, heard time.Time) string {
	return fmt.Sprintf("the agent of node %s, back at %s, reported it exited at %s, %s before its loss (%s)",
		node, heard.UTC().Format(time.TimeOnly), a.ExitedAt.UTC().Format(time.TimeOnly),
		a.EndedAt.Sub(a.ExitedAt).Round(time.Second), lostStopped(a))
}

// lostStopped says how lost attempt a's processes ended by its agent's
// late report, "" when it reported none: "fenced by its task shim,
// checkpoint requested", "preempted, checkpoint requested", "completed",
// "failed with exit code 3", "killed".
func lostStopped(a store.Attempt) string {
	switch {
	case a.ReportedEnd == "":
		return ""
	case strings.Contains(a.ReportedReason, agent.FenceStopped) && strings.Contains(a.ReportedReason, agent.FenceKilled):
		return "fenced by its task shim, checkpoint requested, killed at the end of its grace"
	case strings.Contains(a.ReportedReason, agent.FenceStopped):
		return "fenced by its task shim, checkpoint requested"
	case a.ReportedEnd == store.AttemptPreempted:
		return "preempted, checkpoint requested"
	case a.ReportedEnd == store.AttemptFailed && a.ExitCode != nil:
		return "failed with exit code " + strconv.Itoa(*a.ExitCode)
	}
	return string(a.ReportedEnd)
}

// lostView is lost attempt a as explain lists it, with when and how its
// processes ended by its agent's late report, if it made one.
func lostView(a store.Attempt) api.Preemption {
	p := api.Preemption{Task: a.Index, Attempt: a.Number, At: a.EndedAt.UTC(), Why: a.Reason, Stopped: lostStopped(a)}
	if p.Stopped != "" {
		x := a.ExitedAt.UTC()
		p.ExitedAt = &x
	}
	return p
}
