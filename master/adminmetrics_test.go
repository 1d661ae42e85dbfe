package master

import (
	"os"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestAdminMetrics: /metrics tells an admin's alerts what the log alone
// said: that the last configuration reload (a SIGHUP has no one to
// answer) failed, and which nodes are drained.
func TestAdminMetrics(t *testing.T) {
	const good = "pools:\n  - {name: default, policy: priority}\n"
	withFile, path := withConfigFile(t, good)
	h := newHarness(t, withFile)
	h.agent("n1", 1)
	h.agent("n2", 1)
	h.submit(jobSpec("a", 1, ""))
	h.step()
	cases := []struct {
		name string
		act  func()
		want []string
	}{
		{"at start", func() {}, []string{`allot_config_reloads_total{result="ok"} 0`,
			`allot_config_reloads_total{result="failed"} 0`, "allot_config_last_reload_ok 1",
			`allot_nodes_drained{drain="draining"} 0`, `allot_nodes_drained{drain="drained"} 0`}},
		{"a failed reload", func() {
			if err := os.WriteFile(path, []byte("pools:\n  - {name: default, policy: lottery}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := h.m.Reload(h.ctx); err == nil {
				t.Fatal("a reload of a bad file succeeded")
			}
		}, []string{`allot_config_reloads_total{result="failed"} 1`, "allot_config_last_reload_ok 0"}},
		{"a good reload after it", func() {
			if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := h.m.Reload(h.ctx); err != nil {
				t.Fatal(err)
			}
		}, []string{`allot_config_reloads_total{result="ok"} 1`, `allot_config_reloads_total{result="failed"} 1`,
			"allot_config_last_reload_ok 1"}},
		{"drained nodes", func() {
			var n api.Node
			for _, name := range []string{"n1", "n2"} {
				if code := h.do("POST", "/api/v1/nodes/"+name+"/drain", api.NodeDrainRequest{Reason: "test"}, &n); code != 200 {
					t.Fatalf("drain %s: %d", name, code)
				}
			}
		}, []string{`allot_nodes_drained{drain="draining"} 1`, `allot_nodes_drained{drain="drained"} 1`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.act()
			_, body, _ := h.raw("GET", "/metrics", "")
			for _, w := range tc.want {
				if !strings.Contains(body, w+"\n") {
					t.Errorf("/metrics lacks %q", w)
				}
			}
		})
	}
}
