package cli

import (
	"bytes"
	"encoding/json"
	"errors"
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
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/yamlfield"
)

// fakeMaster serves the user endpoints of api/doc.go from canned api
// objects, so that the client commands can be tested before the real
// master exists. It applies submissions, kills and updates to its jobs,
// and serves each job's log in pages of logPage lines, with a cursor
// "L<n>" after line n.
type fakeMaster struct {
	mu       sync.Mutex
	jobs     []api.Job
	nodes    []api.Node
	pools    []api.Pool
	projects []api.Project
	logs     map[int64][]api.LogLine
	// ended says after how many log requests a job counts as ended; a
	// follower then gets Done once it has every line.
	ended    map[int64]int
	logPage  int
	requests []string // "METHOD PATH?QUERY" of every request
	bodies   []string
	reloads  int
	// reloadWarnings, when set, are the reload's reply; nil answers 204
	// with no body, as a master before api.Reload did.
	reloadWarnings []string
	// reloadChanges are the reload's changes, with reloadWarnings.
	reloadChanges []string
	// decisions is GET /history/decisions's answer.
	decisions api.DecisionLog
	// who is GET /whoami's answer; nil: 404, as from a master without it.
	who *api.Whoami
	// forbidden are jobs the caller may not read: their IDs answer 403
	// with the message, and no list shows them.
	forbidden map[int64]string
	srv       *httptest.Server
}

