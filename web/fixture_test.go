package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// fixture is a stand-in for the master's /api/v1: canned api values, the
// few mutations the dashboard makes, a long-polled log, and switches to
// make it fail or ask for a token. It records the requests it gets.
type fixture struct {
	mu       sync.Mutex
	jobs     []*api.Job // in scheduling order
	nodes    []api.Node
	pools    []api.Pool
	projects []api.Project
	logs     map[string][]api.LogLine // "job/task" → lines
	logWake  chan struct{}            // closed and replaced on every new line
	down     bool                     // every API call answers 503
	storeOut bool                     // /readyz says the store refuses writes
	token    string                   // when set, the bearer token required
	requests []string                 // "METHOD /path?query body"
	// wouldStart, when set for a job, is its explanation's counterfactual
	// in place of the one explain makes up.
	wouldStart map[int64]*api.Counterfactual
	// privateRefs: explanations name other jobs as the master does for
	// a viewer who may not read them (api.JobRef.Private).
	privateRefs bool
	// configProjects is whoami's config_projects: the projects the
	// master's users: section limits the user's submissions to.
	configProjects []string
	// who, when set, is whoami's user and roles; by default ann, the
	// lead of the fixture's projects, who may act on every job.
	who *api.Whoami
	// metrics, when set for a job, is its GET /jobs/{id}/metrics in
	// place of fixtureMetrics'.
	metrics map[int64]api.JobMetrics
	// factors, when set for a job, is its explanation's multifactor
	// breakdown.
	factors map[int64]*api.Factors
	// fairNote is each explanation's fair_share_note (rank and decay).
	fairNote string
}

// now anchors the fixture's times, so relative times in the page are
// sensible without depending on when the test runs.
var now = time.Now().UTC().Truncate(time.Second)

func at(d time.Duration) time.Time { return now.Add(d) }

func atp(d time.Duration) *time.Time { t := at(d); return &t }

func intp(v int) *int { return &v }

