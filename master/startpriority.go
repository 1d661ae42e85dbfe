package master

import "github.com/allot-sched/allot/sched"

// noteStartPriorities gives a job of a multifactor pool that starts in
// the first pass to see it, and so was never pending there (the pending
// reasons carry the others' priorities, notePending), the multifactor
// priority it started with, as Slurm keeps a running job's: otherwise
// its listing would show its 1-99 number, which a multifactor pool does
// not read. The factors are computed once per plan, only when such a
// job starts.
func noteStartPriorities(pl *planner, plan *sched.Plan) {
	var factors []sched.Factors
	for _, st := range plan.Starts {
		e := &pl.snap.Jobs[st.Job]
		if e.Pool < 0 || e.Pool >= len(pl.snap.Pools) || pl.snap.Pools[e.Pool].Policy != sched.PolicyMultifactor {
			continue
		}
		j := pl.roster.at(st.Job)
		if j == nil || j.startMF != 0 {
			continue
		}
		if factors == nil {
			f, err := sched.PriorityFactors(&pl.snap)
			if err != nil {
				return // the pass took the snapshot: it cannot fail here
			}
			factors = f
		}
		j.startMF = factors[st.Job].Priority
		pl.m.pub.markJob(j)
	}
}
