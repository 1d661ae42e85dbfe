package master

import (
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
)

// TestProjectsIncludeSubProjects: GET /projects gives a parent what its
// sub-projects hold and wait for, as docs/cli.md's allot projects shows
// (jobs run only in projects without sub-projects, so a parent's own
// figures would always be 0).
func TestProjectsIncludeSubProjects(t *testing.T) {
	cfg, err := config.Parse("projects.yaml", []byte(`pools:
  - {name: default, policy: fifo}
default_project: solo
projects:
  - {name: dept, quota: 8}
  - {name: ml, parent: dept, quota: 6}
  - {name: vision, parent: ml, quota: 4}
  - {name: nlp, parent: ml, quota: 2}
  - {name: solo}
`))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 4)
	h.submit(`{"name": "v", "project": "vision", "entrypoint": "x", "resources": {"slots": 3}}`)
	h.submit(`{"name": "n", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`)
	h.step()
	h.sync(a)
	var got []api.Project
	h.do("GET", "/api/v1/projects", nil, &got)
	byName := map[string]api.Project{}
	for _, p := range got {
		byName[p.Name] = p
	}
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
