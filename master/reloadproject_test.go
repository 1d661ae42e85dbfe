package master

import (
	"net/http"
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
