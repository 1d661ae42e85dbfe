package lifecycle

import (
	"fmt"

	"github.com/allot-sched/allot/sched"
)

// A Persister is an Applier that stores each pass's effects before the
// Cluster applies any of them, as a live driver must (issue 13: persist
// effects before acting on them, so that a restart neither repeats nor
// loses one). Step asks it once for every pass it applies, empty ones
// too, with the pass's effects in Decide's order and resolved (resolve:
// what each will do, the fields an Effect says are known before it is
// applied). Only when Persist returns nil does the Cluster carry the
// pass's reservations and apply its effects, telling Applied of each. An
// error, a failed write, ends Step with that error wrapped: the pass is
// not applied and the Cluster is as the pass found it, its earlier
// passes at the instant applied (as a driver's earlier writes stay
// stored), so the driver may Step again once it can write.
//
// A driver that is not a Persister (the simulator) has every pass
// applied as it comes. Persist must not change the Cluster: the effects
// are only valid during the call, and the pass's snapshot (Snap) until
// the next build.
type Persister interface {
	Applier
	Persist(now int64, effects []Effect) error
}

// resolve fills in, before any effect of a pass is applied, what each
// will do that is known now: a start's task (Launches, by Job.Launch's
// rule, nextLaunch, counting the pass's earlier starts of the same job)
// and slots, a preemption's slots, and the first starts of multifactor
// jobs (First). The core names an allocation in at most one item of a
// plan, and only a start changes what a later start of its job
// launches, so what is resolved here is what applying gives.
func (st *stepper) resolve(effects []Effect) {
	st.firstPriorities(effects)
	c := st.c
	for i := range effects {
		e := &effects[i]
		switch e.Op {
		case OpPreempt:
			e.Slots = sched.Slots(c.Tasks.At(e.Task).Nodes)
		case OpStart:
			if len(st.launching) <= e.Job {
				st.launching = append(st.launching, make([]int32, e.Job+1-len(st.launching))...)
			}
			ji := c.Roster.List()[e.Job]
			e.Launches = nextLaunch(&c.Jobs[ji], st.launching[e.Job])
			st.launching[e.Job]++
			e.Slots = sched.Slots(e.Nodes)
		}
	}
	for i := range effects {
		if e := &effects[i]; e.Op == OpStart {
			st.launching[e.Job] = 0
		}
	}
}

// nextLaunch is the task the k-th next Launch of job j launches (k 0:
// the next): Job.Launch takes its waiting tasks that ran before from the
// end of Resume, then fresh ones from NextTask on, each with its own work
// (FreshOf). Job.Launch launches by it (k 0), so what a Persister stored
// is what launches; Step still checks it at every start (launched).
func nextLaunch(j *Job, k int32) Resumed {
	if n := int32(len(j.Resume)); k < n {
		return j.Resume[n-1-k]
	}
	id := j.NextTask + k - int32(len(j.Resume))
	return Resumed{ID: id, Work: j.FreshOf(id)}
}

// launched checks that the start e launched the task resolve said it
// would, which its driver may have stored (Persister): a start differing
// from its stored record would be a restart's puzzle, so Step fails.
func launched(ts *Tasks, e *Effect) error {
	t := ts.At(e.Task)
	if t.ID != e.Launches.ID || t.Retries != e.Launches.Retries || t.Work != e.Launches.Work {
		return fmt.Errorf("lifecycle: job record %d launched task %d (retries %d, work %d), not task %d (retries %d, work %d) as resolved",
			t.Job, t.ID, t.Retries, t.Work, e.Launches.ID, e.Launches.Retries, e.Launches.Work)
	}
	return nil
}