// newFixture builds a small cluster: pool a100 (priority, preemption,
// backfill) with two 8-GPU nodes, pool t4 whose only node is lost, two
// running jobs (one with a preempted attempt), a queue of three jobs
// explained by reserved/would_delay/behind, and a finished job.
func newFixture() *fixture {
	f := &fixture{logs: map[string][]api.LogLine{}, logWake: make(chan struct{})}
	f.pools = []api.Pool{
		{Name: "a100", Policy: "priority", Preemption: true, Backfill: true, Placement: "pack", GraceS: 60,
			Nodes: 2, Slots: 16, Used: 12, QueuedJobs: 3, RunningTasks: 3,
			Reservations:   []api.Reservation{{Job: 3, Start: at(40 * time.Minute), Slots: 8}},
			BackfillWindow: &api.BackfillWindow{Slots: 4, Seconds: 2400, Until: atp(40 * time.Minute)}},
		{Name: "t4", Policy: "fair_share", Nodes: 1, Slots: 4, Used: 0, QueuedJobs: 1, BackfillWindow: &api.BackfillWindow{}},
	}
	f.nodes = []api.Node{
		node("gpu-a1", "a100", "up", "A100", 8, 8, 2*time.Second),
		node("gpu-a2", "a100", "up", "A100", 8, 4, 1*time.Second),
		node("t4-1", "t4", "lost", "T4", 4, 0, 5*time.Minute),
	}
	f.nodes[1].Drain, f.nodes[1].DrainReason, f.nodes[1].DrainedBy, f.nodes[1].DrainedAt = "draining", "new PSU", "root", atp(-10*time.Minute)
	// gpu-a2's node rule pins its pool and sets switch over its agent's
	// and tier.
	f.nodes[1].PoolByRule, f.nodes[1].RuleLabels = true, map[string]string{"switch": "leaf-9", "tier": "a"}
	f.nodes[1].AgentPool = "t4"
	// t4-1's agent asked for a pool the configuration lacks.
	f.nodes[2].AgentPool, f.nodes[2].PoolNote = "v100", `its agent asked for pool "v100", which the configuration does not have`
	f.nodes[1].AgentLabels = map[string]string{"rack": "r1", "zone": "eu-1", "switch": "leaf-3"}
	f.nodes[1].Labels = map[string]string{"rack": "r1", "zone": "eu-1", "switch": "leaf-9", "tier": "a"}
	f.projects = []api.Project{
		// h100 is a quota pool that the pool list leaves out; the rest of
		// the use is in pools without quota.
		{Name: "research", Quota: 16, OverQuotaWeight: 1, Used: 12, QueuedJobs: 3, RunningTasks: 3,
			UsedInQuotaPools: 10, QuotaPools: []api.ProjectPoolUse{{Pool: "h100", Used: 10}}},
		{Name: "vision", Parent: "research", Quota: 4, OverQuotaWeight: 1, Limit: 12, Used: 8, QueuedJobs: 1, RunningTasks: 2,
			UsedInQuotaPools: 6, QuotaPools: []api.ProjectPoolUse{{Pool: "h100", Used: 6}}, OverQuota: 2},
		{Name: "nlp", Parent: "research", Quota: 12, OverQuotaWeight: 2, Used: 4, QueuedJobs: 2, RunningTasks: 1,
			UsedInQuotaPools: 4, QuotaPools: []api.ProjectPoolUse{{Pool: "h100", Used: 4}}},
	}
	f.jobs = []*api.Job{
		job(1, "resnet-sweep", "running", "vision", "a100", 4, 2, 2, 30, []api.Task{
			{Index: 0, State: "running", Attempts: []api.Attempt{
				attempt(1, "gpu-a1", []int{0, 1, 2, 3}, -50*time.Minute, "", nil),
			}},
			{Index: 1, State: "running", Restarts: 1, Attempts: []api.Attempt{
				attempt(1, "gpu-a2", []int{0, 1, 2, 3}, -50*time.Minute, "preempted", intp(143)),
				attempt(2, "gpu-a1", []int{4, 5, 6, 7}, -10*time.Minute, "", nil),
			}},
		}),
		job(2, "bert-finetune", "running", "nlp", "a100", 4, 1, 1, 20, []api.Task{
			{Index: 0, State: "running", Attempts: []api.Attempt{
				attempt(1, "gpu-a2", []int{0, 1, 2, 3}, -20*time.Minute, "", nil),
			}},
		}),
		queued(3, "llama-pretrain", "nlp", 8, 1, &api.Pending{Reason: "reserved",
			Message: "head of the queue, needs 8 slots; reserved to start when job 2 ends", EstimatedStart: atp(40 * time.Minute)}),
		queued(4, "notebook-alice", "vision", 2, 2, &api.Pending{Reason: "would_delay", BlockedBy: 3,
			Message: "fits now but would delay the reservation of job 3"}),
		queued(5, "eval-small", "nlp", 4, 3, &api.Pending{Reason: "behind", BlockedBy: 3,
			Message:        "queued behind job 3, which is blocked and may not be passed",
			EstimatedStart: atp(2 * time.Hour), EstimatedStartEarliest: atp(time.Hour), EstimateBasis: "forecast"}),
		job(6, "old-run", "completed", "vision", "a100", 1, 1, 0, 42, []api.Task{
			{Index: 0, State: "completed", Attempts: []api.Attempt{
				attempt(1, "gpu-a1", []int{0}, -3*time.Hour, "completed", intp(0)),
			}},
		}),
		queued(7, "t4-smoke", "vision", 1, 1, &api.Pending{Reason: "no_nodes",
			Message: "no node in the pool can hold a task of 1 slots with its constraints"}),
	}
	f.jobs[6].Pool = "t4"
	f.jobs[5].EndedAt = atp(-2 * time.Hour)
	f.addLog(1, 0, "stdout", "epoch 1 loss 0.93")
	f.addLog(1, 0, "stderr", "warning: learning rate warmup")
	f.addLog(1, 0, "stdout", "epoch 2 loss 0.71")
	return f
}

