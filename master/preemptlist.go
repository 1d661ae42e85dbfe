package master

import (
	"strconv"

	"github.com/allot-sched/allot/sched"
)

// A waiting job whose QOS may preempt, or whose pool preempts, and that
// waits all the same for running jobs the rule takes none of, says so
// where it is listed (allot jobs, allot job show, the API's pending
// message, the dashboard), not only in allot explain (trial 29e E2: a
// user who chose the emergency QOS reads allot jobs first). The words
// come from the explanation's rule (preemptWay on the counterfactual's
// jobs that must end), once a pass, for the jobs it concerns only
// (preemptConcerns), so that a long queue costs a check a job.

// preemptNotes makes the preemption notes of one pass's waiting jobs:
// the explanation's facts of the pass (liveFacts), with the multifactor
// priorities and the jobs' index by number, made once, at the first job
// the note concerns.
type preemptNotes struct {
	pl *planner
	f  *cfFacts
}

// note is what waiting job pe.Job's message adds (pendingContext.preempt),
// "" where preemptConcerns does not hold or preemptListNote has nothing.
func (n *preemptNotes) note(pe sched.Pending) string {
	if !preemptConcerns(&n.pl.snap, pe) {
		return ""
	}
	if n.f == nil {
		s := &n.pl.snap
		n.f = liveFacts(n.pl.m, -1)
		n.f.mf, _ = sched.PriorityFactors(s) // nil on error: mfCouldPreempt's own
		n.f.byID = make(map[int64]int, len(s.Jobs))
		for i := range s.Jobs {
			if rec := n.f.rec(i); rec != nil {
				n.f.byID[rec.ID] = i
			} else if id, err := strconv.ParseInt(s.Jobs[i].ID, 10, 64); err == nil {
				n.f.byID[id] = i
			}
		}
	}
	return preemptListNote(n.f, pe.Job)
}

// preemptConcerns says whether waiting job pe.Job may get a preemption
// note: it waits for slots (no_capacity, fragmented, or reserved as the
// head of the queue: not behind another waiting job, nor for a quota, a
// license or checkpoints under way), in a multifactor or priority pool
// whose rule may preempt for it (the pool's preemption, or a QOS of its
// that preempts), as preemptWay asks. It reads only the job and its pool.
func preemptConcerns(s *sched.Snapshot, pe sched.Pending) bool {
	switch pe.Reason {
	case sched.ReasonNoCapacity, sched.ReasonFragmented, sched.ReasonReserved:
	default:
		return false
	}
	if pe.Job < 0 || pe.Job >= len(s.Jobs) {
		return false
	}
	e := &s.Jobs[pe.Job]
	if e.Pool < 0 || e.Pool >= len(s.Pools) {
		return false
	}
	pl := &s.Pools[e.Pool]
	if pl.Policy != sched.PolicyMultifactor && pl.Policy != sched.PolicyPriority {
		return false
	}
	return pl.Preemption || (e.QOS >= 0 && e.QOS < len(s.QOS) && s.QOS[e.QOS].Preempt)
}

// preemptListNote is the short words of preemptWay for job ji, on the
// jobs that the counterfactual says must end for it (endsFor, mustEnd),
// as allot explain finds them: "; its QOS emergency may preempt, but job
// 7 is not preemptible". "" where its own tasks are in its way (explain
// then says that), or none of the jobs in its way is kept by the rule.
func preemptListNote(f *cfFacts, ji int) string {
	e := &f.s.Jobs[ji]
	need := e.SmallestTask()
	if need == 0 {
		return ""
	}
	chosen, ends, own := endsFor(f.s, f.poolNodes(e), ji, need)
	if own || len(ends) == 0 {
		return ""
	}
	refs, _ := f.mustEnd(e, chosen, ends)
	b, ok := preemptWay(f, ji, refs)
	if !ok {
		return ""
	}
	return b.short()
}
