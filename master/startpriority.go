package master

import (
	"math"

	"github.com/allot-sched/allot/sched"
)

// noteStartPriorities gives a job of a multifactor pool that starts in
// the first pass to see it, and so was never pending there (the pending
// reasons carry the others' priorities, notePending), the multifactor
// priority it started with, as Slurm keeps a running job's: otherwise
// its listing would show its 1-99 number, which a multifactor pool does
// not read. The core's start carries the priority its pool ordered the
// job by (sched.Start.Priority), as the simulator's start effect does.
func noteStartPriorities(pl *planner, plan *sched.Plan) {
	for _, st := range plan.Starts {
		e := &pl.snap.Jobs[st.Job]
		if e.Pool < 0 || e.Pool >= len(pl.snap.Pools) || pl.snap.Pools[e.Pool].Policy != sched.PolicyMultifactor {
			continue
		}
		j := pl.roster.at(st.Job)
		if j == nil || j.startMF != 0 {
			continue
		}
		j.startMF = st.Priority
		pl.m.pub.markJob(j)
	}
}

// storedPriority is p as a start stores it with its attempt
// (store.TaskTransition.StartPriority), which refuses a priority that is
// not finite: such a one, which no sane weights give, is stored as none
// rather than failing the start.
func storedPriority(p float64) float64 {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return 0
	}
	return p
}