func node(name, pool, state, gpuType string, gpus, used int, sinceBeat time.Duration) api.Node {
	n := api.Node{Name: name, Pool: pool, State: state, GPUType: gpuType, Slots: gpus, Used: used,
		Labels: map[string]string{"rack": "r1", "zone": "eu-1"}, RegisteredAt: at(-24 * time.Hour), HeartbeatAt: time.Now().UTC().Add(-sinceBeat)}
	for i := range used {
		n.UsedGPUs = append(n.UsedGPUs, i) // the jobs' placements take the lowest GPUs
	}
	for i := range gpus {
		n.GPUs = append(n.GPUs, api.GPU{Index: i, UUID: fmt.Sprintf("GPU-%s-%d", name, i), Name: "NVIDIA " + gpuType,
			Type: gpuType, MemoryMiB: 81920})
	}
	return n
}

func job(id int64, name, state, project, pool string, slots, tasks, running, prio int, list []api.Task) *api.Job {
	return &api.Job{ID: id, Name: name, Kind: "experiment", State: state, Project: project, User: "alice", Pool: pool,
		Slots: slots, Tasks: tasks, Running: running, Priority: prio, Weight: 1, Preemptible: true,
		Entrypoint: "python train.py", Environment: map[string]string{"EPOCHS": "10"},
		SubmittedAt: at(-time.Hour), TaskList: list}
}

func queued(id int64, name, project string, slots, position int, p *api.Pending) *api.Job {
	j := job(id, name, "queued", project, "a100", slots, 1, 0, 42, []api.Task{{Index: 0, State: "queued", Attempts: []api.Attempt{}}})
	j.Position = position
	j.Pending = p
	return j
}

func attempt(n int, node string, gpus []int, started time.Duration, end string, exit *int) api.Attempt {
	a := api.Attempt{Number: n, Placement: []api.Placement{{Node: node, GPUs: gpus}}, StartedAt: at(started),
		RunningAt: atp(started + 5*time.Second), EndState: end, ExitCode: exit}
	if end != "" {
		a.EndedAt = atp(started + 20*time.Minute)
		if end == "preempted" {
			a.Reason = "preempted for job 2 (priority 20)"
		}
	}
	return a
}

// addLog appends a line to a task's log and wakes the followers.
func (f *fixture) addLog(jobID int64, task int, stream, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := fmt.Sprintf("%d/%d", jobID, task)
	f.logs[key] = append(f.logs[key], api.LogLine{Task: task, Attempt: 1, Seq: int64(len(f.logs[key]) + 1),
		Time: time.Now().UTC(), Stream: stream, Text: text})
	close(f.logWake)
	f.logWake = make(chan struct{})
}

func (f *fixture) setStoreOut(out bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storeOut = out
}

