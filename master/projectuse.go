package master

import (
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// quotaUse fills p's use of the quota pools from byPool (pool -> GPUs
// held, p's subtree included). Quota applies only in pools of policy
// quota, and each of them holds the project to its whole quota on its
// own (sched's quotaPass is per pool), so over quota is judged per pool
// and Used, which counts every pool, is never compared with Quota.
// GPUs that LOW-class work borrows count toward no quota, as in the
// scheduler (lifecycle.Borrows), so they are not over quota either.
func quotaUse(p *api.Project, pools []config.Pool, byPool map[string]poolHeld) {
	for _, pl := range pools {
		if pl.Policy != sched.PolicyQuota {
			continue
		}
		h := byPool[pl.Name]
		p.UsedInQuotaPools += h.used
		p.QuotaPools = append(p.QuotaPools, api.ProjectPoolUse{Pool: pl.Name, Used: h.used, Borrowed: h.borrowed})
		p.OverQuota = max(p.OverQuota, h.used-h.borrowed-p.Quota)
	}
}

// poolHeld is what a project's jobs hold in one pool: used GPUs, and of
// them borrowed those its LOW-class jobs hold in a quota pool.
type poolHeld struct{ used, borrowed int }

// poolUse gives, per project, the GPUs its jobs hold in each pool, each
// configured project's added to every project above it, as subtreeLoads
// does for the totals.
func poolUse(rv *readView, cfg *config.Config) map[string]map[string]poolHeld {
	parent := make(map[string]string, len(cfg.Projects))
	for _, p := range cfg.Projects {
		parent[p.Name] = p.Parent
	}
	quota := map[string]bool{}
	for _, pl := range cfg.Pools {
		quota[pl.Name] = pl.Policy == sched.PolicyQuota
	}
	out := map[string]map[string]poolHeld{}
	for j := range rv.jobs.all() {
		if j.used == 0 {
			continue
		}
		held := poolHeld{used: j.used}
		if lifecycle.Borrows(j.rec.PriorityClass == string(jobfile.ClassLow), quota[j.rec.Pool]) {
			held.borrowed = j.used
		}
		// A project the configuration does not name has no parents:
		// the walk stops at it.
		for name := j.rec.Project; name != ""; name = parent[name] {
			if out[name] == nil {
				out[name] = map[string]poolHeld{}
			}
			h := out[name][j.rec.Pool]
			h.used += held.used
			h.borrowed += held.borrowed
			out[name][j.rec.Pool] = h
		}
	}
	return out
}
