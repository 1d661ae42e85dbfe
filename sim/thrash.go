package sim

import "github.com/allot-sched/allot/lifecycle"

// A project's preemption budget caps the preemptions and moves of its
// tasks within the last hour (lifecycle.BudgetWindow). The core reads the
// count in sched.Project.Preempted and keeps nothing between passes; the
// simulator's lifecycle.Cluster counts them as it preempts and moves, the
// master's lifecycle.Budget likewise, and fills them in each snapshot.

// wakeBudget asks for a pass when a preemption or move of a task of
// project p, just counted, leaves the budget's hour, which may let a
// waiting task start.
func (s *world) wakeBudget(p int32) {
	if !s.c.Ledgers.Budgeted(p) {
		return
	}
	s.wake(s.now + lifecycle.BudgetWindow)
}
