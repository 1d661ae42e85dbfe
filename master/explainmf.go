package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

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

// preemptNote says why the preemption rule of job ji's pool takes none
// of the running jobs refs that must end for it, where that rule is on
// for it (a function of f, as cfFacts has its 40 methods; trial 29e E2: an emergency-QOS job waited "once job 7 ends",
// and its user, who chose a QOS that preempts, was not told why it did
// not): in a multifactor or priority pool, with the pool's preemption or
// a QOS of ji's that preempts, each such job is not preemptible
// (resources.preemptible) or does not rank below ji. It reads what
// mustEnd found (JobRef.Preempt "" for a job that must end), so it
// agrees with the core's rule as couldPreempt replays it. "" where the
// rule is off for ji, or no job in its way must end.
func preemptNote(f *cfFacts, ji int, refs []api.JobRef) string {
	s := f.s
	e := &s.Jobs[ji]
	if e.Pool < 0 || e.Pool >= len(s.Pools) {
		return ""
	}
	pl := &s.Pools[e.Pool]
	if pl.Policy != sched.PolicyMultifactor && pl.Policy != sched.PolicyPriority {
		return ""
	}
	var eq sched.QOS
	if e.QOS >= 0 && e.QOS < len(s.QOS) {
		eq = s.QOS[e.QOS]
	}
	var who string
	switch {
	case eq.Preempt:
		who = "Its QOS " + eq.Name + " may preempt"
	case pl.Preemption:
		who = "Pool " + pl.Name + " preempts"
	default:
		return ""
	}
	var fixed, above []api.JobRef
	for _, r := range refs {
		switch {
		case r.Preempt != "":
		case f.preemptibleRef(r):
			above = append(above, r)
		default:
			fixed = append(fixed, r)
		}
	}
	var parts []string
	if len(fixed) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s not preemptible (resources.preemptible is false, the default for jobs other than experiments)",
			jobList(fixed), plural.Be(len(fixed))))
	}
	if len(above) > 0 {
		rule := "a lower QOS and a lower multifactor priority"
		if pl.Policy == sched.PolicyPriority {
			rule = priorityRule(pl.Preemption, eq.Preempt)
		}
		parts = append(parts, fmt.Sprintf("%s %s not rank below it (the rule takes only tasks of %s)",
			jobList(above), doVerb(len(above)), rule))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s, but %s, so it waits for %s to end.", who, strings.Join(parts, ", and "), them(len(fixed)+len(above)))
}

// doVerb is "does" for one job, "do" for more.
func doVerb(n int) string {
	if n == 1 {
		return "does"
	}
	return "do"
}

// priorityRule names the victims a priority pool's rule takes for a job:
// with the pool's preemption, those of a lower priority; with a QOS of
// its that preempts, those of a lower QOS.
func priorityRule(pool, qos bool) string {
	switch {
	case pool && qos:
		return "a lower priority (a larger number) or a lower QOS"
	case pool:
		return "a lower priority (a larger number)"
	}
	return "a lower QOS"
}
