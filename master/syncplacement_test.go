package master

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestSyncPlacement: when a reload changes where a node rule puts a node
// (its pool, or the labels it sets), the node's agent hears of it on its
// next sync, and not again on the one after; a reload that changes
// nothing of the node, and a registration since the change (its reply
// says the placement), send nothing; an agent whose long poll is held
// hears of the move at once.
func TestSyncPlacement(t *testing.T) {
	h, write := placementHarness(t)
	own := map[string]string{"switch": "leaf-3", "rack": "r1"}
	agents := map[string]*mastertest.Agent{}
	for _, name := range []string{"n1", "n2"} {
		agents[name] = &mastertest.Agent{Master: h.srv.URL, Name: name, Pool: "training", Labels: own, GPUs: 1,
			Token: h.tokenFor("/api/v1/agents/"+name, nil)}
		if _, err := agents[name].Register(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	const pin = "  - {name: n1, pool: research}\n"
	cases := []struct {
		name, rules string
		register    bool // n1 registers again after the reload
		want        *api.NodePlacement
	}{
		{"no rule: nothing", "", false, nil},
		{"a rule pins n1 to research", pin, false, &api.NodePlacement{Pool: "research", PoolByRule: true}},
		{"the same configuration again: nothing", pin, false, nil},
		{"the rule sets labels", "  - {name: n1, pool: research, labels: {switch: leaf-9, tier: a}}\n", false,
			&api.NodePlacement{Pool: "research", PoolByRule: true, Labels: map[string]string{"switch": "leaf-9", "rack": "r1", "tier": "a"}}},
		{"the rule drops its pool", "  - {name: n1, labels: {switch: leaf-9, tier: a}}\n", false,
			&api.NodePlacement{Pool: "training", Labels: map[string]string{"switch": "leaf-9", "rack": "r1", "tier": "a"}}},
		{"the rule goes", "", false, &api.NodePlacement{Pool: "training"}},
		{"a registration since the move has told it", pin, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.rules)
			if err := h.m.Reload(h.ctx); err != nil {
				t.Fatalf("reload: %v", err)
			}
			if tc.register {
				reply, err := agents["n1"].Register(h.ctx)
				if err != nil || reply.Pool != "research" {
					t.Fatalf("register: pool %q, %v; want research", reply.Pool, err)
				}
			}
			for i, want := range []*api.NodePlacement{tc.want, nil} {
				if got := syncPlacement(t, h, agents["n1"], 0); !equalPlacement(got, want) {
					t.Errorf("n1's sync %d: placement %s, want %s", i+1, placementText(got), placementText(want))
				}
			}
			if got := syncPlacement(t, h, agents["n2"], 0); got != nil {
				t.Errorf("n2, which no rule names: placement %s, want none", placementText(got))
			}
		})
	}
	t.Run("a held sync answers the move at once", func(t *testing.T) {
		done := make(chan api.SyncReply, 1)
		go func() {
			reply, _ := agents["n1"].Sync(h.ctx, 60) // an error leaves no placement
			done <- reply
		}()
		for held := false; !held; {
			h.m.lock()
			held = h.m.nodes["n1"].polling > 0
			h.m.unlock()
			if !held {
				if h.ctx.Err() != nil {
					t.Fatal("n1's sync was never held")
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		write("  - {name: n1, pool: research, labels: {tier: b}}\n")
		start := time.Now()
		if err := h.m.Reload(h.ctx); err != nil {
			t.Fatalf("reload: %v", err)
		}
		select {
		case reply := <-done:
			got := reply.Placement
			want := &api.NodePlacement{Pool: "research", PoolByRule: true, Labels: map[string]string{"switch": "leaf-3", "rack": "r1", "tier": "b"}}
			if !equalPlacement(got, want) {
				t.Errorf("placement %s, want %s", placementText(got), placementText(want))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the held sync did not answer within 10s of the reload (%s)", time.Since(start))
		}
	})
}

// placementHarness is a master on a configuration file of pools training
// (the default) and research, which write rewrites with the given node
// rules (none for ""), for Master.Reload.
func placementHarness(t *testing.T) (*harness, func(rules string)) {
	path := filepath.Join(t.TempDir(), "allot.yaml")
	const pools = "default_pool: training\npools:\n  - {name: training, policy: fifo}\n  - {name: research, policy: fifo}\n"
	write := func(rules string) {
		t.Helper()
		src := pools
		if rules != "" {
			src += "nodes:\n" + rules
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg), func(o *Options) {
		o.ConfigPath = path
		o.SyncWait = time.Minute // a held sync waits for the wake-up
	})
	return h, write
}

// syncPlacement syncs agent a, holding the sync up to waitS, and returns
// its reply's placement.
func syncPlacement(t *testing.T, h *harness, a *mastertest.Agent, waitS int) *api.NodePlacement {
	reply, err := a.Sync(h.ctx, waitS)
	if err != nil {
		t.Errorf("sync %s: %v", a.Name, err)
	}
	return reply.Placement
}

func equalPlacement(a, b *api.NodePlacement) bool {
	if a == nil || b == nil {
		return a == b
	}
	return samePlacement(*a, *b)
}

func placementText(p *api.NodePlacement) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("pool %q by rule %v labels %v", p.Pool, p.PoolByRule, p.Labels)
}
