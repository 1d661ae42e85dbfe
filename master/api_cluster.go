package master

import (
	_ "embed"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

//go:embed openapi.json
var openapiDoc []byte

// clusterAPI serves the cluster's side of the API: nodes (with drain,
// resume and delete), pools, projects, reservations, fairness, usage,
// history and its what-if scenario, the configuration reload, the OpenAPI
// document and /livez. It holds no state: it changes the mirror under
// Master.mu (taken through lock), lists nodes, pools and projects from
// the read view (readview.go) without it, and reads the store's history
// without it.
type clusterAPI struct {
	server
}

func (ca *clusterAPI) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openapiDoc)
}

func (ca *clusterAPI) handleNodes(w http.ResponseWriter, r *http.Request) {
	v := ca.m.pub.reads()
	out := make([]api.Node, len(v.nodes))
	for i, n := range v.nodes {
		out[i] = n.view
	}
	writeJSON(w, http.StatusOK, out)
}

// load is what a pool or a project holds and waits for: queuedJobs
// counts the jobs in state queued (held ones too), what the job lists'
// queued filter shows; the tasks still waiting in running jobs (an
// experiment's trials, an array's tasks not started) are waitingTasks,
// not queued jobs, which no list of queued jobs could show (trial
// 2026-11-29i I1).
type load struct {
	used, queuedJobs, runningTasks, waitingTasks int
}

// setLoad copies l into a pool's or a project's counts.
func setLoad(used, queuedJobs, runningTasks, waitingTasks *int, l *load) {
	if l != nil {
		*used, *queuedJobs, *runningTasks, *waitingTasks = l.used, l.queuedJobs, l.runningTasks, l.waitingTasks
	}
}

func (ca *clusterAPI) handlePools(w http.ResponseWriter, r *http.Request) {
	rv := ca.m.pub.reads()
	loads := rv.loads(func(j *jobRead) string { return j.rec.Pool })
	res := rv.reservations()
	away := rv.elsewhere()
	out := make([]api.Pool, 0, len(rv.cfg.Pools))
	failing := ca.m.passes.status().Error
	for _, p := range rv.cfg.Pools {
		// A backfill pool backfills whatever its switch says.
		v := api.Pool{Name: p.Name, Policy: string(p.Policy), Preemption: p.Preemption, Backfill: p.Backfill || p.Policy == sched.PolicyBackfill,
			Placement: string(p.Placement), GraceS: int64(poolGrace(rv.cfg, p.Name) / time.Second),
			KillGraceS: int64(p.KillGrace / time.Second)}
		for _, n := range rv.nodes {
			if n.pool == p.Name {
				poolNodeCount(&v, n)
			}
		}
		setLoad(&v.Used, &v.QueuedJobs, &v.RunningTasks, &v.WaitingTasks, loads[p.Name])
		v.Reservations = res[p.Name]
		if p.Policy == sched.PolicyBackfill || p.Backfill {
			// Only a pool that backfills has a window for it.
			v.BackfillWindow = rv.backfillWindow(p.Name, v.Reservations, ca.m.now())
		}
		v.Elsewhere = away[p.Name]
		v.SchedulerError = failing
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, out)
}

// poolNodeCount counts node n in its pool's view v: up (drained or not),
// lost or left (api.Pool).
func poolNodeCount(v *api.Pool, n *nodeRead) {
	switch {
	case n.up:
		v.Nodes++
		v.Slots += n.slots
		if n.draining {
			v.DrainedNodes++
		}
		v.Guests = append(v.Guests, n.guests...)
	case n.state == store.NodeLost:
		v.LostNodes++
	case n.state == store.NodeLeft:
		v.LeftNodes++
	}
}

// elsewhere lists, by pool, the nodes outside it where its jobs' open
// attempts have parts (api.Pool.Elsewhere), in name order.
func (v *readView) elsewhere() map[string][]api.PoolNode {
	out := map[string][]api.PoolNode{}
	for j := range v.jobs.all() {
		for _, name := range j.nodes {
			n := v.node(name)
			if n == nil || n.pool == j.rec.Pool {
				continue
			}
			pn := api.PoolNode{Node: name, Pool: n.pool}
			if !slices.Contains(out[j.rec.Pool], pn) {
				out[j.rec.Pool] = append(out[j.rec.Pool], pn)
			}
		}
	}
	for _, ns := range out {
		slices.SortFunc(ns, func(a, b api.PoolNode) int { return strings.Compare(a.Node, b.Node) })
	}
	return out
}

