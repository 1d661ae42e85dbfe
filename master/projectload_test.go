package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
)

// projectTree is a FIFO cluster's project tree three levels deep, with
// a project beside it: dept > ml > {vision, nlp}, and solo.
const projectTree = `pools:
  - {name: default, policy: fifo}
default_project: solo
projects:
  - {name: dept, quota: 8}
  - {name: ml, parent: dept, quota: 6}
  - {name: vision, parent: ml, quota: 4}
  - {name: nlp, parent: ml, quota: 2}
  - {name: solo}
`

// TestProjectsIncludeSubProjects: GET /projects gives a parent what its
// sub-projects hold and wait for, as docs/cli.md's allot projects shows
// (jobs run only in projects without sub-projects, so a parent's own
// figures would always be 0).
func TestProjectsIncludeSubProjects(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, projectTree)))
	a := h.agent("n1", 4)
	h.submit(`{"name": "v", "project": "vision", "entrypoint": "x", "resources": {"slots": 3}}`)
	h.submit(`{"name": "n", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`)
	h.step()
	h.sync(a)
	got, byName := h.projects()
	cases := []struct {
		name                  string
		used, queued, running int
	}{
		{"vision", 3, 0, 1},
		{"nlp", 0, 1, 0},
		{"ml", 3, 1, 1},
		{"dept", 3, 1, 1},
		{"solo", 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := byName[tc.name]
			if !ok {
				t.Fatalf("no project %s in %+v", tc.name, got)
			}
			if p.Used != tc.used || p.QueuedJobs != tc.queued || p.RunningTasks != tc.running {
				t.Fatalf("%s: used %d, queued %d, running %d; want %d, %d, %d",
					tc.name, p.Used, p.QueuedJobs, p.RunningTasks, tc.used, tc.queued, tc.running)
			}
		})
	}
}

