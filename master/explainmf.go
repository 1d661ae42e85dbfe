package master

import "github.com/allot-sched/allot/sched"

// mfCouldPreempt says whether the multifactor rule (sched's qosPreempt)
// could take allocation ai for job e: with the pool's preemption, or a
// QOS of e's that preempts, a task of a lower QOS and a lower computed
// priority. A running job that outranks e (trial n F12: an elastic job
// of QOS high, beside a job of the normal QOS) is never preempted for
// it, so "ends or is preempted" would promise what the core will not do.
func (f *cfFacts) mfCouldPreempt(e *sched.Job, ai int) bool {
	s := f.s
	v := &s.Jobs[s.Allocs[ai].Job]
	qos := func(j *sched.Job) sched.QOS {
		if j.QOS >= 0 && j.QOS < len(s.QOS) {
			return s.QOS[j.QOS]
		}
		return sched.QOS{}
	}
	eq, vq := qos(e), qos(v)
	if e.Pool < 0 || e.Pool >= len(s.Pools) || (!s.Pools[e.Pool].Preemption && !eq.Preempt) || vq.Priority >= eq.Priority {
		return false
	}
	ei := f.jobIndex(e)
	mf, err := sched.PriorityFactors(s)
	if err != nil || ei < 0 {
		return true // as before: the QOS alone allows it
	}
	return mfPriority(mf, s.Allocs[ai].Job) < mfPriority(mf, ei)
}
