package master

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/store"
)

// Preemption budgets (config.Project.PreemptBudget) need how many of each
// project's tasks were preempted in the last hour (sched.Project.Preempted).
// The master counts every transition to preempting that a preemption or a
// move makes, by project, and forgets those older than an hour; on start
// it rebuilds the counts from the store's events of the last hour. Resizes
// do not count: the core does not charge them to the budget.

// budgetWindow is the period a preemption budget covers.
const budgetWindow = time.Hour

// resizeReason starts the reason of every resize's transition to
// preempting, which is how the event log tells resizes apart.
const resizeReason = "resizing to "

// notePreempted counts one preemption (or move) of a task of project at.
// Callers hold mu.
func (m *Master) notePreempted(project string, at time.Time) {
	m.preempted[project] = append(m.preempted[project], at)
}

// preemptedCount is how many of project's tasks were preempted within the
// hour before now. Callers hold mu.
func (m *Master) preemptedCount(project string, now time.Time) int {
	cut := now.Add(-budgetWindow)
	times := slices.DeleteFunc(m.preempted[project], func(t time.Time) bool { return !t.After(cut) })
	m.preempted[project] = times
	return len(times)
}

// restoreBudgets counts the preemptions of the last hour from the event
// log.
func (m *Master) restoreBudgets(ctx context.Context) error {
	now := m.now()
	events, err := m.st.Events(ctx, store.EventFilter{To: string(store.TaskPreempting), Since: now.Add(-budgetWindow)})
	if err != nil {
		return fmt.Errorf("restore preemption counts: %w", err)
	}
	projects := map[int64]string{}
	for _, e := range events {
		if e.Index < 0 || strings.HasPrefix(e.Reason, resizeReason) {
			continue
		}
		project, ok := projects[e.JobID]
		if !ok {
			if j := m.jobs[e.JobID]; j != nil {
				project = j.rec.Project
			} else {
				rec, err := m.st.Job(ctx, e.JobID)
				if err != nil {
					return fmt.Errorf("restore preemption counts: %w", err)
				}
				project = rec.Project
			}
			projects[e.JobID] = project
		}
		m.notePreempted(project, e.At)
	}
	return nil
}