// TestProjectsQuotaOnlyInQuotaPools: GET /projects compares a project's
// quota only with what it holds in quota pools, each on its own (a quota
// pool holds the project to its whole quota), while Used still counts
// every pool. Before, nlp, holding exactly its quota in eval and one GPU
// in a FIFO pool, looked over quota.
func TestProjectsQuotaOnlyInQuotaPools(t *testing.T) {
	cfg, err := config.Parse("projects.yaml", []byte(`pools:
  - {name: train, policy: quota}
  - {name: batch, policy: fifo}
  - {name: eval, policy: quota}
default_pool: train
default_project: nlp
projects:
  - {name: dept, quota: 6}
  - {name: vision, parent: dept, quota: 4}
  - {name: nlp, parent: dept, quota: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg))
	var agents []*mastertest.Agent
	for _, n := range []struct {
		name, pool string
		gpus       int
	}{{"t1", "train", 9}, {"b1", "batch", 4}, {"e1", "eval", 2}} {
		a := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: n.name, Pool: n.pool, GPUs: n.gpus}
		if _, err := a.Register(h.ctx); err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	for _, j := range []string{
		`{"name": "v1", "project": "vision", "pool": "train", "entrypoint": "x", "resources": {"slots": 3}}`,
		// Over quota: only preemptible work may borrow spare slots.
		`{"name": "v2", "project": "vision", "pool": "train", "entrypoint": "x", "resources": {"slots": 3, "preemptible": true}}`,
		`{"name": "v3", "project": "vision", "pool": "batch", "entrypoint": "x", "resources": {"slots": 3}}`,
		`{"name": "n1", "project": "nlp", "pool": "eval", "entrypoint": "x", "resources": {"slots": 2}}`,
		`{"name": "n2", "project": "nlp", "pool": "batch", "entrypoint": "x", "resources": {"slots": 1}}`,
		// LOW work borrows: its GPUs count toward no quota.
		`{"name": "n3", "project": "nlp", "pool": "train", "entrypoint": "x", "resources": {"slots": 3, "priority_class": "LOW"}}`,
	} {
		h.submit(j)
	}
	h.step()
	h.sync(agents...)
	got, byName := h.projects()
	cases := []struct {
		name                string
		used, inQuota, over int
		pools               []api.ProjectPoolUse
	}{
		// Its quota in eval, one GPU in the FIFO pool, and 3 borrowed
		// in train by LOW work, past its quota of 2 there but counting
		// toward none: within quota.
		{"nlp", 6, 5, 0, []api.ProjectPoolUse{{Pool: "train", Used: 3, Borrowed: 3}, {Pool: "eval", Used: 2}}},
		// Over its quota of 4 by 2 in train, not by 5: batch's 3 count
		// toward no quota.
		{"vision", 9, 6, 2, []api.ProjectPoolUse{{Pool: "train", Used: 6}, {Pool: "eval"}}},
		// Its sub-projects' use, pool by pool: 6 in train (and 3
		// borrowed) and 2 in eval are each within its quota of 6, though
		// 8 is not.
		{"dept", 15, 11, 0, []api.ProjectPoolUse{{Pool: "train", Used: 9, Borrowed: 3}, {Pool: "eval", Used: 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := byName[tc.name]
			if !ok {
				t.Fatalf("no project %s in %+v", tc.name, got)
			}
			if p.Used != tc.used || p.UsedInQuotaPools != tc.inQuota || p.OverQuota != tc.over || !slices.Equal(p.QuotaPools, tc.pools) {
				t.Fatalf("%s: used %d, in quota pools %d, over quota %d, quota pools %v; want %d, %d, %d, %v",
					tc.name, p.Used, p.UsedInQuotaPools, p.OverQuota, p.QuotaPools, tc.used, tc.inQuota, tc.over, tc.pools)
			}
		})
	}
}

// projects gets GET /projects, listed and by name.
func (h *harness) projects() ([]api.Project, map[string]api.Project) {
	h.t.Helper()
	var got []api.Project
	h.do("GET", "/api/v1/projects", nil, &got)
	byName := map[string]api.Project{}
	for _, p := range got {
		byName[p.Name] = p
	}
	return got, byName
}

// TestPartlyRunningJobIsNotQueued: a job with tasks running and others
// still waiting (an array of trials on too few GPUs) is a running job:
// GET /pools and /projects count it in no queued_jobs, which GET
// /jobs?state=queued could not list, and give its waiting tasks as
// waiting_tasks; a job with none started is a queued job (trial
// 2026-11-29i I1: a member was told of a hidden queued job that was her
// own running experiment).
func TestPartlyRunningJobIsNotQueued(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	h.submit(`{"name": "sweep", "entrypoint": "x", "resources": {"slots": 1}, "hyperparameters": {"x": {"type": "categorical", "vals": [1, 2, 3, 4]}}}`)
	h.step()
	h.sync(a)
	h.submit(jobSpec("waits", 1, ""))
	h.step()
	var queued []api.Job
	if code := h.do("GET", "/api/v1/jobs?state=queued&pool=default", nil, &queued); code != 200 {
		t.Fatalf("GET /jobs?state=queued: %d", code)
	}
	var pools []api.Pool
	if code := h.do("GET", "/api/v1/pools", nil, &pools); code != 200 || len(pools) != 1 {
		t.Fatalf("GET /pools: %d %+v", code, pools)
	}
	_, projects := h.projects()
	for _, c := range []struct {
		name                   string
		queued, running, waits int
	}{
		{"pool", pools[0].QueuedJobs, pools[0].RunningTasks, pools[0].WaitingTasks},
		{"project", projects["default"].QueuedJobs, projects["default"].RunningTasks, projects["default"].WaitingTasks},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.queued != 1 || c.queued != len(queued) || c.running != 2 || c.waits != 2 {
				t.Fatalf("queued_jobs %d (GET /jobs?state=queued lists %d), running_tasks %d, waiting_tasks %d; want 1 (as listed), 2, 2",
					c.queued, len(queued), c.running, c.waits)
			}
		})
	}
}