// readyz answers as the master's /readyz does for a JSON client.
func (f *fixture) readyz(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	out := f.storeOut
	f.mu.Unlock()
	if out {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false,
			"store": map[string]any{"up": false, "since": at(-time.Minute), "error": "connection refused"}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ready": true, "store": map[string]any{"up": true}})
}

func (f *fixture) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// seen returns the recorded requests that start with prefix.
func (f *fixture) seen(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// serve starts a server with the dashboard at / and the fixture at /api/v1.
func (f *fixture) serve(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", Handler())
	mux.HandleFunc("GET /readyz", f.readyz)
	mux.HandleFunc("GET /api/v1/jobs", f.listJobs)
	mux.HandleFunc("GET /api/v1/jobs/{id}", f.getJob)
	mux.HandleFunc("GET /api/v1/jobs/{id}/explain", f.explain)
	mux.HandleFunc("PATCH /api/v1/jobs/{id}", f.patchJob)
	mux.HandleFunc("POST /api/v1/jobs/{id}/kill", f.killJob)
	mux.HandleFunc("POST /api/v1/jobs/{id}/requeue", f.requeueJob)
	mux.HandleFunc("POST /api/v1/jobs/{id}/hold", f.holdJob)
	mux.HandleFunc("POST /api/v1/jobs/{id}/release", f.releaseJob)
	mux.HandleFunc("GET /api/v1/jobs/{id}/logs", f.jobLogs)
	mux.HandleFunc("GET /api/v1/jobs/{id}/metrics", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		f.mu.Lock()
		m, ok := f.metrics[id]
		f.mu.Unlock()
		if !ok {
			m = fixtureMetrics(id)
		}
		f.reply(w, 200, m)
	})
	mux.HandleFunc("GET /api/v1/nodes", func(w http.ResponseWriter, r *http.Request) { f.reply(w, 200, f.nodes) })
	mux.HandleFunc("GET /api/v1/pools", func(w http.ResponseWriter, r *http.Request) { f.reply(w, 200, f.pools) })
	mux.HandleFunc("GET /api/v1/projects", func(w http.ResponseWriter, r *http.Request) { f.reply(w, 200, f.projects) })
	mux.HandleFunc("GET /api/v1/usage", func(w http.ResponseWriter, r *http.Request) {
		by := r.URL.Query().Get("by")
		rows := []api.UsageRow{{Project: "vision", GPUHours: 30, Jobs: 4, Attempts: 5}, {Project: "nlp", GPUHours: 10, Jobs: 2, Attempts: 2}}
		if by == "user" {
			rows = []api.UsageRow{{User: "ann", GPUHours: 25, Jobs: 3, Attempts: 3}, {User: "bo", GPUHours: 15, Jobs: 3, Attempts: 4}}
		}
		// The window as the master reads it (api.ParseWhen), so that a
		// page's since and until show in its answer or its refusal.
		since, until := at(-7*24*time.Hour), now
		for _, p := range []struct {
			name string
			to   *time.Time
		}{{"until", &until}, {"since", &since}} {
			if v := r.URL.Query().Get(p.name); v != "" {
				t, err := api.ParseWhen(v, now)
				if err != nil {
					writeJSON(w, http.StatusBadRequest, api.Error{Error: fmt.Sprintf("%s %q: %v", p.name, v, err), Field: p.name})
					return
				}
				*p.to = t
			}
		}
		f.reply(w, 200, api.Usage{Since: since, Until: until, By: by, Rows: rows, TotalGPUHours: 40,
			Shares: []api.Share{{Account: "research", RawShares: 1, NormShares: 1, EffectiveUsage: 0.4},
				{Account: "research/ann", RawShares: 1, NormShares: 1, EffectiveUsage: 0.4, FairShare: new(0.6), Rank: 2, Users: 3}},
			Decay: "usage halves every 168h, applied at each 24h period's end, next in 2h 52m"})
	})
	mux.HandleFunc("GET /api/v1/fairness", func(w http.ResponseWriter, r *http.Request) {
		// A cluster two days old: the window is measured from its start.
		started := at(-48 * time.Hour)
		f.reply(w, 200, api.Fairness{Since: at(-7 * 24 * time.Hour), Until: now, MeasuredSince: &started, CapacityGPUHours: 768, Projects: []api.FairnessRow{
			{Project: "research", Entitled: 1, Got: 0.45, GPUHours: 1209.6, Jobs: 9, Waited: 3, MeanWaitS: 1800, MaxWaitS: 5400},
			{Project: "nlp", Parent: "research", Entitled: 0.75, Got: 0.1, GPUHours: 268.8, Jobs: 3, Waited: 3, MeanWaitS: 1800, MaxWaitS: 5400,
				Deprived: true, Note: "got 10.0% of the cluster against an entitlement of 75.0% while 3 jobs waited (mean 30m, longest 1h 30m)"},
			{Project: "sandbox", Entitled: 0.1, Jobs: 1, Waited: 1, MeanWaitS: 1080, MaxWaitS: 1080, NoNode: 1, NoNodePools: []string{"batch"},
				Note: "1 job waits in pool batch, which has no node up: no share of the cluster could serve it, so its wait is not counted as deprivation"},
		}})
	})
	mux.HandleFunc("GET /api/v1/whoami", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		who := api.Whoami{User: "ann", Roles: map[string]string{"vision": "lead", "nlp": "lead"}}
		if f.who != nil {
			who = *f.who
		}
		who.ConfigProjects = f.configProjects
		f.mu.Unlock()
		f.reply(w, 200, who)
	})
	srv := httptest.NewServer(f.gate(mux))
	t.Cleanup(srv.Close)
	return srv
}

