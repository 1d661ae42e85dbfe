package master

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestRegisterPool: an agent that names no pool joins the configuration's
// default_pool (allot agent's --pool defaults to none, so an agent needs
// no flag to join a cluster whose default pool is not "default"); a node
// rule pins its node whatever the agent asks, even a pool the
// configuration lacks; such a pool is refused elsewhere, naming the pools
// it has.
func TestRegisterPool(t *testing.T) {
	cfg, err := config.Parse("pools.yaml", []byte(`default_pool: gpu
pools:
  - {name: gpu, policy: fifo}
  - {name: cpu, policy: fifo}
nodes:
  - {name: pinned, pool: cpu}
  - {name: pinned2, pool: cpu}
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
		{"a rule pins the node, its agent asking for a pool the configuration lacks", "pinned2", "nosuch", "cpu", 200},
		{"a pool the configuration lacks", "n3", "default", `is not configured (pools: gpu, cpu)`, 400},
		{"a typo of a pool", "n4", "gpuu", `is not configured; did you mean \"gpu\"? (pools: gpu, cpu)`, 400},
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

// TestRegisterReplyPlacement: the registration reply says what the
// master made of the node, so that its agent can tell its admin: the
// pool it joined and whether a node rule pinned it, and, when a rule adds
// labels, the labels the scheduler matches (the rule's over the agent's).
// The node listing says the same.
func TestRegisterReplyPlacement(t *testing.T) {
	cfg, err := config.Parse("pools.yaml", []byte(`default_pool: training
pools:
  - {name: training, policy: fifo}
  - {name: research, policy: fifo}
nodes:
  - {name: pinned, pool: research}
  - {name: labelled, labels: {switch: leaf-9, rack: r1}}
  - {name: both, pool: research, labels: {tier: a}}
`))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg))
	own := map[string]string{"switch": "leaf-3"}
	cases := []struct {
		name, node, pool string
		wantPool         string
		byRule           bool
		wantLabels       map[string]string // the reply's; nil: the agent's stand
		ruleLabels       map[string]string // the node listing's
	}{
		{"no rule", "free", "training", "training", false, nil, nil},
		{"no rule, no pool: the default pool", "bare", "", "training", false, nil, nil},
		{"a rule pinning the pool", "pinned", "training", "research", true, nil, nil},
		{"a rule adding labels", "labelled", "research", "research", false,
			map[string]string{"switch": "leaf-9", "rack": "r1"}, map[string]string{"switch": "leaf-9", "rack": "r1"}},
		{"a rule pinning the pool and adding labels", "both", "training", "research", true,
			map[string]string{"switch": "leaf-3", "tier": "a"}, map[string]string{"tier": "a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &mastertest.Agent{Master: h.srv.URL, Name: tc.node, Pool: tc.pool, Labels: own, GPUs: 1,
				Token: h.tokenFor("/api/v1/agents/"+tc.node, nil)}
			reply, err := a.Register(h.ctx)
			if err != nil {
				t.Fatalf("register: %v", err)
			}
			if reply.Pool != tc.wantPool || reply.PoolByRule != tc.byRule || !maps.Equal(reply.Labels, tc.wantLabels) {
				t.Fatalf("reply pool %q by rule %v labels %v, want %q %v %v",
					reply.Pool, reply.PoolByRule, reply.Labels, tc.wantPool, tc.byRule, tc.wantLabels)
			}
			var nodes []api.Node
			if code := h.do("GET", "/api/v1/nodes", nil, &nodes); code != 200 {
				t.Fatalf("GET nodes: %d", code)
			}
			i := slices.IndexFunc(nodes, func(n api.Node) bool { return n.Name == tc.node })
			if i < 0 {
				t.Fatalf("node %s not listed", tc.node)
			}
			n := nodes[i]
			labels := tc.wantLabels
			if labels == nil {
				labels = own
			}
			if n.Pool != tc.wantPool || n.PoolByRule != tc.byRule || !maps.Equal(n.Labels, labels) || !maps.Equal(n.RuleLabels, tc.ruleLabels) {
				t.Fatalf("node pool %q by rule %v labels %v rule labels %v, want %q %v %v %v",
					n.Pool, n.PoolByRule, n.Labels, n.RuleLabels, tc.wantPool, tc.byRule, labels, tc.ruleLabels)
			}
			// The agent's own labels go along with the rule's, to show
			// what the rule overrode.
			var agentLabels map[string]string
			if tc.ruleLabels != nil {
				agentLabels = own
			}
			if !maps.Equal(n.AgentLabels, agentLabels) {
				t.Fatalf("node agent labels %v, want %v", n.AgentLabels, agentLabels)
			}
		})
	}
}
