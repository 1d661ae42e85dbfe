package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// budgetWindow is the span of a project's preemption budget: an hour.
const budgetWindow = 3600

// budget counts, for projects with a preemption budget, the preemptions
// and moves of their tasks in the last hour, which the core reads in
// sched.Project.Preempted: the core keeps nothing between passes. The
// counting is lifecycle.Budget's, the master's too.
type budget struct {
	on     bool
	counts *lifecycle.Budget[int32] // keyed by project index
}

func (b *budget) init(ps []Project) {
	b.counts = lifecycle.NewBudget[int32](budgetWindow)
	for i := range ps {
		b.on = b.on || ps[i].PreemptBudget > 0
	}
}

// note records a preemption or move of a task of project p.
func (b *budget) note(p int32, now int64) {
	b.counts.Note(p, now)
}

// fill drops what left the window and sets each project's count.
func (b *budget) fill(ps []sched.Project, now int64) {
	if !b.on {
		return
	}
	for i := range ps {
		ps[i].Preempted = b.counts.Count(int32(i), now)
	}
}

// noteBudget records a preemption or move of a task of project p, and
// asks for a pass when it leaves the budget's hour.
func (s *sim) noteBudget(p int32) {
	if p < 0 || s.in.Projects[p].PreemptBudget == 0 {
		return
	}
	s.budget.note(p, s.now)
	s.wake(s.now + budgetWindow)
}