// gate records API requests and applies the down and token switches.
func (f *fixture) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, api.Version+"/") {
			next.ServeHTTP(w, r)
			return
		}
		var body bytes.Buffer
		if r.Body != nil {
			_, _ = body.ReadFrom(http.MaxBytesReader(w, r.Body, api.MaxBodyBytes))
			r.Body.Close()
		}
		r.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
		f.mu.Lock()
		line := r.Method + " " + strings.TrimPrefix(r.URL.Path, api.Version)
		if r.URL.RawQuery != "" {
			line += "?" + r.URL.RawQuery
		}
		if body.Len() > 0 {
			line += " " + body.String()
		}
		f.requests = append(f.requests, line)
		down, token := f.down, f.token
		f.mu.Unlock()
		switch {
		case down:
			writeJSON(w, http.StatusServiceUnavailable, api.Error{Error: "the store is unavailable"})
		case token != "" && r.Header.Get("Authorization") == "":
			// The master's words, which speak to curl users.
			writeJSON(w, http.StatusUnauthorized, api.Error{Error: "authentication required: send an API token as 'Authorization: Bearer TOKEN' (see allot login)"})
		case token != "" && r.Header.Get("Authorization") != "Bearer "+token:
			writeJSON(w, http.StatusUnauthorized, api.Error{Error: "invalid API token: the token is not known"})
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func (f *fixture) reply(w http.ResponseWriter, status int, v any) {
	f.mu.Lock()
	b, err := json.Marshal(v)
	f.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fixture) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// As the master: state=all is no filter, an unknown state a 400.
	if q.Get("state") == "all" {
		q.Del("state")
	}
	for _, s := range strings.Split(q.Get("state"), ",") {
		if s != "" && !slices.Contains([]string{"queued", "held", "running", "killing", "completed", "failed", "killed"}, s) {
			writeJSON(w, http.StatusBadRequest, api.Error{Error: fmt.Sprintf("state %q: expected one of queued, held, running, killing, "+
				"completed, failed, killed, or several separated by commas", s)})
			return
		}
	}
	f.mu.Lock()
	out := []api.Job{}
	projects := []string{q.Get("project")}
	if q.Get("subprojects") == "true" {
		projects = f.subtree(q.Get("project"))
	}
	for _, j := range f.jobs {
		// As the master, state=killing selects the jobs still ending,
		// state=held the queued jobs held.
		inState := matchAny(q.Get("state"), j.State) || (j.Ending && q.Get("state") != "" && matchAny(q.Get("state"), "killing")) ||
			(j.Held != nil && j.State == "queued" && q.Get("state") != "" && matchAny(q.Get("state"), "held"))
		if inState && match(q.Get("pool"), j.Pool) &&
			(projects[0] == "" || slices.Contains(projects, j.Project)) && match(q.Get("user"), j.User) {
			c := *j
			c.TaskList = nil
			out = append(out, c)
		}
	}
	f.mu.Unlock()
	if !q.Has("limit") && !q.Has("cursor") {
		f.reply(w, http.StatusOK, out)
		return
	}
	// Pages newest first, a cursor being the last id listed.
	slices.SortFunc(out, func(a, b api.Job) int { return int(b.ID - a.ID) })
	limit, _ := strconv.Atoi(q.Get("limit"))
	cursor, _ := strconv.ParseInt(q.Get("cursor"), 10, 64)
	page := api.JobPage{Jobs: []api.Job{}}
	for _, j := range out {
		if (cursor == 0 || j.ID < cursor) && len(page.Jobs) < limit {
			page.Jobs = append(page.Jobs, j)
		}
	}
	if n := len(page.Jobs); n == limit && n > 0 {
		page.Next = strconv.FormatInt(page.Jobs[n-1].ID, 10)
	}
	f.reply(w, http.StatusOK, page)
}

