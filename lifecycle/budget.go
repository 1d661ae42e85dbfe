package lifecycle

// Budget counts, per key (a project), the preemptions and moves of its
// tasks within the last window seconds: what a preemption budget
// (sched.Project.PreemptBudget) is measured against, which the core reads
// in sched.Project.Preempted because it keeps nothing between passes. An
// event at time e counts at now while e > now − window. Resizes are
// not noted: an elastic task grows for its own sake, on spare slots.
type Budget[K comparable] struct {
	window int64
	times  map[K][]int64 // per key, in the order noted
}

// NewBudget returns an empty budget over window seconds.
func NewBudget[K comparable](window int64) *Budget[K] {
	return &Budget[K]{window: window, times: map[K][]int64{}}
}

// Note records a preemption or move of a task of k at time at. Events
// may be noted out of order (a restart reads them back from a log).
func (b *Budget[K]) Note(k K, at int64) {
	b.times[k] = append(b.times[k], at)
}

// Count is how many of k's events count at now: those after now − window
// (one noted ahead of now counts too: a clock that stepped back must not
// free the budget). It forgets the others for good.
func (b *Budget[K]) Count(k K, now int64) int {
	ts := b.times[k]
	kept := ts[:0]
	for _, t := range ts {
		if t > now-b.window {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		delete(b.times, k)
		return 0
	}
	b.times[k] = kept
	return len(kept)
}