// t0 is the time of the fixtures' events.
var t0 = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// newFakeMaster starts a fake master with a small cluster: a queue of
// three live jobs and one ended one, two nodes, two pools, three projects.
func newFakeMaster(t *testing.T) *fakeMaster {
	t.Helper()
	f := &fakeMaster{
		jobs: fixtureJobs(),
		nodes: []api.Node{
			{Name: "dgx-1", Pool: "research", State: "up", GPUType: "h100", Slots: 8, Used: 8, Labels: map[string]string{"rack": "r1", "switch": "s1"},
				HeartbeatAt: t0.Add(-5 * time.Second), RegisteredAt: t0.Add(-time.Hour), Version: "v1.2.0",
				PoolByRule: true, AgentPool: "batch", RuleLabels: map[string]string{"switch": "s1"}},
			{Name: "dgx-2", Pool: "research", State: "lost", GPUType: "h100", Slots: 8, Used: 0, HeartbeatAt: t0.Add(-3 * time.Hour),
				Drain: "drained", DrainReason: "bad fan", DrainedBy: "root", DrainedAt: ptr(t0.Add(-2 * time.Hour))},
		},
		pools: []api.Pool{
			{Name: "research", Policy: "priority", Preemption: true, Backfill: true, Placement: "binpack", GraceS: 120,
				Nodes: 2, Slots: 16, Used: 8, QueuedJobs: 1, RunningTasks: 2,
				Reservations:   []api.Reservation{{Job: 5, Start: t0.Add(40 * time.Minute), Slots: 8}},
				BackfillWindow: &api.BackfillWindow{Slots: 2, Seconds: 2400, Until: ptr(t0.Add(40 * time.Minute))}},
			{Name: "batch", Policy: "fifo", GraceS: 30, QueuedJobs: 1, BackfillWindow: &api.BackfillWindow{}},
		},
		projects: []api.Project{
			{Name: "ml", Quota: 24, OverQuotaWeight: 1, Limit: 40, Used: 8, QueuedJobs: 2, RunningTasks: 2},
			{Name: "vision", Parent: "ml", Quota: 16, OverQuotaWeight: 2, Used: 8, QueuedJobs: 1, RunningTasks: 2},
			{Name: "nlp", Parent: "ml", Quota: 8, OverQuotaWeight: 1, QueuedJobs: 1},
		},
		logs: map[int64][]api.LogLine{
			3: {
				{Task: 0, Attempt: 1, Seq: 1, Time: t0, Stream: "stdout", Text: "epoch 1"},
				{Task: 1, Attempt: 1, Seq: 1, Time: t0, Stream: "stderr", Text: "warning: slow disk"},
				{Task: 0, Attempt: 2, Seq: 2, Time: t0, Stream: "stdout", Text: "resumed from checkpoint"},
			},
		},
		ended:   map[int64]int{},
		logPage: 2,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/jobs", f.submit)
	mux.HandleFunc("GET /api/v1/jobs", f.list)
	mux.HandleFunc("GET /api/v1/jobs/{id}", f.withJob(func(j *api.Job, _ *http.Request) (any, int) { return *j, 200 }))
	mux.HandleFunc("PATCH /api/v1/jobs/{id}", f.withJob(f.update))
	mux.HandleFunc("POST /api/v1/jobs/{id}/kill", f.withJob(func(j *api.Job, _ *http.Request) (any, int) {
		if j.State == "completed" || j.State == "failed" || j.State == "killed" {
			return api.KillReply{Job: *j, AlreadyEnded: true}, 200
		}
		j.State = "killed"
		return api.KillReply{Job: *j}, 200
	}))
	mux.HandleFunc("POST /api/v1/jobs/kill", f.killJobs)
	mux.HandleFunc("POST /api/v1/jobs/{id}/hold", f.withJob(f.holdOne(true))) // jobhold_test.go
	mux.HandleFunc("POST /api/v1/jobs/{id}/release", f.withJob(f.holdOne(false)))
	mux.HandleFunc("POST /api/v1/jobs/{id}/requeue", f.withJob(f.requeueOne)) // jobrequeue_test.go
	mux.HandleFunc("POST /api/v1/jobs/requeue", f.requeueJobs)
	mux.HandleFunc("POST /api/v1/jobs/hold", f.holdJobs(true))
	mux.HandleFunc("POST /api/v1/jobs/release", f.holdJobs(false))
	mux.HandleFunc("POST /api/v1/tokens", func(w http.ResponseWriter, r *http.Request) {
		var nt api.NewToken
		if err := json.NewDecoder(r.Body).Decode(&nt); err != nil {
			reply(w, 400, api.Error{Error: err.Error()})
			return
		}
		reply(w, 201, api.CreatedToken{Token: api.Token{ID: 9, Kind: nt.Kind, Subject: nt.User}, Secret: "allot_secret"})
	})
	mux.HandleFunc("GET /api/v1/jobs/{id}/logs", f.withJob(f.logsPage))
	mux.HandleFunc("GET /api/v1/jobs/{id}/events", f.withJob(fakeJobEvents)) // jobevents_test.go
	mux.HandleFunc("GET /api/v1/jobs/{id}/metrics", f.withJob(func(j *api.Job, _ *http.Request) (any, int) {
		return fixtureMetrics(j.ID), 200
	}))
	mux.HandleFunc("GET /api/v1/nodes", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, f.nodes) })
	mux.HandleFunc("POST /api/v1/nodes/{name}/drain", f.withNode(func(n *api.Node, r *http.Request) (any, int) {
		var req api.NodeDrainRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Reason == "" {
			return api.Error{Error: "reason is empty", Field: "reason"}, 400
		}
		n.Drain, n.DrainReason, n.DrainedBy, n.DrainedAt = "draining", req.Reason, "root", ptr(t0)
		if n.Used == 0 {
			n.Drain = "drained"
		}
		return *n, 200
	}))
	mux.HandleFunc("POST /api/v1/nodes/{name}/resume", f.withNode(func(n *api.Node, _ *http.Request) (any, int) {
		n.Drain, n.DrainReason, n.DrainedBy, n.DrainedAt = "", "", "", nil
		return *n, 200
	}))
	mux.HandleFunc("DELETE /api/v1/nodes/{name}", f.withNode(func(n *api.Node, r *http.Request) (any, int) {
		if n.Used > 0 {
			return api.Error{Error: "node " + n.Name + " runs 2 tasks (3/0, 3/1)", Field: "name"}, 409
		}
		if r.URL.Query().Get("revoke") == "true" {
			return api.DeletedNode{Name: n.Name, Revoked: []int64{11},
				Note: "Revoked its credential (token 11): should its agent start again, it is refused."}, 200
		}
		return nil, 204 // as a master from before DeletedNode answers
	}))
	mux.HandleFunc("GET /api/v1/pools", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, f.pools) })
	mux.HandleFunc("GET /api/v1/audit", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 200, []api.AuditEntry{{Seq: 7, Actor: "user:root", Action: "POST /api/v1/jobs", Target: "job 12", Status: 201}})
	})
	mux.HandleFunc("GET /api/v1/projects", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, f.projects) })
	mux.HandleFunc("GET /api/v1/usage", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, fixtureUsage()) })
	mux.HandleFunc("GET /api/v1/jobs/{id}/explain", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, fixtureExplanation()) })
	mux.HandleFunc("GET /api/v1/fairness", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, fixtureFairness()) })
	mux.HandleFunc("GET /api/v1/priorities", fakePriorities) // priorities_test.go
	mux.HandleFunc("GET /api/v1/history/scenario", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		io.WriteString(w, "# Exported by a fake master.\n# Note: job 3 (j3-live) was still running when exported\n"+
			"pools:\n  - {name: default, policy: fifo, nodes: [{name: n1, slots: 2}]}\n"+
			"jobs:\n  - {name: j1-big, submit: 0, slots: 2, duration: 3600}\n  - {name: j2-small, submit: 600, slots: 1, duration: 1800}\n")
	})
	mux.HandleFunc("GET /api/v1/history/decisions", func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, f.decisions) })
	mux.HandleFunc("GET /api/v1/history", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("limit") {
			reply(w, 200, api.HistoryPage{Jobs: fixtureHistory()})
			return
		}
		reply(w, 200, fixtureHistory())
	})
	mux.HandleFunc("GET /api/v1/whoami", func(w http.ResponseWriter, _ *http.Request) {
		if f.who == nil {
			reply(w, 404, api.Error{Error: "not found"})
			return
		}
		reply(w, 200, *f.who)
	})
	mux.HandleFunc("POST /api/v1/config/reload", func(w http.ResponseWriter, _ *http.Request) {
		f.reloads++
		if f.reloadWarnings == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		reply(w, 200, api.Reload{Warnings: f.reloadWarnings, Changes: f.reloadChanges})
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		data, _ := io.ReadAll(r.Body)
		f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
		f.bodies = append(f.bodies, string(data))
		r.Body = io.NopCloser(bytes.NewReader(data))
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// fixtureJobs is the fake master's queue: a running gang experiment with a
// preempted attempt, two waiting jobs and one completed job.
func fixtureJobs() []api.Job {
	return []api.Job{
		{ID: 3, Name: "llm-pretrain", Kind: "experiment", State: "running", Project: "vision", User: "ana", Pool: "research",
			Slots: 8, Tasks: 2, Running: 2, Priority: 20, PriorityClass: "HIGH", Weight: 1, Preemptible: true,
			Entrypoint: "python train.py", SubmittedAt: t0,
			TaskList: []api.Task{
				{Index: 0, State: "running", Restarts: 1, Attempts: []api.Attempt{
					{Number: 1, Placement: []api.Placement{{Node: "dgx-1", GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}}}, StartedAt: t0,
						EndedAt: ptr(t0.Add(time.Hour)), EndState: "preempted", ExitCode: ptr(143), Reason: "preempted for job 5"},
					{Number: 2, Placement: []api.Placement{{Node: "dgx-2", GPUs: []int{0, 1, 2, 3, 5, 6, 7, 4}}}, StartedAt: t0.Add(61 * time.Minute)},
				}},
				{Index: 1, State: "running", Attempts: []api.Attempt{
					{Number: 1, Placement: []api.Placement{{Node: "dgx-1", GPUs: []int{0, 1, 2, 3}}, {Node: "dgx-2", GPUs: []int{8, 10}}}, StartedAt: t0},
				}},
			}},
		{ID: 5, Name: "asha", Kind: "experiment", State: "queued", Project: "nlp", User: "bo", Pool: "research",
			Slots: 1, Tasks: 20, Running: 4, Priority: 42, Weight: 2.5, Preemptible: true, Entrypoint: "python asha.py",
			SubmittedAt: t0.Add(time.Minute), Position: 1,
			Pending: &api.Pending{Reason: "no_capacity", Message: "needs 1 slot, 0 free", BlockedBy: 3, EstimatedStart: ptr(t0.Add(2 * time.Hour)),
				EstimatedStartEarliest: ptr(t0.Add(time.Hour)), EstimateBasis: "forecast"}},
		{ID: 6, Name: "notebook", Kind: "notebook", State: "queued", Project: "vision", User: "ana", Pool: "batch",
			Slots: 1, Tasks: 1, Priority: 30, Weight: 1, SubmittedAt: t0.Add(2 * time.Minute), Position: 2,
			Pending: &api.Pending{Reason: "behind", Message: "behind job 5"}},
		{ID: 2, Name: "old-eval", Kind: "command", State: "completed", Project: "nlp", User: "bo", Pool: "batch",
			Slots: 2, Tasks: 1, Priority: 42, Weight: 1, SubmittedAt: t0.Add(-time.Hour), EndedAt: ptr(t0)},
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// submit validates the spec as the real master will, with jobfile, and
// answers the first error's field and message.
func (f *fakeMaster) submit(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	job, err := jobfile.ParseJSON("request", data)
	if err == nil && job.Project == "audio" {
		// As the master refuses a project the user has no role in.
		reply(w, 403, api.Error{Error: `submitting to project "audio" needs the member or lead role there; user:ana has no role`, Field: "project"})
		return
	}
	if err == nil && job.Resources.QOS == "emergency" {
		// As the master's checkProjectQOS words it.
		reply(w, 400, api.Error{Error: `resources.qos: project vision may not use QOS "emergency" (its qos: normal, high)`, Field: "resources.qos"})
		return
	}
	if err == nil && job.Pool == "tpu" {
		reply(w, 400, api.Error{Error: `unknown pool "tpu" (pools: research, batch)`, Field: "pool"})
		return
	}
	if err == nil && (job.Resources.GPU == "v100" || job.Resources.Slots > 16) && r.URL.Query().Get("allow_infeasible") != "true" {
		// As the master's checkFeasible words it.
		field, why := "resources.gpu", `no node of pool research has GPU type "v100"`
		if job.Resources.Slots > 16 {
			field, why = "resources.slots", "a task needs 32 slots, more than a node of pool research has (8). The most that could fit is 8"
		}
		reply(w, 422, api.Error{Error: fmt.Sprintf("%s: job %q can never run: %s. Submit it with allow_infeasible=true (allot submit --allow-infeasible) to queue it anyway.",
			field, job.Name, why), Field: field})
		return
	}
	if err != nil {
		var e *jobfile.Error
		if !errors.As(err, &e) {
			reply(w, 400, api.Error{Error: err.Error()})
			return
		}
		reply(w, 400, api.Error{Error: e.Path + ": " + e.Msg, Field: e.Path})
		return
	}
	tasks, _ := job.Tasks()
	if r.URL.Query().Get("dry_run") == "true" {
		reply(w, 200, dryRunOf(job, len(tasks)))
		return
	}
	id := int64(100 + len(f.jobs))
	f.jobs = append(f.jobs, api.Job{ID: id, Name: job.Name, State: "queued", Tasks: len(tasks)})
	reply(w, 201, api.SubmitReply{ID: id, Tasks: len(tasks)})
}

// dryRunOf is the fake's dry run: a job of more than 4 slots waits an
// hour for the running ones, a smaller one starts now.
func dryRunOf(job *jobfile.Job, tasks int) api.DryRun {
	d := api.DryRun{Accepted: true, Name: job.Name, Pool: "research", Project: "vision", User: "ann",
		Tasks: tasks, Slots: job.Resources.Slots, Position: 1, Queued: 1, AsOf: t0, TimeLimitS: job.Resources.TimeLimit}
	if job.Resources.Slots <= 4 {
		d.StartsNow, d.Summary = true, "It would be accepted in pool research as the 1st of 2 waiting. It would start now."
		return d
	}
	if job.Name == "urgent" {
		d.Pending = &api.Pending{Reason: "checkpointing", Message: "slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs 8 slots)",
			EstimatedStart: &d.AsOf, EstimateBasis: "forecast", AsOf: &d.AsOf}
		d.Preempts = []api.DryRunVictim{{Job: 7, Name: "sweep", User: "bo", Tasks: 4, Slots: 8, Why: "priority 10 runs before the preempted job's 80"}}
		d.Summary = "It would be accepted in pool research as the 1st of 2 waiting. It would preempt 4 tasks of 1 running job and start once their checkpoints have landed."
		return d
	}
	at := t0.Add(time.Hour)
	d.Position = 2
	if job.Name == "huge" {
		never := `job huge can never run: needs 16 slots per task; the pool's nodes hold 8 together`
		d.Pending = &api.Pending{Reason: "no_nodes", Message: "no node in the pool can hold a task of 16 slots", AsOf: &d.AsOf}
		d.WouldStart = &api.Counterfactual{Never: never, Message: "It cannot start on the nodes up now: " + never + "."}
		d.Summary = "It would be accepted in pool research as the 2nd of 2 waiting. It would wait: no node in the pool can hold a task of 16 slots. " + d.WouldStart.Message
		return d
	}
	d.Pending = &api.Pending{Reason: "no_capacity", Message: "needs 8 slots per task, 2 are free in the pool",
		EstimatedStart: &at, EstimateBasis: "forecast", AsOf: &d.AsOf}
	d.WouldStart = &api.Counterfactual{Nodes: []string{"gpu-1"}, Message: "It could start on gpu-1 once job 7 ends.",
		MustEnd: []api.JobRef{{ID: 7, Name: "sweep", User: "bo", Project: "vision", Slots: 6, EndsAt: &at}}}
	d.Summary = "It would be accepted in pool research as the 2nd of 2 waiting. It would wait: needs 8 slots per task, 2 are free in the pool. " + d.WouldStart.Message
	return d
}

// list filters as the real master will; the CLI filters again.
// parentOf is project's parent, "" for a top-level one.
func (f *fakeMaster) parentOf(project string) string {
	for _, p := range f.projects {
		if p.Name == project {
			return p.Parent
		}
	}
	return ""
}

func (f *fakeMaster) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// Like the master, a filter that names nothing is a 400.
	for what, known := range map[string][]string{
		"pool":    names(f.pools, func(p api.Pool) string { return p.Name }),
		"project": names(f.projects, func(p api.Project) string { return p.Name }),
		"node":    names(f.nodes, func(n api.Node) string { return n.Name }),
	} {
		if v := q.Get(what); v != "" && !slices.Contains(known, v) {
			reply(w, 400, api.Error{Error: fmt.Sprintf("%s %q: no such %s (%ss: %s)", what, v, what, what, strings.Join(known, ", ")), Field: what})
			return
		}
	}
	out := []api.Job{}
	for _, j := range f.jobs {
		if s := strings.Split(q.Get("state"), ","); s[0] != "" && !slices.Contains(s, j.State) && !(j.Ending && slices.Contains(s, "killing")) &&
			!(j.State == "queued" && j.Held != nil && slices.Contains(s, "held")) {
			continue
		}
		if p := q.Get("pool"); p != "" && j.Pool != p {
			continue
		}
		if p := q.Get("project"); p != "" && j.Project != p && !(q.Get("subprojects") == "true" && f.parentOf(j.Project) == p) {
			continue // a sub-project's job, with subprojects=true (the fake's tree is one level deep)
		}
		if n := q.Get("node"); n != "" && !onNode(j, n) {
			continue
		}
		j.TaskList = nil
		out = append(out, j)
	}
	if !q.Has("limit") && !q.Has("cursor") {
		reply(w, 200, out)
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
	reply(w, 200, page)
}

func names[T any](items []T, name func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	return out
}

// onNode reports whether an open attempt of j has a part on node.
func onNode(j api.Job, node string) bool {
	for _, t := range j.TaskList {
		if len(t.Attempts) == 0 || t.Attempts[len(t.Attempts)-1].EndedAt != nil {
			continue
		}
		for _, p := range t.Attempts[len(t.Attempts)-1].Placement {
			if p.Node == node {
				return true
			}
		}
	}
	return false
}

// withJob finds the job of the path's id, or answers as the real master
// does (master.pathID, access.jobOwner): 400 for an id that is not a
// positive integer, 404 for one no job has (TestFakeMasterErrorsAreReal).
func (f *fakeMaster) withJob(h func(j *api.Job, r *http.Request) (any, int)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := r.PathValue("id")
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			reply(w, 400, api.Error{Error: fmt.Sprintf("job id %q: expected a positive integer", s), Field: "id"})
			return
		}
		if msg, ok := f.forbidden[id]; ok {
			reply(w, 403, api.Error{Error: msg})
			return
		}
		i := slices.IndexFunc(f.jobs, func(j api.Job) bool { return j.ID == id })
		if i < 0 {
			reply(w, 404, api.Error{Error: fmt.Sprintf("job %d does not exist", id), Field: "id"})
			return
		}
		v, status := h(&f.jobs[i], r)
		reply(w, status, v)
	}
}

// killJobs kills a list of jobs in one request, as the master's POST
// /jobs/kill: each job's result, a 404 for one that does not exist.
func (f *fakeMaster) killJobs(w http.ResponseWriter, r *http.Request) {
	var req api.KillJobs
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.IDs) == 0 {
		reply(w, 400, api.Error{Error: "ids: expected 1 to 1000 job IDs", Field: "ids"})
		return
	}
	res := make([]api.KillResult, len(req.IDs))
	for n, id := range req.IDs {
		res[n].ID = id
		i := slices.IndexFunc(f.jobs, func(j api.Job) bool { return j.ID == id })
		if i < 0 {
			res[n].Status, res[n].Error = 404, fmt.Sprintf("job %d does not exist", id)
			continue
		}
		j := &f.jobs[i]
		if j.State == "completed" || j.State == "failed" || j.State == "killed" {
			res[n].Reply = &api.KillReply{Job: *j, AlreadyEnded: true}
			continue
		}
		j.State = "killed"
		res[n].Reply = &api.KillReply{Job: *j}
	}
	reply(w, 200, res)
}

