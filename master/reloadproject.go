package master

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
)

// orphanedJobs are the live jobs of each project that cfg lacks, by
// project, each list in id order; with had set, only projects that had
// has (a project an earlier configuration lost already is not counted
// again). Callers hold mu.
func orphanedJobs(jobs map[int64]*mjob, cfg, had *config.Config) map[string][]*mjob {
	out := map[string][]*mjob{}
	for _, j := range jobs {
		p := j.rec.Project
		if p == "" || j.gone || !j.live() || cfg.ProjectIndex(p) >= 0 || (had != nil && had.ProjectIndex(p) < 0) {
			continue
		}
		out[p] = append(out[p], j)
	}
	for _, js := range out {
		slices.SortFunc(js, func(a, b *mjob) int { return int(a.rec.ID - b.rec.ID) })
	}
	return out
}

// sayOrphans names, per project, its live jobs (the first five, with
// their states) and how many.
func sayOrphans(orphans map[string][]*mjob) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(orphans)) {
		js := orphans[p]
		shown := firstFive(js, func(j *mjob) string { return "job " + j.idString() + " (" + string(j.rec.State) + ")" })
		out = append(out, fmt.Sprintf("project %s has %s (%s)", p, plural.Count(len(js), "live job"), shown))
	}
	return out
}

// checkJobProjects refuses a reload that drops a project that live
// (queued or running) jobs belong to, as checkJobPools refuses one that
// drops their pool, and as Slurm refuses to delete an account with
// active jobs: the project's quota, shares and fair-share account are
// what the scheduler places and charges those jobs by, and a reload that
// took them while the jobs live left the running ones' GPUs out of the
// snapshot (the core planned starts on them every pass). Callers hold
// mu.
func (rl reloader) checkJobProjects(cfg *config.Config) error {
	m := rl.m
	orphans := orphanedJobs(m.jobs, cfg, m.cfg)
	if len(orphans) == 0 {
		return nil
	}
	return badRequest("", "reload %s: the new configuration drops the %s that live jobs belong to: %s: "+
		"keep the project until its jobs end, or kill them (allot job kill ID; allot jobs --project NAME lists them); "+
		"the configuration in force is unchanged", m.opt.ConfigPath, plural.Noun(len(orphans), "project"),
		strings.Join(sayOrphans(orphans), "; "))
}

// orphans says, at start, of each project that the configuration
// lacks though live jobs in the store belong to it, which jobs: the
// master keeps them, as it keeps the jobs of a pool the configuration
// lacks, but in a pool with quotas or fair share they are left out of
// the scheduling until the project is back (unknown_project).
func (u jobsUnder) orphans() []string {
	var out []string
	for _, s := range sayOrphans(orphanedJobs(u.jobs, u.cfg, nil)) {
		out = append(out, s+", but the configuration does not define it: the jobs are kept; "+
			"in pools with quotas or fair share they are not scheduled, and their slots not counted, "+
			"until the project is back (add it to the configuration and reload), or kill them (allot job kill ID)")
	}
	return out
}