func match(want, have string) bool { return want == "" || want == have }

// subtree is project and the projects under it, as the master's
// subprojects=true selects them. Callers hold mu.
func (f *fixture) subtree(project string) []string {
	out := []string{project}
	for grew := true; grew; {
		grew = false
		for _, p := range f.projects {
			if p.Parent != "" && slices.Contains(out, p.Parent) && !slices.Contains(out, p.Name) {
				out, grew = append(out, p.Name), true
			}
		}
	}
	return out
}

// matchAny matches one of several values separated by commas.
func matchAny(want, have string) bool {
	return want == "" || slices.Contains(strings.Split(want, ","), have)
}

// find returns the job named by the path, or answers 404 and nil.
func (f *fixture) find(w http.ResponseWriter, r *http.Request) *api.Job {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, api.Error{Error: "job id " + strconv.Quote(r.PathValue("id")) + " is not a number"})
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, j := range f.jobs {
		if j.ID == id {
			return j
		}
	}
	writeJSON(w, http.StatusNotFound, api.Error{Error: fmt.Sprintf("job %d does not exist", id)})
	return nil
}

// explain answers as the master would for the fixture's queue: job 3
// waits for job 2 to end, job 7 for its pool's drained node.
func (f *fixture) explain(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	x := api.Explanation{Job: id, State: "queued", Pool: "a100", Policy: "priority", AsOf: now,
		Summary:    "It is waiting in pool a100, which orders its queue by priority (the lower number first), then by submission.",
		WouldStart: &api.Counterfactual{Nodes: []string{"gpu-a1"}, Message: "The 8 slots it needs are free now on gpu-a1: it would start at once if nothing ranked before it and no rule held it back."}}
	if id == 3 {
		x.WouldStart = &api.Counterfactual{Nodes: []string{"gpu-a2"},
			MustEnd: []api.JobRef{{ID: 2, Name: "bert-finetune", User: "bo", Slots: 4, EndsAt: atp(40 * time.Minute)}},
			Message: "It could start on gpu-a2 once job 2 ends or is preempted."}
		if f.privateRefs {
			x.WouldStart.MustEnd[0].Name, x.WouldStart.MustEnd[0].User, x.WouldStart.MustEnd[0].Private = "", "", true
		}
	}
	if id == 7 {
		// Only drained nodes could hold it: no node, no job to name.
		x.Pool = "t4"
		x.WouldStart = &api.Counterfactual{Message: "It cannot start on the nodes up now: the pool's node gpu-t1 is drained; it waits for a resume (allot node resume) or another node."}
	}
	f.mu.Lock()
	if cf, ok := f.wouldStart[id]; ok {
		x.WouldStart = cf
	}
	x.Factors = f.factors[id]
	x.FairShareNote = f.fairNote
	f.mu.Unlock()
	f.reply(w, 200, x)
}

func (f *fixture) getJob(w http.ResponseWriter, r *http.Request) {
	if j := f.find(w, r); j != nil {
		f.reply(w, http.StatusOK, j)
	}
}

func (f *fixture) killJob(w http.ResponseWriter, r *http.Request) {
	j := f.find(w, r)
	if j == nil {
		return
	}
	f.mu.Lock()
	ended := j.State == "completed" || j.State == "failed" || j.State == "killed"
	if !ended {
		j.State, j.Running, j.Position, j.Pending, j.EndedAt = "killed", 0, 0, nil, atp(0)
	}
	f.mu.Unlock()
	if ended {
		writeJSON(w, http.StatusConflict, api.Error{Error: fmt.Sprintf("job %d has already ended", j.ID)})
		return
	}
	f.reply(w, http.StatusOK, j)
}