func (f *fakeMaster) update(j *api.Job, r *http.Request) (any, int) {
	var u api.JobUpdate
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		return api.Error{Error: err.Error()}, 400
	}
	if u.Priority != nil {
		j.Priority = *u.Priority
		j.PriorityClass = string(jobfile.ClassOf(*u.Priority))
	}
	if u.PriorityClass != nil {
		j.PriorityClass = *u.PriorityClass
		j.Priority = jobfile.PriorityClass(*u.PriorityClass).Priority()
	}
	if u.Priority != nil || u.PriorityClass != nil {
		// LOW work is preemptible; out of LOW, an experiment is by
		// default (the fake's job files say nothing else).
		j.Preemptible = j.PriorityClass == string(jobfile.ClassLow) || j.Kind == string(jobfile.KindExperiment)
	}
	if u.Weight != nil {
		j.Weight = *u.Weight
	}
	if u.TimeLimit != nil {
		var text string
		if err := json.Unmarshal(u.TimeLimit, &text); err != nil {
			return api.Error{Error: err.Error(), Field: "time_limit"}, 400
		}
		secs, err := yamlfield.DurationText(text)
		if err != nil {
			return api.Error{Error: "time_limit: " + err.Error(), Field: "time_limit"}, 400
		}
		j.TimeLimitS = secs
		// The fake's stand-in for a running task already past its new
		// limit, which the master kills at once.
		j.Ending = secs > 0 && secs <= 30
	}
	if u.QOS != nil {
		j.QOS = *u.QOS
	}
	if u.Nice != nil {
		j.Nice = *u.Nice
	}
	return *j, 200
}

