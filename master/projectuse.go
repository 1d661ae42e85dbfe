package master

import (
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// quotaUse fills p's use of the quota pools from byPool (pool -> GPUs
// held, p's subtree included). Quota applies only in pools of policy
// quota, and each of them holds the project to its whole quota on its
// own (sched's quotaPass is per pool), so over quota is judged per pool
// and Used, which counts every pool, is never compared with Quota.
func quotaUse(p *api.Project, pools []config.Pool, byPool map[string]int) {
	for _, pl := range pools {
		if pl.Policy != sched.PolicyQuota {
			continue
		}
		used := byPool[pl.Name]
		p.UsedInQuotaPools += used
		p.QuotaPools = append(p.QuotaPools, api.ProjectPoolUse{Pool: pl.Name, Used: used})
		p.OverQuota = max(p.OverQuota, used-p.Quota)
	}
}

// poolUse gives, per project, the GPUs its jobs hold in each pool, each
// configured project's added to every project above it, as subtreeLoads
// does for the totals.
func poolUse(rv *readView, projects []spec.Project) map[string]map[string]int {
	parent := make(map[string]string, len(projects))
	for _, p := range projects {
		parent[p.Name] = p.Parent
	}
	out := map[string]map[string]int{}
	for j := range rv.jobs.all() {
		if j.used == 0 {
			continue
		}
		// A project the configuration does not name has no parents:
		// the walk stops at it.
		for name := j.rec.Project; name != ""; name = parent[name] {
			if out[name] == nil {
				out[name] = map[string]int{}
			}
			out[name][j.rec.Pool] += j.used
		}
	}
	return out
}
