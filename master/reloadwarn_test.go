package master

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestReloadWarnsOfEmptyPool: a reload that moves the last node out of a
// pool whose jobs run on it and wait in it is taken, but its reply and
// the master's log say that the pool has no node now and which jobs are
// in it, and how; allot pools' view then names the node its job holds
// GPUs on in another pool, and the pool the node moved into the GPUs
// batch's job holds on it (guests: trial 29g G6). A reload that leaves
// every pool with live jobs a node warns of nothing.
func TestReloadWarnsOfEmptyPool(t *testing.T) {
	logs := &lockedBuffer{}
	const pools = "pools:\n  - {name: train, policy: fifo}\n  - {name: batch, policy: fifo}\ndefault_pool: train\n"
	withFile, path := withConfigFile(t, pools+"nodes:\n  - {name: gpu-b, pool: batch}\n")
	h := newHarness(t, withFile, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	gpuA, gpuB := h.agent("gpu-a", 1), h.agent("gpu-b", 1)
	running := h.submit(`{"name": "running", "pool": "batch", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	h.sync(gpuA, gpuB)
	queued := h.submit(`{"name": "queued", "pool": "batch", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	if s := h.job(running).State; s != "running" {
		t.Fatalf("job %d %s, want running", running, s)
	}
	want := fmt.Sprintf("pool batch has no node now; jobs %d (running on gpu-b, now in train) and %d (queued) are in it",
		running, queued)
	cases := []struct {
		name, file string
		warnings   []string
		elsewhere  []api.PoolNode
		guests     []api.PoolGuest // train's
	}{
		{"the same configuration", pools + "nodes:\n  - {name: gpu-b, pool: batch}\n", nil, nil, nil},
		{"gpu-b moved to train", pools + "nodes:\n  - {name: gpu-b, pool: train}\n", []string{want},
			[]api.PoolNode{{Node: "gpu-b", Pool: "train"}}, []api.PoolGuest{{Node: "gpu-b", Pool: "batch", GPUs: 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			var reply api.Reload
			if code := h.do("POST", "/api/v1/config/reload", nil, &reply); code != 200 {
				t.Fatalf("POST /config/reload: %d", code)
			}
			if !slices.Equal(reply.Warnings, tc.warnings) {
				t.Errorf("warnings %q, want %q", reply.Warnings, tc.warnings)
			}
			for _, w := range tc.warnings {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("the master's log lacks %q:\n%s", w, logs.String())
				}
			}
			var ps []api.Pool
			if code := h.do("GET", "/api/v1/pools", nil, &ps); code != 200 {
				t.Fatalf("GET /pools: %d", code)
			}
			i := slices.IndexFunc(ps, func(p api.Pool) bool { return p.Name == "batch" })
			if i < 0 || !slices.Equal(ps[i].Elsewhere, tc.elsewhere) {
				t.Errorf("pools %+v: want batch with its job's GPUs elsewhere on %v", ps, tc.elsewhere)
			}
			i = slices.IndexFunc(ps, func(p api.Pool) bool { return p.Name == "train" })
			if i < 0 || !slices.Equal(ps[i].Guests, tc.guests) {
				t.Errorf("pools %+v: want train with batch's GPUs on it %v", ps, tc.guests)
			}
		})
	}
}