// patchJob refuses priority 1, as a master with roles refuses a user.
func (f *fixture) patchJob(w http.ResponseWriter, r *http.Request) {
	j := f.find(w, r)
	if j == nil {
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var u api.JobUpdate
	if err := dec.Decode(&u); err != nil {
		writeJSON(w, http.StatusBadRequest, api.Error{Error: "bad job update: " + err.Error()})
		return
	}
	if u.Priority != nil && *u.Priority == 1 {
		writeJSON(w, http.StatusForbidden, api.Error{Error: "priority 1 is reserved for administrators", Field: "priority"})
		return
	}
	f.mu.Lock()
	if u.Priority != nil {
		j.Priority = *u.Priority
	}
	if u.QOS != nil {
		j.QOS = *u.QOS
	}
	if u.Nice != nil {
		j.Nice = *u.Nice
	}
	f.mu.Unlock()
	f.reply(w, http.StatusOK, j)
}

// jobLogs answers with the lines after the cursor, holding the request up
// to ?wait seconds while there are none.
func (f *fixture) jobLogs(w http.ResponseWriter, r *http.Request) {
	j := f.find(w, r)
	if j == nil {
		return
	}
	q := r.URL.Query()
	after, _ := strconv.Atoi(q.Get("after"))
	wait, _ := strconv.Atoi(q.Get("wait"))
	key := fmt.Sprintf("%d/%s", j.ID, q.Get("task"))
	deadline := time.NewTimer(time.Duration(wait) * time.Second)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		lines := f.logs[key]
		wake := f.logWake
		done := j.State == "completed" || j.State == "failed" || j.State == "killed"
		f.mu.Unlock()
		if after > len(lines) {
			after = len(lines)
		}
		if len(lines) > after || wait == 0 || done {
			f.reply(w, http.StatusOK, api.Logs{Lines: append([]api.LogLine{}, lines[after:]...),
				Next: strconv.Itoa(len(lines)), Done: done})
			return
		}
		select {
		case <-wake:
		case <-deadline.C:
			wait = 0
		case <-r.Context().Done():
			return
		}
	}
}

// fixtureMetrics gives job 1 an ASHA search of two trials, trial 1
// stopped at step 3; the other jobs have no reports.
func fixtureMetrics(id int64) api.JobMetrics {
	m := api.JobMetrics{JobID: id, SmallerIsBetter: true, Points: []api.MetricPoint{}}
	if id != 1 {
		return m
	}
	m.Metric, m.Searcher = "loss", "asha"
	for _, p := range []struct {
		task int
		step int64
		loss float64
	}{{0, 1, 0.9}, {1, 1, 1.4}, {0, 3, 0.5}, {1, 3, 1.3}, {0, 9, 0.2}} {
		m.Points = append(m.Points, api.MetricPoint{Task: p.task, Attempt: 1, Step: p.step, Time: at(0),
			Metrics: map[string]float64{"loss": p.loss}})
	}
	m.Rungs = [][]int64{{1, 3, 9}}
	join := func(rung int, decision string) api.RungJoin { return api.RungJoin{Rung: rung, Decision: decision} }
	m.ReportedMetrics, m.MetricReports = []string{"loss"}, 5
	m.Trials = []api.TrialMetrics{{Task: 0, State: "running", Decision: "continue", Best: new(0.2), BestStep: new(int64(9)),
		Latest: new(0.2), LatestStep: new(int64(9)), Bracket: new(0), Rung: new(2), DecisionNote: "promoted at rungs 0-1 as the first to arrive",
		RungJoins: []api.RungJoin{join(0, "promoted"), join(1, "promoted")}},
		{Task: 1, State: "completed", Decision: "stopped", Best: new(1.3), BestStep: new(int64(3)), Bracket: new(0), Rung: new(1),
			DecisionNote: "at rung 1, not in the top 1/3", RungJoins: []api.RungJoin{join(0, "promoted"), join(1, "stopped")}}}
	return m
}