func (ca *clusterAPI) handleProjects(w http.ResponseWriter, r *http.Request) {
	rv := ca.m.pub.reads()
	loads := rv.loads(func(j *jobRead) string { return j.rec.Project })
	trees := subtreeLoads(rv.cfg.Projects, loads)
	byPool := poolUse(rv, rv.cfg)
	out := make([]api.Project, 0, len(rv.cfg.Projects))
	seen := map[string]bool{}
	for _, p := range rv.cfg.Projects {
		seen[p.Name] = true
		v := api.Project{Name: p.Name, Parent: p.Parent, Quota: p.Quota, OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit}
		if levels, from := spec.AllowedQOS(rv.cfg.Projects, p.Name); levels != nil {
			v.QOS = levels
			if from != p.Name {
				v.QOSFrom = from
			}
		}
		if class, from := spec.MaxPriorityClass(rv.cfg.Projects, p.Name); class != "" {
			v.MaxPriorityClass = class
			if from != p.Name {
				v.MaxPriorityClassFrom = from
			}
		}
		setLoad(&v.Used, &v.QueuedJobs, &v.RunningTasks, &v.WaitingTasks, trees[p.Name])
		quotaUse(&v, rv.cfg.Pools, byPool[p.Name])
		out = append(out, v)
	}
	// Projects that live jobs name but the configuration does not (it has
	// no projects, or they were removed) are listed after, by name.
	var extra []string
	for name := range loads {
		if !seen[name] {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		l := loads[name]
		v := api.Project{Name: name}
		setLoad(&v.Used, &v.QueuedJobs, &v.RunningTasks, &v.WaitingTasks, l)
		quotaUse(&v, rv.cfg.Pools, byPool[name])
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, out)
}

// subtreeLoads adds each configured project's load to every project
// above it, so that a parent shows what its sub-projects hold and wait
// for, as its quota and limit count them (jobs run only in projects
// without sub-projects). The configuration has no parent cycles.
func subtreeLoads(projects []spec.Project, loads map[string]*load) map[string]*load {
	parent := make(map[string]string, len(projects))
	for _, p := range projects {
		parent[p.Name] = p.Parent
	}
	out := make(map[string]*load, len(projects))
	for _, p := range projects {
		l := loads[p.Name]
		if l == nil {
			continue
		}
		for name := p.Name; name != ""; name = parent[name] {
			t := out[name]
			if t == nil {
				t = &load{}
				out[name] = t
			}
			t.used += l.used
			t.queuedJobs += l.queuedJobs
			t.runningTasks += l.runningTasks
			t.waitingTasks += l.waitingTasks
		}
	}
	return out
}

func (ca *clusterAPI) handleReload(w http.ResponseWriter, r *http.Request) {
	if !ca.m.access.adminOnly(w, r, "reloading the configuration") {
		return
	}
	was := ca.m.Config()
	warnings, err := reloader{ca.m}.reloadWarned(r.Context())
	if err != nil {
		ca.fail(w, err)
		return
	}
	noteAudit(r.Context(), "%s", reloadDetail(was, ca.m.Config(), len(warnings)))
	writeJSON(w, http.StatusOK, api.Reload{Warnings: warnings, Changes: configChanges(was, ca.m.Config())})
}

// handleLive answers /livez: the process serves and its loop is not stuck.
// It never touches the store, so an orchestrator does not restart a master
// that waits for its database.
func (ca *clusterAPI) handleLive(w http.ResponseWriter, r *http.Request) {
	last := time.Unix(0, ca.m.lastLoop.Load())
	if stuck := time.Since(last); ca.m.lastLoop.Load() != 0 && stuck > liveLimit(ca.m.opt.Tick) {
		writeError(w, http.StatusServiceUnavailable, "", "the scheduling loop has not run for %s", stuck.Round(time.Second))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// liveLimit is how long the loop may go without a tick before /livez
// fails: far longer than any pass.
func liveLimit(tick time.Duration) time.Duration { return max(60*time.Second, 20*tick) }