// logsPage serves logPage lines after the cursor, filtered by task. The
// job counts as ended from its ended[id]-th log request on; before that,
// a request with nothing new is answered at once (the wait is not held,
// to keep tests quick), which a follower must take in its stride.
func (f *fakeMaster) logsPage(j *api.Job, r *http.Request) (any, int) {
	q := r.URL.Query()
	from := 0
	if a := q.Get("after"); a != "" {
		n, err := strconv.Atoi(a[1:])
		if a[0] != 'L' || err != nil {
			return api.Error{Error: "bad cursor", Field: "after"}, 400
		}
		from = n
	}
	var lines []api.LogLine
	all := f.logs[j.ID]
	next := from
	for i := from; i < len(all) && len(lines) < f.logPage; i++ {
		next = i + 1
		if t := q.Get("task"); t != "" && strconv.Itoa(all[i].Task) != t {
			continue
		}
		lines = append(lines, all[i])
	}
	f.ended[j.ID]--
	done := f.ended[j.ID] <= 0 && next == len(all)
	return api.Logs{Lines: lines, Next: "L" + strconv.Itoa(next), Done: done}, 200
}

// fixtureMetrics is an ASHA experiment's metrics: trial 0 leads, promoted
// at rung 0 as the first to arrive, trial 1 was stopped there, trial 2
// has not reported.
func fixtureMetrics(id int64) api.JobMetrics {
	b0, r1, r0 := 0, 1, 0
	point := func(task int, step int64, loss float64) api.MetricPoint {
		return api.MetricPoint{Task: task, Attempt: 1, Step: step, Time: t0, Metrics: map[string]float64{"loss": loss}}
	}
	join := func(step int64, loss float64, n int, d string) []api.RungJoin {
		return []api.RungJoin{{Rung: 0, Step: step, Time: t0, Value: loss, RungTrials: n, Decision: d}}
	}
	return api.JobMetrics{JobID: id, Metric: "loss", SmallerIsBetter: true, Searcher: "asha", Rungs: [][]int64{{3, 27, 81}},
		Points: []api.MetricPoint{point(0, 3, 0.9), point(1, 3, 1.2), point(0, 9, 0.4), point(0, 12, 0.5)},
		Trials: []api.TrialMetrics{
			{Task: 0, State: "running", Reports: 3, LatestStep: ptr(int64(12)), Latest: ptr(0.5), BestStep: ptr(int64(9)), Best: ptr(0.4),
				Bracket: &b0, Rung: &r1, Decision: "continue", Hyperparameters: []byte(`{"lr":0.01}`),
				DecisionNote: "promoted at rung 0 as the first to arrive", RungJoins: join(3, 0.9, 1, "promoted")},
			{Task: 1, State: "completed", Reports: 1, LatestStep: ptr(int64(3)), Latest: ptr(1.2), BestStep: ptr(int64(3)), Best: ptr(1.2),
				Bracket: &b0, Rung: &r1, Decision: "stopped", RungJoins: join(3, 1.2, 2, "stopped")},
			{Task: 2, State: "queued", Bracket: &b0, Rung: &r0, Decision: "continue"},
		}}
}

// withNode serves a request on the node named in the path, 404 when there
// is none; a nil reply with 204 answers no body.
func (f *fakeMaster) withNode(fn func(n *api.Node, r *http.Request) (any, int)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := range f.nodes {
			if f.nodes[i].Name == r.PathValue("name") {
				v, code := fn(&f.nodes[i], r)
				if v == nil {
					w.WriteHeader(code)
					return
				}
				reply(w, code, v)
				return
			}
		}
		reply(w, 404, api.Error{Error: fmt.Sprintf("node %q: no such node", r.PathValue("name")), Field: "name"})
	}
}
