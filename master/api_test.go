package master

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
)

// badCase is a request that must fail with a status and, when field is
// set, name that field.
type badCase struct {
	name, method, path string
	body               any
	status             int
	field              string
}

func runBad(t *testing.T, h *harness, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e api.Error
			code := h.do(c.method, c.path, c.body, &e)
			if code != c.status {
				t.Fatalf("status %d (%+v), want %d", code, e, c.status)
			}
			if e.Error == "" {
				t.Fatalf("no error message in %+v", e)
			}
			if e.Field != c.field {
				t.Fatalf("field %q (%s), want %q", e.Field, e.Error, c.field)
			}
		})
	}
}

func TestSubmitRejects(t *testing.T) {
	cfg := mustConfig(t, `
default_pool: gpu
default_project: vision
pools:
  - name: gpu
    policy: priority
projects:
  - name: vision
  - name: nlp
users:
  - name: ann
    projects: [vision]
`)
	h := newHarness(t, withConfig(cfg))
	big := `{"name": "x", "entrypoint": "` + strings.Repeat("a", api.MaxBodyBytes) + `"}`
	runBad(t, h, []badCase{
		{"empty body", "POST", "/api/v1/jobs", "", 400, ""},
		{"bad JSON", "POST", "/api/v1/jobs", `{"name": `, 400, ""},
		{"trailing data", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e"} {}`, 400, ""},
		{"unknown field", "POST", "/api/v1/jobs", `{"name": "x", "entrypont": "e"}`, 400, ""}, // two errors: the first names no field
		// The unknown field itself, as other bodies' unknown fields (trial 2026-11-29d D9).
		{"unknown field alone", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "bogus": 1}`, 400, "bogus"},
		{"unknown nested field", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "resources": {"slotz": 1}}`, 400, "resources.slotz"},
		{"unknown field, dry run", "POST", "/api/v1/jobs?dry_run=true", `{"name": "x", "entrypoint": "e", "bogus": 1}`, 400, "bogus"},
		{"negative slots", "POST", "/api/v1/jobs", jobSpec("x", -2, ""), 400, "resources.slots"},
		{"slots as a string", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "resources": {"slots": "8"}}`, 400, "resources.slots"},
		{"unknown pool", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "pool": "cpu"}`, 400, "pool"},
		{"unknown project", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "project": "audio"}`, 400, "project"},
		{"oversized body", "POST", "/api/v1/jobs", big, 413, ""},
	})
	t.Run("user may not use the project", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(h.ctx, "POST", h.srv.URL+"/api/v1/jobs",
			strings.NewReader(`{"name": "x", "entrypoint": "e", "project": "nlp"}`))
		req.Header.Set("Authorization", "Bearer "+h.as("ann"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d, want 403", resp.StatusCode)
		}
	})
	var unknown api.Error
	h.do("POST", "/api/v1/jobs", `{"name": "x", "entrypont": "e"}`, &unknown)
	if !strings.Contains(unknown.Error, `"entrypont"`) {
		t.Errorf("unknown field error %q does not name it", unknown.Error)
	}
	if jobs, _ := h.st.Jobs(h.ctx, storeJobFilter()); len(jobs) != 0 {
		t.Fatalf("%d jobs stored by rejected submissions", len(jobs))
	}
}

func TestJobEndpointsReject(t *testing.T) {
	h := newHarness(t)
	h.submit(jobSpec("a", 1, ""))
	runBad(t, h, []badCase{
		{"list: unknown state", "GET", "/api/v1/jobs?state=done", nil, 400, "state"},
		{"list: unknown parameter", "GET", "/api/v1/jobs?sort=id", nil, 400, "sort"},
		{"get: bad id", "GET", "/api/v1/jobs/abc", nil, 400, "id"},
		{"get: zero id", "GET", "/api/v1/jobs/0", nil, 400, "id"},
		{"get: missing", "GET", "/api/v1/jobs/99", nil, 404, "id"},
		{"patch: missing", "PATCH", "/api/v1/jobs/99", `{"priority": 5}`, 404, "id"},
		{"patch: empty body", "PATCH", "/api/v1/jobs/1", "", 400, ""},
		{"patch: unknown field", "PATCH", "/api/v1/jobs/1", `{"prio": 5}`, 400, "prio"},
		{"patch: wrong type", "PATCH", "/api/v1/jobs/1", `{"priority": "5"}`, 400, "priority"},
		{"patch: trailing data", "PATCH", "/api/v1/jobs/1", `{"priority": 5}x`, 400, ""},
		{"patch: priority out of range", "PATCH", "/api/v1/jobs/1", `{"priority": 100}`, 400, "priority"},
		{"patch: unknown class", "PATCH", "/api/v1/jobs/1", `{"priority_class": "URGENT"}`, 400, "priority_class"},
		{"patch: class and priority disagree", "PATCH", "/api/v1/jobs/1", `{"priority": 5, "priority_class": "LOW"}`, 400, "priority_class"},
		{"patch: zero weight", "PATCH", "/api/v1/jobs/1", `{"weight": 0}`, 400, "weight"},
		{"patch: oversized", "PATCH", "/api/v1/jobs/1", `{"weight": 1` + strings.Repeat(" ", api.MaxBodyBytes) + `}`, 413, ""},
		{"kill: missing", "POST", "/api/v1/jobs/99/kill", nil, 404, "id"},
		{"logs: missing job", "GET", "/api/v1/jobs/99/logs", nil, 404, "id"},
		{"logs: bad task", "GET", "/api/v1/jobs/1/logs?task=-1", nil, 400, "task"},
		{"logs: task out of range", "GET", "/api/v1/jobs/1/logs?task=5", nil, 400, "task"},
		{"logs: bad cursor", "GET", "/api/v1/jobs/1/logs?after=x", nil, 400, "after"},
		{"logs: bad wait", "GET", "/api/v1/jobs/1/logs?wait=soon", nil, 400, "wait"},
		{"unknown endpoint", "GET", "/api/v1/nothing", nil, 404, ""},
	})
	h.do("POST", "/api/v1/jobs/1/kill", nil, nil)
	runBad(t, h, []badCase{{"patch: ended job", "PATCH", "/api/v1/jobs/1", `{"priority": 5}`, 409, ""}})
}

func TestAgentEndpointsReject(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 1)
	gpu := []api.GPU{{Index: 0, UUID: "u", Type: "h100"}}
	runBad(t, h, []badCase{
		{"register: no name", "POST", "/api/v1/agents/register", api.Register{GPUs: gpu}, 400, "name"},
		{"register: repeated GPU", "POST", "/api/v1/agents/register",
			api.Register{Name: "n", GPUs: []api.GPU{gpu[0], gpu[0]}}, 400, "gpus"},
		{"register: unknown pool", "POST", "/api/v1/agents/register", api.Register{Name: "n", Pool: "cpu", GPUs: gpu}, 400, "pool"},
		{"register: unknown field", "POST", "/api/v1/agents/register", `{"name": "n", "gpu": []}`, 400, "gpu"},
		{"register: bad running", "POST", "/api/v1/agents/register",
			api.Register{Name: "n", GPUs: gpu, Running: []agent.TaskID{{JobID: "1", Attempt: 0}}}, 400, "running"},
		{"sync: unknown node", "POST", "/api/v1/agents/zz/sync", api.Sync{}, 403, ""},
		{"sync: negative wait", "POST", "/api/v1/agents/n1/sync", api.Sync{WaitS: -1}, 400, "wait_s"},
		{"sync: negative placement generation", "POST", "/api/v1/agents/n1/sync", api.Sync{PlacementGen: -1}, 400, "placement_gen"},
		{"sync: bad event", "POST", "/api/v1/agents/n1/sync",
			api.Sync{Reports: []api.Report{{Seq: 1, Task: tid(1, 0, 1), Event: "started"}}}, 400, "reports"},
		{"sync: bad outcome", "POST", "/api/v1/agents/n1/sync",
			api.Sync{Reports: []api.Report{{Seq: 1, Task: tid(1, 0, 1), Event: "exited", Outcome: "ok"}}}, 400, "reports"},
		{"sync: zero seq", "POST", "/api/v1/agents/n1/sync",
			api.Sync{Reports: []api.Report{{Task: tid(1, 0, 1), Event: "running"}}}, 400, "reports"},
		{"logs: bad stream", "POST", "/api/v1/agents/n1/logs",
			api.LogBatch{Lines: []api.AgentLogLine{{Task: tid(1, 0, 1), Seq: 1, Stream: "stdin"}}}, 400, "lines"},
		{"logs: bad job id", "POST", "/api/v1/agents/n1/logs",
			api.LogBatch{Lines: []api.AgentLogLine{{Task: agent.TaskID{JobID: "x", Attempt: 1}, Seq: 1, Stream: "stdout"}}}, 400, "lines"},
	})
}

func TestListJobsInSchedulingOrder(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	run := h.submit(jobSpec("running", 2, ""))
	h.step()
	h.sync(a, a)
	low := h.submit(jobSpec("low", 2, `, "priority": 50, "preemptible": false`))
	high := h.submit(jobSpec("high", 2, `, "priority": 20, "preemptible": false`))
	h.step()
	var jobs []api.Job
	if code := h.do("GET", "/api/v1/jobs", nil, &jobs); code != 200 {
		t.Fatal(code)
	}
	var ids []int64
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	if !slices.Equal(ids, []int64{high, run, low}) {
		t.Fatalf("order %v, want %v", ids, []int64{high, run, low})
	}
	if jobs[0].Position != 1 || jobs[2].Position != 2 || jobs[1].Position != 0 {
		t.Fatalf("positions %d %d %d", jobs[0].Position, jobs[1].Position, jobs[2].Position)
	}
	p := jobs[0].Pending
	if p == nil || p.Reason == "" || p.Message == "" {
		t.Fatalf("pending %+v", p)
	}
	h.do("GET", "/api/v1/jobs?state=running", nil, &jobs)
	if len(jobs) != 1 || jobs[0].ID != run {
		t.Fatalf("state=running: %+v", jobs)
	}
	a.Exit(tid(run, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.do("GET", "/api/v1/jobs?state=completed", nil, &jobs)
	if len(jobs) != 1 || jobs[0].ID != run || jobs[0].State != "completed" {
		t.Fatalf("state=completed: %+v", jobs)
	}
}

func TestPatchChangesPriorityAndPreempts(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	a.HoldPreempt = true
	first := h.submit(jobSpec("first", 2, `, "priority": 40, "preemptible": true`))
	h.step()
	h.sync(a, a)
	second := h.submit(jobSpec("second", 2, `, "priority": 50`))
	h.step()
	var j api.Job
	if code := h.do("PATCH", "/api/v1/jobs/2", `{"priority_class": "HIGH"}`, &j); code != 200 {
		t.Fatal(code)
	}
	if j.Priority != 10 || j.PriorityClass != "HIGH" {
		t.Fatalf("patched job %+v", j)
	}
	h.step()
	if got := h.taskState(first, 0); got != "preempting" {
		t.Fatalf("first job's task %s, want preempting after the priority change", got)
	}
	if code := h.do("PATCH", "/api/v1/jobs/2", `{"priority": 35, "weight": 2.5}`, &j); code != 200 ||
		j.Priority != 35 || j.PriorityClass != "NORMAL" || j.Weight != 2.5 || j.ID != second {
		t.Fatalf("second patch: %d %+v", code, j)
	}
}

func TestLogs(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("talk", 1, ""))
	h.step()
	h.sync(a, a)
	line := func(seq int64, text string) api.AgentLogLine {
		return api.AgentLogLine{Task: tid(id, 0, 1), Seq: seq, Time: h.clock.Now(), Stream: "stdout", Text: text}
	}
	batch := api.LogBatch{Lines: []api.AgentLogLine{line(1, "one"), line(2, "two"),
		{Task: tid(id, 0, 7), Seq: 1, Stream: "stdout", Text: "no such attempt"}}}
	for range 2 { // a re-sent batch is stored once
		if code := h.do("POST", "/api/v1/agents/n1/logs", batch, nil); code != http.StatusNoContent {
			t.Fatalf("post logs: %d", code)
		}
	}
	var logs api.Logs
	h.do("GET", "/api/v1/jobs/1/logs", nil, &logs)
	if len(logs.Lines) != 2 || logs.Lines[1].Text != "two" || logs.Next != "1.2" || logs.Done {
		t.Fatalf("logs %+v", logs)
	}
	got := make(chan api.Logs, 1)
	go func() {
		var l api.Logs
		h.do("GET", "/api/v1/jobs/1/logs?after=1.2&wait=30", nil, &l)
		got <- l
	}()
	// The poll waits for lines; post until it has registered and returns.
	deadline := time.After(20 * time.Second)
	for seq := int64(3); ; seq++ {
		h.do("POST", "/api/v1/agents/n1/logs", api.LogBatch{Lines: []api.AgentLogLine{line(seq, "more")}}, nil)
		select {
		case l := <-got:
			if len(l.Lines) == 0 || l.Lines[0].Seq != 3 {
				t.Fatalf("long poll answered %+v", l)
			}
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.do("GET", "/api/v1/jobs/1/logs?after="+l.Next+"&wait=30", nil, &logs)
			if !logs.Done {
				t.Fatalf("after the job ended: %+v, want done", logs)
			}
			return
		case <-deadline:
			t.Fatal("long poll never answered")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestClusterEndpoints(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	h.submit(jobSpec("a", 3, ""))
	h.submit(jobSpec("b", 3, ""))
	h.step()
	h.sync(a)
	var nodes []api.Node
	h.do("GET", "/api/v1/nodes", nil, &nodes)
	if len(nodes) != 1 || nodes[0].Slots != 4 || nodes[0].Used != 3 || nodes[0].State != "up" || nodes[0].GPUType != "h100" {
		t.Fatalf("nodes %+v", nodes)
	}
	var pools []api.Pool
	h.do("GET", "/api/v1/pools", nil, &pools)
	if len(pools) != 1 || pools[0].Name != "default" || pools[0].Slots != 4 || pools[0].Used != 3 ||
		pools[0].QueuedJobs != 1 || pools[0].RunningTasks != 1 || pools[0].GraceS != 30 || pools[0].Policy != "priority" {
		t.Fatalf("pools %+v", pools)
	}
	var projects []api.Project
	h.do("GET", "/api/v1/projects", nil, &projects)
	if len(projects) != 1 || projects[0].Name != "default" || projects[0].Used != 3 || projects[0].QueuedJobs != 1 {
		t.Fatalf("projects %+v", projects)
	}
	if code := h.do("GET", "/healthz", nil, nil); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	resp, err := http.Get(h.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`allot_jobs{state="queued"} 1`, `allot_tasks_running{pool="default"} 1`,
		`allot_pool_slots{pool="default"} 4`, `allot_pool_slots_used{pool="default"} 3`,
		`allot_jobs_pending{pool="default",reason=`, "allot_scheduling_pass_seconds_count", "allot_submissions_total 2",
		"allot_agent_syncs_total 1"} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestConfigReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "allot.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pools:\n  - name: default\n    policy: priority\n")
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg), func(o *Options) { o.ConfigPath = path })
	h.submit(jobSpec("a", 1, ""))

	write("pools:\n  - name: default\n    policy: fair_share\n  - name: cpu\n    policy: fifo\n")
	if code := h.do("POST", "/api/v1/config/reload", nil, nil); code != http.StatusOK {
		t.Fatalf("valid reload: %d", code)
	}
	var pools []api.Pool
	h.do("GET", "/api/v1/pools", nil, &pools)
	if len(pools) != 2 || pools[0].Policy != "fair_share" {
		t.Fatalf("pools after reload %+v", pools)
	}
	write("pools:\n  - name: default\n    policy: lottery\n")
	var e api.Error
	if code := h.do("POST", "/api/v1/config/reload", nil, &e); code != 400 || !strings.Contains(e.Error, "lottery") {
		t.Fatalf("invalid reload: %d %+v", code, e)
	}
	write("default_pool: cpu\npools:\n  - name: cpu\n    policy: fifo\n")
	if code := h.do("POST", "/api/v1/config/reload", nil, &e); code != 400 || !strings.Contains(e.Error, "job 1") {
		t.Fatalf("reload dropping a used pool: %d %+v", code, e)
	}
	h.do("GET", "/api/v1/pools", nil, &pools)
	if len(pools) != 2 || pools[0].Policy != "fair_share" {
		t.Fatalf("pools after failed reloads %+v, want the last good configuration", pools)
	}

	noFile := newHarness(t)
	if code := noFile.do("POST", "/api/v1/config/reload", nil, &e); code != 400 {
		t.Fatalf("reload without a file: %d", code)
	}
	failing := newHarness(t, func(o *Options) {
		o.ConfigPath = "x"
		o.LoadConfig = func(string) (*config.Config, error) { return nil, errors.New("disk on fire") }
	})
	if code := failing.do("POST", "/api/v1/config/reload", nil, &e); code != 400 || !strings.Contains(e.Error, "disk on fire") {
		t.Fatalf("reload with a failing loader: %d %+v", code, e)
	}
}

// TestOpenAPIMatchesRoutes holds the OpenAPI document and the registered
// routes in step, both ways.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if method == "parameters" {
				continue
			}
			documented[strings.ToUpper(method)+" "+path] = true
			var o struct {
				Role string `json:"x-allot-role"`
			}
			if err := json.Unmarshal(op, &o); err != nil || o.Role == "" {
				t.Errorf("%s %s: no x-allot-role saying who may call it", method, path)
			}
		}
	}
	registered := map[string]bool{}
	for _, r := range routes {
		registered[r.method+" "+r.path] = true
		if !documented[r.method+" "+r.path] {
			t.Errorf("route %s %s is not in openapi.json", r.method, r.path)
		}
	}
	for k := range documented {
		if !registered[k] {
			t.Errorf("openapi.json documents %s, which is not registered", k)
		}
	}
	h := newHarness(t)
	var served map[string]any
	if code := h.do("GET", "/api/v1/openapi.json", nil, &served); code != 200 || served["openapi"] == nil {
		t.Fatalf("openapi.json: %d", code)
	}
}
