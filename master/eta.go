package master

import (
	"slices"
	"time"

	"github.com/allot-sched/allot/sched"
)

// Estimated starts. The core gives a start time only to the jobs its
// policy reserves for (backfill heads, conservative queues). For every
// other waiting job the master forecasts one: it runs the same core forward
// from a copy of the last pass's snapshot, with every running task ending
// at its time limit and every started job running for its time limit,
// starting what each pass starts, until every job has started or no task
// with a time limit is left to end. Preemptions in the forecast are not
// carried out, so under preemptive policies the estimate errs late. A job
// behind a task without a time limit gets no estimate: nobody can say.

// etaEvery is how often the forecast runs, from the loop's tick.
const etaEvery = 10 * time.Second

// Forecast bounds: passes and end events, so that a forecast costs a
// bounded number of passes however long the queue.
const (
	maxForecastEvents = 500
	maxForecastPasses = 2000
)

// forecast returns, for each job of base with waiting tasks, when the
// first of them would start (Unix seconds); jobs it cannot place in the
// bounds are left out. base is not changed.
func forecast(base *sched.Snapshot) map[int]int64 {
	s := *base
	s.Jobs = slices.Clone(base.Jobs)
	s.Allocs = make([]sched.Alloc, 0, len(base.Allocs))
	for _, a := range base.Allocs {
		if a.Preempting {
			continue // its slots are as good as free
		}
		a.Nodes = slices.Clone(a.Nodes)
		s.Allocs = append(s.Allocs, a)
	}
	eta := map[int]int64{}
	var sc sched.Scheduler
	passes := 0
	for events := 0; events < maxForecastEvents; events++ {
		for passes < maxForecastPasses {
			passes++
			plan, err := sc.Schedule(&s)
			if err != nil || len(plan.Starts) == 0 {
				break
			}
			for _, st := range plan.Starts {
				if _, ok := eta[st.Job]; !ok {
					eta[st.Job] = s.Now
				}
				s.Allocs = append(s.Allocs, sched.Alloc{Job: st.Job, Nodes: slices.Clone(st.Nodes), Start: s.Now})
				s.Jobs[st.Job].Waiting--
			}
		}
		next := sched.Never
		for i := range s.Allocs {
			if end := s.Allocs[i].End(s.Jobs); end > s.Now && end < next {
				next = end
			}
		}
		if next == sched.Never || waitingLeft(&s) == 0 {
			break
		}
		kept := s.Allocs[:0]
		for _, a := range s.Allocs {
			if a.End(s.Jobs) > next {
				kept = append(kept, a)
			}
		}
		s.Allocs, s.Now = kept, next
	}
	return eta
}

// copySnapshot copies what the next passes of the master reuse in place:
// every slice, and the allocations' placements, which live in an arena.
func copySnapshot(src *sched.Snapshot) sched.Snapshot {
	s := *src
	s.Pools = slices.Clone(src.Pools)
	s.Nodes = slices.Clone(src.Nodes)
	s.Projects = slices.Clone(src.Projects)
	s.Accounts = slices.Clone(src.Accounts)
	s.Licenses = slices.Clone(src.Licenses)
	s.QOS = slices.Clone(src.QOS)
	s.Jobs = slices.Clone(src.Jobs)
	for i := range s.Jobs {
		s.Jobs[i].Licenses = slices.Clone(s.Jobs[i].Licenses)
	}
	s.Allocs = slices.Clone(src.Allocs)
	for i := range s.Allocs {
		s.Allocs[i].Nodes = slices.Clone(s.Allocs[i].Nodes)
	}
	return s
}

func waitingLeft(s *sched.Snapshot) int {
	n := 0
	for i := range s.Jobs {
		n += s.Jobs[i].Waiting
	}
	return n
}

// refreshETA runs the forecast on a copy of the last snapshot, outside
// mu, and keeps its estimates by job id.
func (m *Master) refreshETA() {
	m.mu.Lock()
	snap := copySnapshot(&m.snap)
	ids := make([]int64, len(m.view.jobs))
	for i, j := range m.view.jobs {
		ids[i] = j.rec.ID
	}
	m.mu.Unlock()
	est := forecast(&snap)
	out := make(map[int64]time.Time, len(est))
	for ji, at := range est {
		if ji < len(ids) {
			out[ids[ji]] = time.Unix(at, 0).UTC()
		}
	}
	m.mu.Lock()
	m.eta, m.etaAt = out, time.Now()
	m.mu.Unlock()
}
