package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// The fair-share rule of the counterfactual. In a fair_share pool with
// preemption a job below its share preempts only for a task that fits
// within its share, and only tasks of jobs that stay at or above theirs
// (or a grown elastic task of a job above its share, which shrinks):
// sched's sharePreempt. A running job the rule would not take for the
// job must end, and "ends or is preempted" would promise what never
// comes; the answer says which part of the rule holds.

// fairShares is each snapshot job's fair share (sched.FairShares),
// computed once; nil when the core rejects the snapshot.
func (f *cfFacts) fairShares() []int {
	if !f.sharesDone {
		f.sharesDone = true
		f.shares, _ = sched.FairShares(f.s)
	}
	return f.shares
}

// heldBy is the slots job ji's running tasks hold and keep (not being
// preempted), as the fair-share rule counts them.
func heldBy(s *sched.Snapshot, ji int) int {
	n := 0
	for ai := range s.Allocs {
		if a := &s.Allocs[ai]; a.Job == ji && !a.Preempting {
			n += sched.Slots(a.Nodes)
		}
	}
	return n
}

// jobIndex is e's index in the snapshot's jobs, -1 when it is not one of
// them.
func (f *cfFacts) jobIndex(e *sched.Job) int {
	for i := range f.s.Jobs {
		if &f.s.Jobs[i] == e {
			return i
		}
	}
	return -1
}

// withinShare says whether a task of job e (its size, an elastic job's
// min_slots) fits within its fair share with what it holds: only then
// does the fair-share rule preempt for it. True where shares are unknown.
func (f *cfFacts) withinShare(e *sched.Job) bool {
	shares, ji := f.fairShares(), f.jobIndex(e)
	if shares == nil || ji < 0 {
		return true
	}
	return heldBy(f.s, ji)+taskNeed(e) <= shares[ji]
}

// taskNeed is the slots a task of e needs at the least.
func taskNeed(e *sched.Job) int {
	if e.MinSlots > 0 {
		return e.MinSlots
	}
	return e.Slots
}

// shareCouldPreempt says whether the fair-share rule could take
// allocation ai for job e: e's task fits within its share, and the
// victim's job stays at or above its own without the task, or the task
// is a grown elastic one of a job above its share, which shrinks.
func (f *cfFacts) shareCouldPreempt(e *sched.Job, ai int) bool {
	shares := f.fairShares()
	if shares == nil {
		return true
	}
	if !f.withinShare(e) {
		return false
	}
	a := &f.s.Allocs[ai]
	v := &f.s.Jobs[a.Job]
	held := heldBy(f.s, a.Job)
	if held-sched.Slots(a.Nodes) >= shares[a.Job] {
		return true
	}
	return v.MinSlots > 0 && !v.Interactive && len(a.Nodes) == 1 && int(a.Nodes[0].Slots) > v.MinSlots && held > shares[a.Job]
}

// shareNote says why the fair-share rule takes none of the jobs refs
// that must end for job ji, though they are preemptible: its task is
// larger than its share leaves room for, or they would fall below
// theirs. "" outside a fair_share pool with preemption, or when none
// of them is preemptible.
func (f *cfFacts) shareNote(ji int, refs []api.JobRef) string {
	s := f.s
	e := &s.Jobs[ji]
	pi := f.cfg.PoolIndex(s.Pools[e.Pool].Name)
	shares := f.fairShares()
	if pi < 0 || f.cfg.Pools[pi].Policy != sched.PolicyFairShare || !f.cfg.Pools[pi].Preemption || shares == nil {
		return ""
	}
	var kept []api.JobRef
	for _, r := range refs {
		if r.Preempt == "" && f.preemptibleRef(r) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	need, held := taskNeed(e), heldBy(s, ji)
	if !f.withinShare(e) {
		total := 0
		for i := range s.Nodes {
			if s.Nodes[i].Pool == e.Pool {
				total += s.Nodes[i].Slots
			}
		}
		task := fmt.Sprintf("its task needs %s,", slotWord(need))
		if held > 0 {
			task += fmt.Sprintf(" and with the %d it holds that is", held)
		}
		msg := fmt.Sprintf("Fair share preempts no job for it: %s more than its fair share (%d of the pool's %s; "+
			"shares are handed out in whole tasks, by demand × weight); it waits for %s to end.",
			task, shares[ji], slotWord(total), jobList(kept))
		if shares[ji] == 0 {
			// Trial 2026-11-29c C10: users read "fair share" as shares
			// among users or projects, taken in turns; say what this
			// policy is and where the other is.
			msg += " This pool shares among jobs, not users or projects, and does not rotate running jobs over time: " +
				"jobs that ask alike are served first come. Policies multifactor and quota share among users and projects."
		}
		return msg
	}
	whose := "its"
	if len(kept) > 1 {
		whose = "their"
	}
	return fmt.Sprintf("Fair share preempts no job for it: %s would fall below %s own fair share; it waits for %s to end.",
		jobList(kept), whose, them(len(kept)))
}

// mustEndMessage is the words of job ji's counterfactual cf where
// running jobs must end (or be preempted) on its nodes, with why the
// fair-share rule (shareNote) or the priority and QOS rule (preemptNote)
// takes none of those that must end.
func (f *cfFacts) mustEndMessage(ji int, cf *api.Counterfactual) string {
	m := fmt.Sprintf("It could start on %s once %s.", strings.Join(cf.Nodes, ", "), mustEndPhrase(cf.MustEnd))
	if note := f.shareNote(ji, cf.MustEnd); note != "" {
		m += " " + note
	}
	if note := preemptNote(f, ji, cf.MustEnd); note != "" { // explainmf.go
		m += " " + note
	}
	return m
}

// preemptibleRef says whether the running job ref names is preemptible.
func (f *cfFacts) preemptibleRef(r api.JobRef) bool {
	if f.byID != nil {
		i, ok := f.byID[r.ID]
		return ok && f.s.Jobs[i].Preemptible
	}
	for i := range f.s.Jobs {
		if rec := f.rec(i); rec != nil && rec.ID == r.ID {
			return f.s.Jobs[i].Preemptible
		}
	}
	return false
}
