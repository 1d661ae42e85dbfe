package lifecycle

import (
	"github.com/allot-sched/allot/sched"
)

// Step's shortcuts skip work that cannot change a plan; results are the
// same with them off (StepOptions.NoShortcuts, which sim's
// TestFIFOPrefixChangesNothing and the trace tests compare).
//
// The FIFO window. A FIFO queue that is blocked stays blocked: a pass
// starts jobs in order and stops at the first that does not fit, so the
// jobs behind it cannot matter to that pass. Handing the core the whole
// queue anyway made every pass of a long FCFS replay cost the queue's
// length (validating, bucketing and sorting jobs it never looks at):
// SDSC-SP2's queue reaches 3,262 jobs. So when the cluster is one FIFO
// pool, the snapshot holds the running jobs and a window of the first
// waiting jobs after them; if the pass finds no blocked job inside the
// window, the window doubles and the pass runs again at the same instant,
// which continues in FIFO order exactly where the first stopped.

// prefixEligible reports whether the cluster allows the FIFO window: one
// FIFO pool, and no licenses (a job short of a license for good would not
// block) and no zero-slot jobs (scheduled apart, they may start behind a
// blocked job), which window checks as jobs come.
func prefixEligible(snap *sched.Snapshot, opt *StepOptions) bool {
	return len(snap.Pools) == 1 && snap.Pools[0].Policy == sched.PolicyFIFO && len(snap.Licenses) == 0 &&
		opt.Inspect == nil && !opt.NoShortcuts
}

// initialWindow is how many waiting jobs the first pass at an instant sees.
const initialWindow = 64

// window cuts the snapshot's jobs to the running jobs and the window of
// prefix waiting jobs after them, and records whether it cut anything.
func (st *stepper) window(jobs []sched.Job, lastRunning, prefix int) []sched.Job {
	st.cut = false
	if prefix == 0 || st.zeroSlot > 0 {
		return jobs
	}
	n := lastRunning + 1 + prefix
	if n >= len(jobs) {
		return jobs
	}
	st.cut = true
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

// fullSkips reports whether Step may skip a pass while every slot is
// held: with one FIFO or EASY pool that does not preempt, such a pass
// starts, moves and resizes nothing (consolidation and growth need free
// slots), and neither policy carries anything from one pass to the next.
// Under SDSC-SP2's high load most events arrive on a full cluster.
// Zero-slot jobs, elastic jobs and an inspector turn it off.
func fullSkips(snap *sched.Snapshot, opt *StepOptions) bool {
	if len(snap.Pools) != 1 || opt.Inspect != nil || opt.NoShortcuts {
		return false
	}
	p := &snap.Pools[0]
	return p.Policy == sched.PolicyFIFO || p.Policy == sched.PolicyBackfill && p.Reservations != sched.ReserveConservative
}

// quiet reports an instant at which a pass could start nothing, so Step
// skips it (fullSkips' clusters only): no slot was freed since the last
// pass, which left nothing more that could start, no other event asked
// for a pass (a tick or a change to a job), and every job submitted since needs more slots than
// are free. Under FIFO and EASY a job that arrives behind the queue can
// only start on slots free now, and the jobs before it are as stuck as
// they were; time passing makes no EASY backfill easier. While a task may
// hold slots on a down node (holding: nodeBook.holding), or more than a
// reshaped node's own slots (nodeBook.offTotal), the slots held are not
// all on the total, and neither this nor Step's full-cluster skip
// applies. inUse is the slots the tasks hold now (Cluster.InUse).
func (st *stepper) quiet(inUse int, holding bool) bool {
	return st.full && st.oneShot && st.zeroSlot == 0 && !st.woken && inUse >= st.lastInUse &&
		st.smallest > st.totalSlots-inUse && !holding
}

// MayGrow reports a running elastic task below its job's full size, which
// a pass could grow: a driver keeps wake-ups for it.
func (c *Cluster) MayGrow() bool {
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		if !t.State.Active() || t.Moving || t.State == TaskKilling {
			continue
		}
		if en := c.Roster.Entry(t.Job); en.MinSlots > 0 && sched.Slots(t.Nodes) < en.Slots {
			return true
		}
	}
	return false
}
