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
// the explanation's facts of the pass (liveFacts), made at the first job
// the note concerns, with the running jobs indexed by number (the jobs
// that must end are theirs) and, for a multifactor pool, the pass's
// multifactor priorities, shared with growNotes: each once a pass.
type preemptNotes struct {
	pl    *planner
	grows *growNotes
	f     *cfFacts
	// made counts the notes worked out this pass (maxPreemptNotes).
	made int
}

// maxPreemptNotes bounds the notes a pass works out: each searches the
// running jobs that must end for its job (about 0.1-0.2 ms on a 20-node
// pool), and a multifactor pool with conservative reservations and
// preemption may list a thousand reserved jobs. The first in pass order
// are the queues' heads, those a user asks about; beyond them allot
// explain still says it.
const maxPreemptNotes = 64

// note is what waiting job pe.Job's message adds (pendingContext.preempt),
// "" where preemptConcerns does not hold or preemptListNote has nothing.
func (n *preemptNotes) note(pe sched.Pending) string {
	s := &n.pl.snap
	if !preemptConcerns(s, pe) || n.made == maxPreemptNotes {
		return ""
	}
	n.made++
	if n.f == nil {
		n.f = liveFacts(n.pl.m, -1)
		n.f.byID = map[int64]int{}
		for ai := range s.Allocs {
			ji := s.Allocs[ai].Job
			if rec := n.f.rec(ji); rec != nil {
				n.f.byID[rec.ID] = ji
			} else if id, err := strconv.ParseInt(s.Jobs[ji].ID, 10, 64); err == nil {
				n.f.byID[id] = ji
			}
		}
	}
	if n.f.mf == nil && s.Pools[s.Jobs[pe.Job].Pool].Policy == sched.PolicyMultifactor {
		if n.grows.factors == nil {
			n.grows.factors, _ = sched.PriorityFactors(s) // nil on error: mfCouldPreempt's own
		}
		n.f.mf = n.grows.factors
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
