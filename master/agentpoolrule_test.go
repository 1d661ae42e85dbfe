package master

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestRuleRemovedAgentPool: a node rule pins a node whatever pool its
// agent asked for, and the node record keeps the agent's: when a reload
// (or a master restarted on the changed file) removes the rule, the node
// goes back to its agent's pool, or to the default pool when the agent
// asked for none, or for one the configuration lacks (which a pinned
// node may: the view says why it is in the default pool).
func TestRuleRemovedAgentPool(t *testing.T) {
	const pools = "default_pool: gpu\npools:\n  - {name: gpu, policy: fifo}\n  - {name: a, policy: fifo}\n  - {name: b, policy: fifo}\n"
	pinned := pools + "nodes:\n  - {name: n1, pool: b}\n  - {name: n2, pool: b}\n  - {name: n3, pool: b}\n"
	// n1's agent asks for a, n2's for none, n3's for x, which no
	// configuration has.
	want := map[string]string{"n1": "a", "n2": "gpu", "n3": "gpu"}
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			withFile, path := withConfigFile(t, pinned)
			h := newHarness(t, withFile)
			for name, pool := range map[string]string{"n1": "a", "n2": "", "n3": "x"} {
				a := &mastertest.Agent{Master: h.srv.URL, Name: name, Pool: pool, GPUs: 1,
					Token: h.tokenFor("/api/v1/agents/"+name, nil)}
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatalf("register %s with pool %q under its rule: %v", name, pool, err)
				}
			}
			if got := nodePools(h); got["n1"] != "b" || got["n2"] != "b" || got["n3"] != "b" {
				t.Fatalf("pinned nodes in pools %v, want b", got)
			}
			if err := os.WriteFile(path, []byte(pools), 0o644); err != nil {
				t.Fatal(err)
			}
			if restart {
				h.opt.Config = mustConfig(t, pools)
				h.start()
			} else if err := h.m.Reload(h.ctx); err != nil {
				t.Fatalf("reload without the rule: %v", err)
			}
			var nodes []api.Node
			h.do("GET", "/api/v1/nodes", nil, &nodes)
			for _, n := range nodes {
				if n.Pool != want[n.Name] || n.PoolByRule {
					t.Errorf("node %s in pool %q (by rule %v), want %q", n.Name, n.Pool, n.PoolByRule, want[n.Name])
				}
				if n.Name == "n3" && (n.AgentPool != "x" || !strings.Contains(n.PoolNote, `"x"`)) {
					t.Errorf("node n3: agent pool %q, note %q; want x and a note naming it", n.AgentPool, n.PoolNote)
				}
			}
		})
	}
}

// nodePools is each node's pool as the master has it.
func nodePools(h *harness) map[string]string {
	h.m.lock()
	defer h.m.unlock()
	out := map[string]string{}
	for name, n := range h.m.nodes {
		out[name] = n.pool
	}
	return out
}

// TestReloadDropsAgentPool: a reload that removes a node's rule and
// drops the pool its agent asked for is refused, naming the node, as one
// that drops an unpinned node's pool is (TestReloadDroppingANodesPool);
// one that keeps the rule, or keeps that pool, goes through.
func TestReloadDropsAgentPool(t *testing.T) {
	const both = "pools:\n  - {name: default, policy: fifo}\n  - {name: a, policy: fifo}\n  - {name: b, policy: fifo}\n"
	const noA = "pools:\n  - {name: default, policy: fifo}\n  - {name: b, policy: fifo}\n"
	const pin = "nodes:\n  - {name: n1, pool: b}\n"
	withFile, path := withConfigFile(t, both+pin)
	h := newHarness(t, withFile)
	a := &mastertest.Agent{Master: h.srv.URL, Name: "n1", Pool: "a", GPUs: 1, Token: h.tokenFor("/api/v1/agents/n1", nil)}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	checkReloads(t, h, path, []reloadCase{
		{"a dropped, the rule removed", noA, "1 node still in pools that the new configuration drops (n1 in a)", "b"},
		{"a dropped, the rule kept", noA + pin, "", "b"},
		{"a back, the rule removed", both, "", "a"},
	})
}
