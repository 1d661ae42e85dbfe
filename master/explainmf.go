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
	mf := f.mf
	if mf == nil {
		var err error
		if mf, err = sched.PriorityFactors(s); err != nil {
			return true // as before: the QOS alone allows it
		}
	}
	if ei < 0 {
		return true
	}
	return mfPriority(mf, s.Allocs[ai].Job) < mfPriority(mf, ei)
}

// preemptBlock is why the preemption rule of a waiting job's pool takes
// none of the running jobs that must end for it (preemptWay): who may
// preempt, and the jobs in its way that are not preemptible (fixed) or
// do not rank below it (above).
type preemptBlock struct {
	qos          string // the job's QOS that preempts; "" where the pool's preemption is the rule
	pool         string
	policy       sched.Policy
	poolPreempts bool
	fixed, above []api.JobRef
}

// preemptWay is why the preemption rule of job ji's pool takes none of
// the running jobs refs that must end for it, where that rule is on for
// it (trial 29e E2: an emergency-QOS job waited "once job 7 ends", and
// its user, who chose a QOS that preempts, was not told why it did
// not): in a multifactor or priority pool, with the pool's preemption or
// a QOS of ji's that preempts, each such job is not preemptible
// (resources.preemptible) or does not rank below ji. It reads what
// mustEnd found (JobRef.Preempt "" for a job that must end), so it
// agrees with the core's rule as couldPreempt replays it. Both the
// explanation (preemptNote) and the job's listed reason (preemptListNote)
// word what it finds. ok is false where the rule is off for ji, or no
// job in its way must end.
func preemptWay(f *cfFacts, ji int, refs []api.JobRef) (b preemptBlock, ok bool) {
	s := f.s
	e := &s.Jobs[ji]
	if e.Pool < 0 || e.Pool >= len(s.Pools) {
		return b, false
	}
	pl := &s.Pools[e.Pool]
	if pl.Policy != sched.PolicyMultifactor && pl.Policy != sched.PolicyPriority {
		return b, false
	}
	var eq sched.QOS
	if e.QOS >= 0 && e.QOS < len(s.QOS) {
		eq = s.QOS[e.QOS]
	}
	if !eq.Preempt && !pl.Preemption {
		return b, false
	}
	b = preemptBlock{pool: pl.Name, policy: pl.Policy, poolPreempts: pl.Preemption}
	if eq.Preempt {
		b.qos = eq.Name
	}
	for _, r := range refs {
		switch {
		case r.Preempt != "":
		case f.preemptibleRef(r):
			b.above = append(b.above, r)
		default:
			b.fixed = append(b.fixed, r)
		}
	}
	return b, len(b.fixed)+len(b.above) > 0
}

// preemptNote is explain's words of preemptWay (a function of f, as
// cfFacts has its 40 methods); "" where it finds nothing to say.
func preemptNote(f *cfFacts, ji int, refs []api.JobRef) string {
	b, ok := preemptWay(f, ji, refs)
	if !ok {
		return ""
	}
	who := "Pool " + b.pool + " preempts"
	if b.qos != "" {
		who = "Its QOS " + b.qos + " may preempt"
	}
	var parts []string
	if len(b.fixed) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s not preemptible (resources.preemptible is false, the default for jobs other than experiments)",
			jobList(b.fixed), plural.Be(len(b.fixed))))
	}
	if len(b.above) > 0 {
		rule := "a lower QOS and a lower multifactor priority"
		if b.policy == sched.PolicyPriority {
			rule = priorityRule(b.poolPreempts, b.qos != "")
		}
		parts = append(parts, fmt.Sprintf("%s %s not rank below it (the rule takes only tasks of %s)",
			jobList(b.above), doVerb(len(b.above)), rule))
	}
	return fmt.Sprintf("%s, but %s, so it waits for %s to end.", who, strings.Join(parts, ", and "), them(len(b.fixed)+len(b.above)))
}

// short is the words of b in a job's listed reason (allot jobs,
// allot job show, the API's pending message, the dashboard), after the
// core's: "; its QOS emergency may preempt, but job 7 is not
// preemptible". allot explain says the rule.
func (b preemptBlock) short() string {
	who := "its pool preempts"
	if b.qos != "" {
		who = "its QOS " + b.qos + " may preempt"
	}
	var parts []string
	if len(b.fixed) > 0 {
		parts = append(parts, jobList(b.fixed)+" "+plural.Be(len(b.fixed))+" not preemptible")
	}
	if len(b.above) > 0 {
		parts = append(parts, jobList(b.above)+" "+doVerb(len(b.above))+" not rank below it")
	}
	return "; " + who + ", but " + strings.Join(parts, " and ")
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
