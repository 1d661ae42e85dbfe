package master

import (
	"fmt"
	"strconv"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// goneProject makes a project the configuration no longer has part of
// the scenario, once: a top-level project with no quota (over-quota
// weight 1, the default at quota 0), and an account with one share where
// pools read accounts, so that the job keeps a project and an account the
// file declares and the file parses. It returns the note for the header,
// or "" when the project was added before.
func goneProject(sc *scenario.Scenario, name string, accounts bool) string {
	for _, p := range sc.Projects {
		if p.Name == name {
			return ""
		}
	}
	sc.Projects = append(sc.Projects, spec.Project{Name: name, OverQuotaWeight: 1})
	if accounts {
		sc.Accounts = append(sc.Accounts, scenario.Account{Name: name, Shares: 1})
	}
	return "project " + strconv.Quote(name) + " is no longer configured: its jobs count toward a project of that name with no quota " +
		"(live, its waiting jobs wait as unknown_project)"
}

// neverFits says why a job of a quota pool can never run within its
// project's quota or under a limit of its project or a parent, as the
// scenario parser judges it (scenario's checkJobQuota), or "" when it
// can. The live master accepts such a job (its quotas are the cluster's
// to change) and keeps it waiting; the export marks it allow_infeasible,
// so that the simulator accepts what the master accepted.
func neverFits(sj *scenario.Job, p *scenario.Pool, projects []spec.Project) string {
	if p.Policy != sched.PolicyQuota || p.Quota >= 0 {
		return "" // pools with a quota of their own are not exported
	}
	byName := make(map[string]*spec.Project, len(projects))
	for i := range projects {
		byName[projects[i].Name] = &projects[i]
	}
	size := sj.Slots
	if sj.MinSlots > 0 {
		size = sj.MinSlots
	}
	pr := byName[sj.Project]
	if pr == nil {
		return ""
	}
	if !sj.Preemptible && size > pr.Quota {
		return fmt.Sprintf("a task of %d slots is larger than project %s's quota of %d, and the job is not preemptible", size, strconv.Quote(pr.Name), pr.Quota)
	}
	for seen := 0; pr != nil && seen <= len(projects); seen++ {
		if pr.Limit > 0 && size > pr.Limit {
			return fmt.Sprintf("a task of %d slots is larger than project %s's limit of %d", size, strconv.Quote(pr.Name), pr.Limit)
		}
		pr = byName[pr.Parent]
	}
	return ""
}
