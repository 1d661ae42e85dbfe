package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// preemptionRule says, for the preempted attempt's record, which job took
// the GPUs and under which rule of its pool's policy, so that a user who
// finds an attempt preempted learns by whom and why; and that rule in a
// word (the transition's cause), which the attempt's view gives beside
// the job (preempted_by).
func preemptionRule(s *sched.Snapshot, p sched.Preemption) (string, store.Cause) {
	lead, why, cause := preemptionAccount(s, p, "")
	if why == "" {
		return lead, cause
	}
	return lead + " (" + why + ")", cause
}

// preemptionAccount is preemptionRule in parts: who took the GPUs, the
// rule that let it ("" where the lead says it all) and that rule in a
// word ("" where it names none). Why names the preempted job as such,
// not "this job": a dry run shows it in the table of the job submitted,
// where "this job" would read as that one. winner names the job that
// took them ("" for "job ID"; a dry run's job has no ID).
func preemptionAccount(s *sched.Snapshot, p sched.Preemption, winner string) (lead, why string, cause store.Cause) {
	if p.For < 0 || p.For >= len(s.Jobs) || p.Alloc < 0 || p.Alloc >= len(s.Allocs) {
		return "preempted", "", ""
	}
	taker := &s.Jobs[p.For]
	if winner == "" {
		winner = "job " + taker.ID
	}
	alloc := &s.Allocs[p.Alloc]
	base := "preempted for " + winner
	if alloc.Job < 0 || alloc.Job >= len(s.Jobs) || taker.Pool < 0 || taker.Pool >= len(s.Pools) {
		return base, "", ""
	}
	victim := &s.Jobs[alloc.Job]
	project := func(j *sched.Job) string {
		if j.Project >= 0 && j.Project < len(s.Projects) {
			return s.Projects[j.Project].Name
		}
		return "?"
	}
	qos := func(j *sched.Job) string {
		if j.QOS >= 0 && j.QOS < len(s.QOS) {
			return s.QOS[j.QOS].Name
		}
		return "?"
	}
	switch {
	case alloc.Backfilled:
		return base, "this task was backfilled on slots the blocked job was waiting for", store.CauseBackfilled
	case taker.QOS != victim.QOS && taker.QOS >= 0 && taker.QOS < len(s.QOS) && s.QOS[taker.QOS].Preempt:
		return base, fmt.Sprintf("QOS %s may preempt QOS %s", qos(taker), qos(victim)), store.CauseQOS
	}
	switch s.Pools[taker.Pool].Policy {
	case sched.PolicyPriority:
		return base, fmt.Sprintf("priority %d runs before the preempted job's %d", taker.Priority, victim.Priority), store.CausePriority
	case sched.PolicyQuota:
		if taker.Project != victim.Project {
			return fmt.Sprintf("reclaimed for %s of project %s, within its quota; project %s was using more than its quota",
				winner, project(taker), project(victim)), "", store.CauseQuotaReclaim
		}
		return base + " of the same project, which ranks it first", "", store.CauseSameProject
	case sched.PolicyFairShare:
		return base, "fair share: its owner is below its share of the pool, the preempted job's above", store.CauseFairShare
	case sched.PolicyMultifactor:
		// The rule is the QOS's first (policies.md, "Preemption goes by
		// QOS"): a higher multifactor priority alone preempts nothing.
		return base, fmt.Sprintf("its QOS %s (priority %d) ranks above the preempted job's QOS %s (%d), and so does its multifactor priority",
			qos(taker), qosPriority(s, taker), qos(victim), qosPriority(s, victim)), store.CauseMultifactor
	}
	return base, "", ""
}

// resizeWhy is the rule that let a shrink give slots to job p.For: the
// preemption's rule, said of the resized job; for a quota reclaim, which
// names its projects in the lead, the projects' standing; for work of the
// resized job's own project (a quota pool's work within quota taking the
// place of the project's preemptible work), that rule.
func resizeWhy(s *sched.Snapshot, p sched.Preemption) string {
	_, why, cause := preemptionAccount(s, p, "")
	if cause == store.CauseSameProject {
		return "the same project's work within its quota goes before its preemptible work"
	}
	if cause == store.CauseQuotaReclaim {
		name := func(j *sched.Job) string {
			if j.Project >= 0 && j.Project < len(s.Projects) {
				return s.Projects[j.Project].Name
			}
			return "?"
		}
		return fmt.Sprintf("quota reclaim: project %s is below its quota, project %s over it",
			name(&s.Jobs[p.For]), name(&s.Jobs[s.Allocs[p.Alloc].Job]))
	}
	return strings.Replace(why, "preempted job", "resized job", 1)
}

// qosPriority is a job's QOS priority, 0 for none.
func qosPriority(s *sched.Snapshot, j *sched.Job) int {
	if j.QOS >= 0 && j.QOS < len(s.QOS) {
		return int(s.QOS[j.QOS].Priority)
	}
	return 0
}
