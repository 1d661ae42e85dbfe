package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestRegisterPool: an agent that names no pool joins the configuration's
// default_pool (allot agent's --pool defaults to none, so an agent needs
// no flag to join a cluster whose default pool is not "default"); a node
// rule pins its node whatever the agent asks; a pool the configuration
// lacks is refused, naming the pools it has.
func TestRegisterPool(t *testing.T) {
	cfg, err := config.Parse("pools.yaml", []byte(`default_pool: gpu
pools:
  - {name: gpu, policy: fifo}
  - {name: cpu, policy: fifo}
nodes:
  - {name: pinned, pool: cpu}
`))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg))
	cases := []struct {
		name, node, pool string
		want             string // the node's pool, or the error's text
		status           int
	}{
		{"no pool: the default pool", "n1", "", "gpu", 200},
		{"a configured pool", "n2", "cpu", "cpu", 200},
		{"a rule pins the node", "pinned", "gpu", "cpu", 200},
		{"a pool the configuration lacks", "n3", "default", `is not configured (pools: gpu, cpu)`, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &mastertest.Agent{Master: h.srv.URL, Name: tc.node, Pool: tc.pool, GPUs: 1,
				Token: h.tokenFor("/api/v1/agents/"+tc.node, nil)}
			_, err := a.Register(h.ctx)
			if tc.status != 200 {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("register: %v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("register: %v", err)
			}
			var nodes []api.Node
			h.do("GET", "/api/v1/nodes", nil, &nodes)
			for _, n := range nodes {
				if n.Name == tc.node && n.Pool != tc.want {
					t.Fatalf("node %s in pool %q, want %q", tc.node, n.Pool, tc.want)
				}
			}
		})
	}
}

// TestUnknownTokenHint: a refused token's 401 tells the reader what to
// do: an agent's operator to give the node a join token, a user to sign
// in again.
func TestUnknownTokenHint(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name, method, path, body, want string
	}{
		{"an agent", "POST", "/api/v1/agents/register", `{"name": "n1", "gpus": []}`, "allot token create --join"},
		{"an agent's sync", "POST", "/api/v1/agents/n1/sync", `{}`, "node credential"},
		{"a user", "GET", "/api/v1/jobs", "", "allot login"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e api.Error
			code := h.doAs("allot_u_notatoken", tc.method, tc.path, tc.body, &e)
			if code != 401 || !strings.Contains(e.Error, tc.want) {
				t.Fatalf("%s %s = %d %q, want 401 with %q", tc.method, tc.path, code, e.Error, tc.want)
			}
		})
	}
}
