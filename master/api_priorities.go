package master

import (
	"net/http"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Priorities. GET /priorities lists the waiting jobs of the multifactor
// pools with their factors, as Slurm's sprio does, from the last pass's
// snapshot (sched.PriorityFactors, as an explanation's factors). A caller
// sees the jobs GET /jobs shows it (readable): another project's job is
// left out.

// prioritiesAPI serves GET /priorities.
type prioritiesAPI struct {
	server
}

// prioritySel is GET /priorities's query: the pool, project and user.
type prioritySel struct{ pool, project, user string }

func (pa prioritiesAPI) handle(w http.ResponseWriter, r *http.Request) {
	sel, err := pa.query(r)
	if err != nil {
		pa.fail(w, err)
		return
	}
	v := pa.m.pub.reads()
	ranks := v.positions()
	poolAt := map[string]int{}
	out := api.Priorities{AsOf: time.Unix(pa.m.now().Unix(), 0).UTC(), Pools: []api.PoolWeights{}, Jobs: []api.JobPriority{}}
	for i, p := range v.cfg.Pools {
		if p.Policy == sched.PolicyMultifactor && (sel.pool == "" || sel.pool == p.Name) {
			poolAt[p.Name] = i
		}
	}
	// The jobs a caller may read, by GET /jobs's rule (readable).
	who := principalOf(r)
	var queue []*jobRead
	for j := range v.jobs.all() {
		_, mf := poolAt[j.rec.Pool]
		if mf && ranks[j.rec.ID] > 0 && sel.matches(j) && who.CanRead(j.rec.Project, j.rec.User) == nil {
			queue = append(queue, j)
		}
	}
	slices.SortFunc(queue, func(a, b *jobRead) int {
		if c := poolAt[a.rec.Pool] - poolAt[b.rec.Pool]; c != 0 {
			return c
		}
		return ranks[a.rec.ID] - ranks[b.rec.ID]
	})
	for _, j := range queue {
		out.Jobs = append(out.Jobs, api.JobPriority{ID: j.rec.ID, Name: j.rec.Name, User: j.rec.User,
			Project: j.rec.Project, Pool: j.rec.Pool, Position: ranks[j.rec.ID]})
	}
	out.Pools = pa.factors(out.Jobs, poolAt)
	writeJSON(w, http.StatusOK, out)
}

// matches reports whether j is of the selected project and user.
func (s prioritySel) matches(j *jobRead) bool {
	return (s.project == "" || j.rec.Project == s.project) && (s.user == "" || j.rec.User == s.user)
}

// query reads the filters: an unknown project or user is a 400 as in
// GET /jobs, an unknown pool is a 400 that lists the pools,
// a pool of another policy one that names its policy.
func (pa prioritiesAPI) query(r *http.Request) (prioritySel, error) {
	q := r.URL.Query()
	if err := onlyParams(q, "pool", "project", "user"); err != nil {
		return prioritySel{}, err
	}
	sel := prioritySel{pool: q.Get("pool"), project: q.Get("project"), user: q.Get("user")}
	// The project and user are checked as GET /jobs checks them.
	jq, cfg := jobsQuery{pa.server}, pa.m.Config()
	if sel.project != "" && cfg.ProjectIndex(sel.project) < 0 && sel.project != cfg.DefaultProject {
		if err := jq.namedByAJob(r.Context(), "project", sel.project, store.JobFilter{Project: sel.project}, cfg.ProjectNames()); err != nil {
			return sel, err
		}
	}
	if sel.user != "" {
		if err := jq.checkUser(r.Context(), sel.user, principalOf(r)); err != nil {
			return sel, err
		}
	}
	if sel.pool == "" {
		return sel, nil
	}
	pi := cfg.PoolIndex(sel.pool)
	if pi < 0 {
		return sel, unknownValue("pool", sel.pool, cfg.PoolNames())
	}
	if p := cfg.Pools[pi].Policy; p != sched.PolicyMultifactor {
		return sel, badRequest("pool", "pool %q has policy %s, not multifactor: its jobs have no multifactor priority", sel.pool, p)
	}
	return sel, nil
}

// factors fills in the jobs' factors from the last pass's snapshot and
// returns the weights of the pools in poolAt, under mu, which it holds
// for that alone. A job that the last pass did not see (submitted
// since) keeps zero factors.
func (pa prioritiesAPI) factors(jobs []api.JobPriority, poolAt map[string]int) []api.PoolWeights {
	pa.m.lock()
	defer pa.m.unlock()
	snap := &pa.m.planner.snap
	weights := []api.PoolWeights{}
	for _, p := range snap.Pools {
		if _, ok := poolAt[p.Name]; ok && p.Policy == sched.PolicyMultifactor {
			mf := p.Multifactor
			weights = append(weights, api.PoolWeights{Pool: p.Name, Age: mf.Age, FairShare: mf.FairShare,
				JobSize: mf.JobSize, QOS: mf.QOS, PoolW: mf.Pool})
		}
	}
	fs, err := sched.PriorityFactors(snap)
	if err != nil {
		return weights
	}
	for i := range jobs {
		j := pa.m.jobs[jobs[i].ID]
		if j == nil {
			continue
		}
		ji := pa.m.planner.roster.index(j)
		if ji < 0 || ji >= len(fs) || ji >= len(snap.Jobs) {
			continue
		}
		f, mf := fs[ji], snap.Pools[snap.Jobs[ji].Pool].Multifactor
		jobs[i].Priority = f.Priority
		jobs[i].Factors = api.Factors{Age: f.Age, FairShare: f.FairShare, JobSize: f.JobSize, QOS: f.QOS,
			Pool: f.Pool, Nice: f.Nice, Priority: f.Priority}
		jobs[i].Weighted = api.Factors{Age: mf.Age * f.Age, FairShare: mf.FairShare * f.FairShare,
			JobSize: mf.JobSize * f.JobSize, QOS: mf.QOS * f.QOS, Pool: mf.Pool * f.Pool, Nice: f.Nice,
			Priority: f.Priority}
	}
	return weights
}
