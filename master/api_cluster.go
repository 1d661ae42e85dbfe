package master

import (
	_ "embed"
	"net/http"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

//go:embed openapi.json
var openapiDoc []byte

func (m *Master) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openapiDoc)
}

func (m *Master) handleNodes(w http.ResponseWriter, r *http.Request) {
	m.lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.nodes))
	for name := range m.nodes {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]api.Node, 0, len(names))
	for _, name := range names {
		out = append(out, m.nodeView(m.nodes[name]))
	}
	writeJSON(w, http.StatusOK, out)
}

// load is what a pool or a project holds and waits for.
type load struct {
	used, queuedJobs, runningTasks int
}

// loads sums the live jobs' use by key (pool or project). Callers hold mu.
func (m *Master) loads(key func(*mjob) string) map[string]*load {
	out := map[string]*load{}
	for _, j := range m.jobs {
		l := out[key(j)]
		if l == nil {
			l = &load{}
			out[key(j)] = l
		}
		if !j.rec.State.Terminal() && j.count.get(store.TaskQueued) > 0 {
			l.queuedJobs++
		}
		for _, t := range j.tasks {
			if t.att == nil {
				continue
			}
			l.runningTasks++
			for _, p := range t.att.parts {
				l.used += len(p.gpus)
			}
		}
	}
	return out
}

func (m *Master) handlePools(w http.ResponseWriter, r *http.Request) {
	m.lock()
	defer m.mu.Unlock()
	loads := m.loads(func(j *mjob) string { return j.rec.Pool })
	res := m.reservations()
	out := make([]api.Pool, 0, len(m.cfg.Pools))
	for _, p := range m.cfg.Pools {
		v := api.Pool{Name: p.Name, Policy: string(p.Policy), Preemption: p.Preemption, Backfill: p.Backfill,
			Placement: string(p.Placement), GraceS: int64(m.grace(p.Name) / time.Second)}
		for _, n := range m.nodes {
			if n.pool == p.Name && n.up() {
				v.Nodes++
				v.Slots += len(n.rec.GPUs)
			}
		}
		if l := loads[p.Name]; l != nil {
			v.Used, v.QueuedJobs, v.RunningTasks = l.used, l.queuedJobs, l.runningTasks
		}
		v.Reservations = res[p.Name]
		v.BackfillWindow = m.backfillWindow(p.Name, v.Reservations)
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, out)
}

func (m *Master) handleProjects(w http.ResponseWriter, r *http.Request) {
	m.lock()
	defer m.mu.Unlock()
	loads := m.loads(func(j *mjob) string { return j.rec.Project })
	out := make([]api.Project, 0, len(m.cfg.Projects))
	seen := map[string]bool{}
	for _, p := range m.cfg.Projects {
		seen[p.Name] = true
		v := api.Project{Name: p.Name, Parent: p.Parent, Quota: p.Quota, OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit}
		if l := loads[p.Name]; l != nil {
			v.Used, v.QueuedJobs, v.RunningTasks = l.used, l.queuedJobs, l.runningTasks
		}
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
		out = append(out, api.Project{Name: name, Used: l.used, QueuedJobs: l.queuedJobs, RunningTasks: l.runningTasks})
	}
	writeJSON(w, http.StatusOK, out)
}

func (m *Master) handleReload(w http.ResponseWriter, r *http.Request) {
	if !m.access.adminOnly(w, r, "reloading the configuration") {
		return
	}
	if err := m.Reload(r.Context()); err != nil {
		m.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
