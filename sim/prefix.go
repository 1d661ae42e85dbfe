package sim

import "github.com/allot-sched/allot/sched"

// A FIFO queue that is blocked stays blocked: a pass starts jobs in order
// and stops at the first that does not fit, so the jobs behind it cannot
// matter to that pass. Handing the core the whole queue anyway made every
// pass of a long FCFS replay cost the queue's length (validating,
// bucketing and sorting jobs it never looks at): SDSC-SP2's queue reaches
// 3,262 jobs. So when the input is one FIFO pool, the snapshot holds the
// running jobs and a window of the first waiting jobs after them; if the
// pass finds no blocked job inside the window, the window doubles and the
// pass runs again at the same instant, which continues in FIFO order
// exactly where the first stopped. Results are identical
// (TestFIFOPrefixChangesNothing).

// prefixEligible reports whether the input allows the FIFO window: one
// FIFO pool, and no licenses (a job short of a license for good would not
// block) and no zero-slot jobs (scheduled apart, they may start behind a
// blocked job), which prefixWindow checks as jobs come.
func prefixEligible(in *Input, opt *Options) bool {
	return len(in.Pools) == 1 && in.Pools[0].Policy == sched.PolicyFIFO && len(in.Licenses) == 0 &&
		opt.Inspect == nil && !opt.noPrefix
}

// initialWindow is how many waiting jobs the first pass at an instant sees.
const initialWindow = 64

// window cuts the snapshot's jobs to the running jobs and the window of
// waiting jobs after them, and records whether it cut anything.
func (s *sim) window(jobs []sched.Job, lastRunning int) []sched.Job {
	s.cut = false
	if s.prefix == 0 || s.zeroSlotJobs > 0 {
		return jobs
	}
	n := lastRunning + 1 + s.prefix
	if n >= len(jobs) {
		return jobs
	}
	s.cut = true
	return jobs[:n]
}

// blocked reports whether a FIFO plan stopped at a job inside the window:
// a pending job whose reason is not one that lets the queue pass it.
func blocked(plan *sched.Plan) bool {
	for _, pe := range plan.Pending {
		switch pe.Reason {
		case sched.ReasonNoNodes, sched.ReasonGPUType, sched.ReasonMaxConcurrent:
		default:
			return true
		}
	}
	return false
}

// fullSkips reports whether the simulator may skip a pass while every slot
// is held: with one FIFO or EASY pool that does not preempt, such a pass
// starts, moves and resizes nothing (consolidation and growth need free
// slots), and neither policy carries anything from one pass to the next.
// Under SDSC-SP2's high load most events arrive on a full cluster.
// Zero-slot jobs, elastic jobs and an inspector turn it off.
func fullSkips(in *Input, opt *Options) bool {
	if len(in.Pools) != 1 || opt.Inspect != nil || opt.noPrefix {
		return false
	}
	p := &in.Pools[0]
	return p.Policy == sched.PolicyFIFO || p.Policy == sched.PolicyBackfill && p.Reservations != sched.ReserveConservative
}
