package master

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/sched"
)

// jobsUnder is the mirror's live jobs judged against a configuration, the
// one in force at start or the one a reload swaps in: what the admin must
// hear of what becomes of them under it, which no refusal of the
// configuration says (orphans at start, where a reload refuses them;
// disallowedQOS and neverRuns at start and at every reload). Callers hold
// mu.
type jobsUnder struct {
	jobs map[int64]*mjob
	cfg  *config.Config
}

// neverRuns says, under cfg, of the live jobs with tasks waiting
// that can never start in their quota pool (a reload lowered their
// project's limit or quota below a task: quotaNever, the rule that
// refuses such a submission), which they are and what to do. They are
// kept, as Kueue keeps a workload it cannot admit: the admin may mean to
// raise the limit again.
func (u jobsUnder) neverRuns() []string {
	cfg := u.cfg
	var out []string
	var jobs []*mjob
	for _, j := range u.jobs {
		if j.live() && !j.rec.State.Terminal() && j.count.Queued() > 0 {
			jobs = append(jobs, j)
		}
	}
	slices.SortFunc(jobs, func(a, b *mjob) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
	for _, j := range jobs {
		pool := cfg.PoolIndex(j.rec.Pool)
		if pool < 0 || cfg.Pools[pool].Policy != sched.PolicyQuota {
			continue
		}
		e, _, ok := judgedEntry(cfg, j.rec, j, pool)
		if !ok {
			continue // an unknown QOS or license: its own reason says so
		}
		if _, why, _ := quotaNever(cfg, pool, j.rec.Project, &e); why != "" {
			out = append(out, fmt.Sprintf("job %d (%s, %s) can never start now: %s; it waits until the configuration allows it (raise the limit or quota again, or kill it: allot job kill %d)",
				j.rec.ID, j.rec.Name, j.rec.State, why, j.rec.ID))
		}
	}
	return out
}
