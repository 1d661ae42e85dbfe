package master

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/yamlfield"
)

// Submit-time feasibility. A job that no node of its pool could ever
// hold, even with the pool empty (more slots per task than the pool's
// matching nodes have, a GPU type no node has, more of a license than
// exist), would otherwise wait forever. It is refused at submission, with
// the field and the most that could fit (for a GPU type, the types there
// and the likely one for a typo), by the same check the simulator
// makes (sched.Feasible). The nodes it counts are every node registered
// in the pool, up or lost, since a lost node may come back. A user who
// expects the cluster to grow (new nodes, a config change) can submit
// such a job anyway with ?allow_infeasible=true (allot submit
// --allow-infeasible); it then waits with the reason the core gives. A
// pool that no node has joined yet is not judged.

// AllowInfeasibleParam is the submit query parameter that keeps a job
// that cannot run on today's cluster.
const AllowInfeasibleParam = "allow_infeasible"

// feasView is what submit-time feasibility judges by: the configuration
// and every registered node, as of its making. It is built under mu when
// a submission finds none and published for the submissions after it,
// which then judge without waiting for mu (a batch holds it across its
// commit); registering or deleting a node and a reload drop it
// (forgetFeasible).
type feasView struct {
	cfg    *config.Config
	snap   sched.Snapshot
	inPool map[int]int // nodes per pool index
}

// forgetFeasible drops the published view after a change of the nodes or
// the configuration. Callers hold mu.
func (m *Master) forgetFeasible() { m.feas.Store(nil) }

// feasibility returns the published view, building it if needed.
func (ja *jobsAPI) feasibility() *feasView {
	if v := ja.m.feas.Load(); v != nil {
		return v
	}
	ja.m.lock()
	defer ja.m.unlock()
	if v := ja.m.feas.Load(); v != nil {
		return v
	}
	v := &feasView{cfg: ja.m.cfg, inPool: map[int]int{}}
	v.snap.Licenses = ja.m.cfg.SchedLicenses()
	for _, p := range ja.m.cfg.Pools {
		v.snap.Pools = append(v.snap.Pools, p.Sched())
	}
	for _, n := range ja.m.nodes {
		i := ja.m.cfg.PoolIndex(n.pool)
		if i < 0 {
			continue
		}
		v.inPool[i]++
		f := nodeFacts(ja.m.cfg, n.rec.Name, n, i)
		v.snap.Nodes = append(v.snap.Nodes, f.Node())
	}
	ja.m.feas.Store(v)
	return v
}

// checkFeasible returns a 422 naming the field when rec (with hints j)
// could never run on the nodes registered now. Callers do not hold mu.
func (ja *jobsAPI) checkFeasible(rec store.Job, j *mjob) error {
	v := ja.feasibility()
	pool := v.cfg.PoolIndex(rec.Pool)
	if pool < 0 {
		return nil // jobRecord resolved it; a reload since is the pass's to report
	}
	if rec.Slots == 0 && v.cfg.Pools[pool].ZeroSlotLimit == 0 {
		return &httpError{status: http.StatusUnprocessableEntity, field: "pool", msg: fmt.Sprintf(
			"pool: pool %s runs no zero-slot tasks (zero_slot_limit: 0), so this job, which asks for no GPU, would never start. "+
				"Submit it to a pool that does, or with %s=true (allot submit --allow-infeasible) to queue it for a configuration yet to change.",
			rec.Pool, AllowInfeasibleParam)}
	}
	if v.inPool[pool] == 0 {
		// No node has joined the pool yet (a master just started): there
		// is nothing to judge by, and the job waits with reason no_nodes.
		return nil
	}
	e, f, ok := judgedEntry(v.cfg, rec, j, pool)
	if !ok {
		return nil // an unknown QOS or license: the pass reports it
	}
	// A zero-slot task is judged too: it needs no GPU, but it waits for
	// ever for a GPU type no node of its pool has (the core's findZero
	// matches the type) or for more of a license than exist. The pool's
	// own size binds first, whatever the quota: a job too big for the
	// pool was told to go preemptible to run over quota, which cannot
	// help (trial 2026-11-29c C3).
	s := v.snap // Feasible reads it only; the copy keeps the view's slices shared, unchanged
	err := sched.Feasible(&s, &e)
	var ie *sched.InfeasibleError
	if !errors.As(err, &ie) {
		if err != nil {
			return err
		}
		return quotaFeasible(v.cfg, pool, rec.Project, &e)
	}
	field := "resources." + ie.Field
	switch ie.Field {
	case "pool":
		field = "pool"
	case "slots":
		if j.spec.minSlots > 0 {
			field = "resources.min_slots"
		}
	}
	detail := ie.Error()
	if ie.Field == "gpu" {
		detail += yamlfield.Suggest(f.GPU, v.poolGPUTypes(pool))
		if others := v.poolsWithGPU(f.GPU); len(others) > 0 {
			detail += fmt.Sprintf("; %s nodes are in %s %s (submit with pool: %s)",
				f.GPU, plural.Noun(len(others), "pool"), strings.Join(others, ", "), others[0])
		}
	}
	if !strings.HasSuffix(detail, "?") {
		detail += "."
	}
	msg := fmt.Sprintf("%s: %s ", field, detail)
	if ie.Field == "slots" || ie.Field == "licenses" {
		msg += fmt.Sprintf("The most that could fit is %d. ", ie.Max)
	}
	msg += "Submit it with " + AllowInfeasibleParam + "=true (allot submit --allow-infeasible) to queue it anyway, " +
		"for nodes yet to join or a configuration yet to change."
	return &httpError{status: http.StatusUnprocessableEntity, field: field, msg: msg}
}

