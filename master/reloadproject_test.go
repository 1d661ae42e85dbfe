package master

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/config"
)

// projectsConfig is a multifactor pool with fair share and the named
// projects, the first the default.
func projectsConfig(projects ...string) string {
	var b strings.Builder
	b.WriteString("pools:\n  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}}\n")
	b.WriteString("default_pool: mf\ndefault_project: " + projects[0] + "\nprojects:\n")
	for _, p := range projects {
		b.WriteString("  - {name: " + p + "}\n")
	}
	return b.String()
}

// TestProjectBackSchedules: a queued job in a fair-share pool whose
// project the configuration lost (the master started without it) and a
// reload then brought back gets its account again: the passes succeed
// and start it. Its leaf was dropped with the project, and every pass
// then failed on its account -1, in every pool, while /healthz said ok.
func TestProjectBackSchedules(t *testing.T) {
	cases := []struct {
		name  string
		users []string // the users submitting to project b
	}{
		{"one job", []string{""}},
		{"two users", []string{"ana", "bo"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withFile, path := withConfigFile(t, projectsConfig("a", "b"))
			h := newHarness(t, withFile)
			var ids []int64
			for _, u := range tc.users {
				spec := `{"name": "wait", "project": "b", "entrypoint": "x", "resources": {"slots": 1}}`
				if u == "" {
					ids = append(ids, h.submit(spec))
					continue
				}
				h.as(u, "b=member")
				ids = append(ids, h.submitAs(u, spec))
			}
			// The master restarts with b gone, then b is back by a reload.
			writeConfig(t, path, projectsConfig("a"))
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			h.opt.Config = cfg
			h.start()
			a := h.agent("n1", len(tc.users))
			h.step()
			writeConfig(t, path, projectsConfig("a", "b"))
			if err := h.m.Reload(h.ctx); err != nil {
				t.Fatalf("reload adding b back: %v", err)
			}
			h.step()
			if ps := h.m.passes.status(); ps.Failing {
				t.Fatalf("passes fail after b came back: %s", ps.Error)
			}
			h.sync(a)
			for _, id := range ids {
				if s := h.job(id).State; s == "queued" {
					t.Errorf("job %d still queued, want started", id)
				}
			}
			if code, body, _ := h.raw("GET", "/healthz", ""); code != http.StatusOK {
				t.Errorf("/healthz %d %q, want 200", code, body)
			}
		})
	}
}

// TestReloadRefusesDroppingLiveProject: a reload that drops a project
// that live jobs belong to is refused, naming the project, its jobs and
// what to do, and nothing of it applies; one that drops a project with no
// live job is taken. A master that starts without such a project keeps
// the jobs and says so in its log.
func TestReloadRefusesDroppingLiveProject(t *testing.T) {
	logs := &lockedBuffer{}
	withFile, path := withConfigFile(t, projectsConfig("a", "b", "c"))
	h := newHarness(t, withFile, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	var ids []int64
	for range 6 {
		ids = append(ids, h.submit(`{"name": "w", "project": "b", "entrypoint": "x", "resources": {"slots": 1}}`))
	}
	cases := []struct {
		name     string
		file     string
		wantErr  string // "" for a reload taken
		projects int    // projects in force after it
	}{
		{"dropping b, with 6 queued jobs", projectsConfig("a", "c"),
			fmt.Sprintf("drops the project that live jobs belong to: project b has 6 live jobs (job %d (queued), job %d (queued), job %d (queued), job %d (queued), job %d (queued), and 1 more): keep the project until its jobs end, or kill them",
				ids[0], ids[1], ids[2], ids[3], ids[4]), 3},
		{"dropping c, with none", projectsConfig("a", "b"), "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			err := h.m.Reload(h.ctx)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("reload: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("reload: %v, want an error with %q", err, tc.wantErr)
			}
			if got := len(h.m.Config().Projects); got != tc.projects {
				t.Errorf("%d projects in force, want %d", got, tc.projects)
			}
		})
	}
	t.Run("a start without b keeps its jobs and warns", func(t *testing.T) {
		cfg, err := config.Load(writeTemp(t, projectsConfig("a")))
		if err != nil {
			t.Fatal(err)
		}
		logs.take()
		h.opt.Config = cfg
		h.start()
		want := "project b has 6 live jobs"
		if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "the jobs are kept") {
			t.Errorf("the log at start lacks %q:\n%s", want, logs.String())
		}
		if s := h.job(ids[0]).State; s != "queued" {
			t.Errorf("job %d %s, want queued (kept)", ids[0], s)
		}
	})
}

// writeTemp writes text to a configuration file of its own.
func writeTemp(t *testing.T, text string) string {
	path := filepath.Join(t.TempDir(), "allot.yaml")
	writeConfig(t, path, text)
	return path
}

// TestOutsideJobHoldsItsGPUs: a job left out of the snapshot while it
// runs (the master started without its project) keeps its GPUs: the
// core sees its node with that many slots less, so no other job is
// planned onto them (the applier refused such a start, and the core
// planned it again every pass), and a job that fits in the rest starts.
func TestOutsideJobHoldsItsGPUs(t *testing.T) {
	withFile, path := withConfigFile(t, projectsConfig("a", "b"))
	h := newHarness(t, withFile)
	a := h.agent("n1", 2)
	held := h.submit(`{"name": "held", "project": "b", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	h.sync(a)
	if s := h.job(held).State; s != "running" {
		t.Fatalf("job %d %s, want running", held, s)
	}
	writeConfig(t, path, projectsConfig("a"))
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h.opt.Config = cfg
	h.start()
	a.Master = h.srv.URL
	if _, err := a.Rejoin(h.ctx); err != nil {
		t.Fatal(err)
	}
	big := h.submit(`{"name": "big", "project": "a", "entrypoint": "x", "resources": {"slots": 2}}`)
	small := h.submit(`{"name": "small", "project": "a", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	h.sync(a)
	cases := []struct {
		name string
		id   int64
		want string
	}{
		{"the job left out still runs", held, "running"},
		{"a job needing its GPU waits", big, "queued"},
		{"a job fitting in the rest starts", small, "running"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if s := h.job(tc.id).State; s != tc.want {
				t.Errorf("job %d %s, want %s", tc.id, s, tc.want)
			}
		})
	}
	used := map[int]int64{}
	for _, id := range []int64{held, big, small} {
		for _, tk := range h.job(id).TaskList {
			for _, at := range tk.Attempts {
				if at.EndedAt != nil {
					continue
				}
				for _, p := range at.Placement {
					for _, g := range p.GPUs {
						if other, ok := used[g]; ok {
							t.Errorf("GPU %d held by jobs %d and %d", g, other, id)
						}
						used[g] = id
					}
				}
			}
		}
	}
}
