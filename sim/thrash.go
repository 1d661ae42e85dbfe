package sim

import "github.com/allot-sched/allot/sched"

// budgetWindow is the span of a project's preemption budget: an hour.
const budgetWindow = 3600

// budget counts, for projects with a preemption budget, the preemptions
// and moves of their tasks in the last hour, which the core reads in
// sched.Project.Preempted: the core keeps nothing between passes. An
// event at time e counts while now − 1h < e ≤ now. Resizes do not count:
// an elastic task grows for its own sake, on spare slots.
type budget struct {
	on    bool
	times [][]int64 // per project, oldest first
}

func (b *budget) init(ps []Project) {
	b.times = make([][]int64, len(ps))
	for i := range ps {
		b.on = b.on || ps[i].PreemptBudget > 0
	}
}

// note records a preemption or move of a task of project p.
func (b *budget) note(p int32, now int64) {
	b.times[p] = append(b.times[p], now)
}

// fill drops what left the window and sets each project's count.
func (b *budget) fill(ps []sched.Project, now int64) {
	if !b.on {
		return
	}
	for i := range ps {
		ts := b.times[i]
		k := 0
		for k < len(ts) && ts[k] <= now-budgetWindow {
			k++
		}
		if k > 0 {
			ts = append(ts[:0], ts[k:]...)
			b.times[i] = ts
		}
		ps[i].Preempted = len(ts)
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