// judgedEntry is the entry of job j (record rec) in pool pool that the
// checks of what can never run judge (checkFeasible, jobsUnder.neverRuns),
// with its facts; false where its QOS or a license is unknown, which the
// pass reports.
func judgedEntry(cfg *config.Config, rec store.Job, j *mjob, pool int) (sched.Job, lifecycle.JobFacts, bool) {
	f := lifecycle.JobFacts{ID: rec.Name, Pool: pool, Slots: rec.Slots, Preemptible: rec.Preemptible,
		Low: rec.PriorityClass == string(jobfile.ClassLow), QuotaPool: cfg.Pools[pool].Policy == sched.PolicyQuota,
		Interactive: lifecycle.InteractiveKind(sched.Kind(rec.Kind))}
	if schedHints(cfg, j, &f) != nil {
		return sched.Job{}, f, false
	}
	return f.Entry(), f, true
}

// poolGPUTypes lists the GPU types of the pool's nodes, for a mistyped
// type's did-you-mean.
func (v *feasView) poolGPUTypes(pool int) []string {
	var types []string
	for _, n := range v.snap.Nodes {
		if n.Pool == pool && n.GPU != "" && !slices.Contains(types, n.GPU) {
			types = append(types, n.GPU)
		}
	}
	return types
}

// poolsWithGPU names the pools that have nodes of the GPU type, for a job
// that asked for it in another pool.
func (v *feasView) poolsWithGPU(gpu string) []string {
	var pools []string
	for _, n := range v.snap.Nodes {
		if n.GPU == gpu && n.Pool >= 0 && n.Pool < len(v.cfg.Pools) && !slices.Contains(pools, v.cfg.Pools[n.Pool].Name) {
			pools = append(pools, v.cfg.Pools[n.Pool].Name)
		}
	}
	slices.Sort(pools)
	return pools
}

// quotaFeasible refuses, in a quota pool, work whose smallest task is
// larger than the limit of its project or a parent, borrowing (LOW) work
// included, since the limit caps what it borrows too, and work that may
// only run within its project's quota (interactive or not preemptible)
// whose smallest task is larger than that quota: it would wait for ever,
// however idle the pool (the scenario parser's rule too).
func quotaFeasible(cfg *config.Config, pool int, project string, e *sched.Job) error {
	field, why, advice := quotaNever(cfg, pool, project, e)
	if why == "" {
		return nil
	}
	return &httpError{status: http.StatusUnprocessableEntity, field: field, msg: fmt.Sprintf(
		"%s: %s.%s Submit it with %s=true (allot submit --allow-infeasible) to queue it anyway, for a configuration yet to change.",
		field, why, advice, AllowInfeasibleParam)}
}

// quotaNever says why job e of project can never run in quota pool pool
// under cfg (quotaFeasible's rule), naming the field at fault, with
// advice for a submission; why is "" when it can run.
func quotaNever(cfg *config.Config, pool int, project string, e *sched.Job) (field, why, advice string) {
	if cfg.Pools[pool].Policy != sched.PolicyQuota {
		return "", "", ""
	}
	need := e.Slots
	field = "resources.slots"
	if e.MinSlots > 0 {
		need, field = e.MinSlots, "resources.min_slots"
	}
	pr, ok := cfg.Project(project)
	if !ok {
		return "", "", ""
	}
	// A limit binds first, and binds borrowing work too (trial
	// 2026-11-29e E6: a LOW job past it was accepted and waited for
	// ever): running preemptible over quota would not help.
	for p, ok := pr, true; ok; p, ok = cfg.Project(p.Parent) {
		if p.Limit > 0 && need > p.Limit {
			return field, fmt.Sprintf("a task of %s can never run under project %s's limit of %d in quota pool %s",
					plural.Count(need, "slot"), p.Name, p.Limit, cfg.Pools[pool].Name),
				" The limit caps what the project holds there, borrowing LOW work included. Submit it with smaller tasks, " +
					"or ask an admin to raise the project's limit (projects[].limit in the configuration)."
		}
	}
	if e.Borrow {
		return "", "", "" // borrowing work counts toward no quota
	}
	if guaranteed := e.Interactive || !e.Preemptible; guaranteed && need > pr.Quota {
		kind := "not preemptible"
		if e.Interactive {
			kind = "interactive"
		}
		return field, fmt.Sprintf("a task of %s can never run within project %s's quota of %d in quota pool %s, and this job may only run within "+
				"its project's quota (it is %s)", plural.Count(need, "slot"), pr.Name, pr.Quota, cfg.Pools[pool].Name, kind),
			" Submit it preemptible (resources.preemptible: true) to run over quota on idle GPUs, or to a project with a larger quota."
	}
	return "", "", ""
}
