package master

import (
	"fmt"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// A job's exit actions (on_preempt, max_retries) say whether a task that a
// preemption or a lost attempt stopped waits to be rescheduled or fails,
// by the rule the simulator follows too (lifecycle.ExitRequeues, which
// lifecycle.Ending.Decide applies for both: ending, lostEnd). A job
// file may give them (jobfile.Resources, kept in the job's stored spec);
// without them the job takes its pool's (config.Pool), read when an
// attempt ends, as the simulator's scenario pools give theirs.

// exitActions are a job's exit actions in a scenario's terms:
// spec.OnPreemptReschedule or spec.OnPreemptFail, and the times a task
// may be rescheduled before it fails, spec.NoRetryCap for no cap.
type exitActions struct {
	onPreempt  string
	maxRetries int
}

// defaultExitActions are a pool's without any: reschedule, no cap.
var defaultExitActions = exitActions{onPreempt: spec.OnPreemptReschedule, maxRetries: spec.NoRetryCap}

// exitActionsOf is job j's exit actions under cfg: its file's, else its
// pool's.
func exitActionsOf(cfg *config.Config, j *mjob) exitActions {
	return exitActionsIn(cfg, j.rec.Pool, j.spec.onPreempt, j.spec.maxRetries)
}

// exitActionsIn is the exit actions under cfg of a job of pool whose file
// gave onPreempt and maxRetries ("" and nil: its pool's). The read view
// resolves a job's by it too (jobRead.ownExit), against the configuration
// it holds.
func exitActionsIn(cfg *config.Config, pool, onPreempt string, maxRetries *int) exitActions {
	ea := defaultExitActions
	if p, ok := cfg.Pool(pool); ok {
		ea = exitActions{onPreempt: p.OnPreempt, maxRetries: p.MaxRetries}
		if ea.onPreempt == "" {
			ea.onPreempt = spec.OnPreemptReschedule
		}
	}
	if onPreempt != "" {
		ea.onPreempt = onPreempt
	}
	if maxRetries != nil {
		ea.maxRetries = *maxRetries
	}
	return ea
}

// rule is the exit actions as lifecycle.ExitRequeues takes them, read as
// the simulator reads a scenario job's (sim/scenario.go): on_preempt:
// fail, or max_retries 0, fails a task at its first stop; a positive
// max_retries caps its reschedules (0: no cap).
func (ea exitActions) rule() (failOnPreempt bool, maxRetries int32) {
	switch {
	case ea.onPreempt == spec.OnPreemptFail || ea.maxRetries == 0:
		return true, 0
	case ea.maxRetries > 0:
		return false, int32(ea.maxRetries)
	}
	return false, 0
}

// isDefault reports whether they are a pool's without any.
func (ea exitActions) isDefault() bool { return ea == defaultExitActions }

// failReason is the reason of the failure of a task that lead (what
// stopped it: "preempted", or a lost attempt's reason) stopped after it
// had been rescheduled retries times, which its exit actions fail:
// "preempted; on_preempt: fail", "preempted 3 times, max_retries 2".
func (ea exitActions) failReason(lead string, retries int32) string {
	if ea.onPreempt == spec.OnPreemptFail {
		return lead + "; on_preempt: fail"
	}
	n := plural.Count(int(retries)+1, "time")
	if lead == preemptedLead {
		return fmt.Sprintf("%s %s, max_retries %d", lead, n, ea.maxRetries)
	}
	return fmt.Sprintf("%s; stopped %s, max_retries %d", lead, n, ea.maxRetries)
}

// failNote says which of the exit actions fail a task rescheduled
// retries times so far, for a note of what is yet to happen
// (lostview.go), in failReason's terms: "on_preempt: fail", "max_retries
// 1, requeued 1 time already".
func (ea exitActions) failNote(retries int32) string {
	if ea.onPreempt == spec.OnPreemptFail {
		return "on_preempt: fail"
	}
	return fmt.Sprintf("max_retries %d, requeued %s already", ea.maxRetries, plural.Count(int(retries), "time"))
}

// preemptedLead leads the reason of a task that its exit actions failed
// after a preemption; unplacedNote ends it when the preemption was a move
// or resize whose new placement lost a node (unplacedReason; the
// transition's cause, store.CauseUnplaced, which the decision log reads
// back as a preemption).
const (
	preemptedLead = "preempted"
	unplacedNote  = ": a node of its new placement is down"
)

// ending is what lifecycle.Ending.Decide needs of task t's attempt,
// which ended as kind (ran: whether a part of it ran, for a lost one):
// whether it was being killed and to what, whether its checkpoint landed
// for a move or resize and a node of its next placement is down
// (mtask.Replacement's Landing, planner.reservedDown), its job's
// preemptibility, and its exit actions in force, ea, with its requeues
// so far, which the reasons name (failReason).
func (m *Master) ending(t *mtask, kind lifecycle.EndKind, ran bool) (e lifecycle.Ending, ea exitActions) {
	ea = exitActionsOf(m.cfg, t.job)
	e = ea.ending(kind, t.Retries)
	t.Stop.Ends(&e)
	t.Replacement.Landing(&e, func() bool { return m.planner.reservedDown(t) })
	e.Preemptible, e.Ran = t.job.rec.Preemptible, ran
	return e, ea
}

// ending is an attempt's ending as kind, with these exit actions and
// the task's requeues so far, retries (mtask.Retries).
func (ea exitActions) ending(kind lifecycle.EndKind, retries int32) lifecycle.Ending {
	fail, maxRetries := ea.rule()
	return lifecycle.Ending{Kind: kind, FailOnPreempt: fail, MaxRetries: maxRetries, Retries: retries}
}

// lostEnd is what the end of a lost attempt does to its task: what the
// master does when it ends one (endAttempt, by the same
// lifecycle.Ending.Decide), and what the note of a task held on a lost
// node says it will do (lostview.go), so that the two cannot disagree. A
// task being killed ends killed; one that must not run twice fails
// (lifecycle.LostRequeues: preemptible, whether it ran); any other waits
// again unless its job's exit actions ea fail it, after retries requeues
// (lifecycle.ExitRequeues), byExit then.
func lostEnd(preemptible, ran, killing bool, ea exitActions, retries int32) (to store.TaskState, byExit bool) {
	e := ea.ending(lifecycle.EndLost, retries)
	e.Preemptible, e.Ran, e.Killing = preemptible, ran, killing
	v := e.Decide()
	return v.Task, v.ByExit
}
