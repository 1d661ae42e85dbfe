package master

import (
	"context"
	"fmt"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// Preemption budgets (config.Project.PreemptBudget) need how many of each
// project's tasks were preempted in the last hour (sched.Project.Preempted).
// The master counts every transition to preempting that a preemption or a
// move makes, by project, in a lifecycle.Budget (the simulator's count
// too), in Unix seconds like the snapshot's time; on start it rebuilds the
// counts from the store's events of the last hour. A resize counts when it
// shrank the task for another job (its event names that job, ForJob), as
// the core charges it; growth does not.

// budgetWindow is the period a preemption budget covers.
const budgetWindow = time.Hour

// resizeReason starts the reason of every resize's transition to
// preempting; the event log tells resizes apart by its cause
// (store.CauseResized).
const resizeReason = "resizing to "

// preemptBudget counts preemptions and moves per project name.
type preemptBudget = *lifecycle.Budget[string]

// newPreemptBudget is an empty count of preemptions over budgetWindow.
func newPreemptBudget() preemptBudget {
	return lifecycle.NewBudget[string](int64(budgetWindow / time.Second))
}

// notePreempted counts one preemption (or move) of a task of project at.
// Callers hold mu.
func (pl *planner) notePreempted(project string, at time.Time) {
	pl.preempted.Note(project, at.Unix())
}

// preemptedCount is how many of project's tasks were preempted within the
// hour before now. Callers hold mu.
func (pl *planner) preemptedCount(project string, now time.Time) int {
	return pl.preempted.Count(project, now.Unix())
}

// restoreBudgets counts the preemptions of the last hour from the event
// log.
func (pl *planner) restoreBudgets(ctx context.Context) error {
	now := pl.m.now()
	events, err := pl.m.st.Events(ctx, store.EventFilter{To: string(store.TaskPreempting), Since: now.Add(-budgetWindow)})
	if err != nil {
		return fmt.Errorf("restore preemption counts: %w", err)
	}
	projects := map[int64]string{}
	for _, e := range events {
		// An agent's stop (agentstop.go) is no pass's preemption and
		// counts in no budget, as live (apply notes only a pass's).
		if e.Index < 0 || e.Cause == store.CauseResized && e.ForJob == 0 || e.Cause == store.CauseAgentStopped ||
			e.Cause == store.CauseRequeued {
			continue
		}
		project, ok := projects[e.JobID]
		if !ok {
			if j := pl.m.jobs[e.JobID]; j != nil {
				project = j.rec.Project
			} else {
				rec, err := pl.m.st.Job(ctx, e.JobID)
				if err != nil {
					return fmt.Errorf("restore preemption counts: %w", err)
				}
				project = rec.Project
			}
			projects[e.JobID] = project
		}
		pl.notePreempted(project, e.At)
	}
	return nil
}
