package master

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
)

// usageFailStore fails reading usage records while failing is set.
type usageFailStore struct {
	store.Store
	failing atomic.Bool
}

func (s *usageFailStore) Usage(ctx context.Context, f store.UsageFilter) ([]store.Usage, error) {
	if s.failing.Load() {
		return nil, errors.New("usage table unreadable")
	}
	return s.Store.Usage(ctx, f)
}

// TestReloadFailingUsageChangesNothing: a reload that changes the decay
// must count usage again; when the store cannot give it, the reload
// fails and nothing of the new file is in force, neither for the loop
// nor for the readers of Config.
func TestReloadFailingUsageChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allot.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const before = "pools:\n  - {name: default, policy: priority}\n"
	write(before)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var st *usageFailStore
	h := newHarness(t, withConfig(cfg), func(o *Options) {
		o.ConfigPath = path
		st = &usageFailStore{Store: o.Store}
		o.Store = st
	})
	cases := []struct {
		name, file string
		fail       bool
		wantPolicy string
	}{
		{"usage unreadable: the old configuration stays", "pools:\n  - {name: default, policy: fifo}\ndecay: {half_life: 24h}\n", true, "priority"},
		{"usage readable: the new configuration applies", "pools:\n  - {name: default, policy: fifo}\ndecay: {half_life: 24h}\n", false, "fifo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.file)
			st.failing.Store(tc.fail)
			err := h.m.Reload(h.ctx)
			if tc.fail != (err != nil) {
				t.Fatalf("reload: %v, want failure %v", err, tc.fail)
			}
			if got := string(h.m.Config().Pools[0].Policy); got != tc.wantPolicy {
				t.Fatalf("Config(): policy %s, want %s", got, tc.wantPolicy)
			}
			h.m.lock()
			got := string(h.m.cfg.Pools[0].Policy)
			h.m.unlock()
			if got != tc.wantPolicy {
				t.Fatalf("the loop's configuration: policy %s, want %s", got, tc.wantPolicy)
			}
			var pools []api.Pool
			h.do("GET", "/api/v1/pools", nil, &pools)
			if pools[0].Policy != tc.wantPolicy {
				t.Fatalf("GET /pools: policy %s, want %s", pools[0].Policy, tc.wantPolicy)
			}
			if tc.fail && !strings.Contains(err.Error(), "unchanged") {
				t.Fatalf("reload error %q does not say the configuration in force is unchanged", err)
			}
		})
	}
}

// TestReloadDroppingANodesPool: a reload that drops the pool of a node
// that is up is refused, naming the node, as registration refuses a pool
// the configuration lacks; a node rule that pins the node to a remaining
// pool lets it through.
func TestReloadDroppingANodesPool(t *testing.T) {
	withFile, path := withConfigFile(t, "pools:\n  - {name: default, policy: fifo}\n  - {name: old, policy: fifo}\n")
	h := newHarness(t, withFile)
	a := h.agent("n1", 1)
	a.Pool = "old"
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	checkReloads(t, h, path, []reloadCase{
		{"the node's pool dropped", "pools:\n  - {name: default, policy: fifo}\n",
			`1 node still in pools that the new configuration drops (n1 in old)`, "old"},
		{"the node pinned to a remaining pool", "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n1, pool: default}\n",
			"", "default"},
	})
}

// reloadCase is a configuration file a reload reads, the error's text
// it must give ("" for success), and node n1's pool afterwards.
type reloadCase struct {
	name, file string
	want       string
	pool       string
}

// checkReloads writes each case's file at path in turn, reloads h's
// master and checks the error and where n1 is, as GET /nodes says.
func checkReloads(t *testing.T, h *harness, path string, cases []reloadCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			err := h.m.Reload(h.ctx)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("reload: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("reload: %v, want an error with %q", err, tc.want)
			}
			var nodes []api.Node
			h.do("GET", "/api/v1/nodes", nil, &nodes)
			if len(nodes) != 1 || nodes[0].Name != "n1" || nodes[0].Pool != tc.pool {
				t.Fatalf("nodes %+v, want n1 in %s", nodes, tc.pool)
			}
		})
	}
}

// TestReloadDroppingAJobsPool: a reload that drops the pool of live jobs
// is refused, naming every such job (the first five, in id order) and
// what to do, not one job at a time; once they have ended it goes
// through.
func TestReloadDroppingAJobsPool(t *testing.T) {
	withFile, path := withConfigFile(t, "pools:\n  - {name: default, policy: fifo}\n  - {name: old, policy: fifo}\n")
	h := newHarness(t, withFile)
	h.submit(jobSpec("stays", 1, ""))
	var old []int64
	for i := range 6 {
		var reply api.SubmitReply
		spec := fmt.Sprintf(`{"name": "old-%d", "pool": "old", "entrypoint": "true"}`, i)
		if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", spec, &reply); code != http.StatusCreated {
			t.Fatalf("submit to old: status %d", code)
		}
		old = append(old, reply.ID)
	}
	writeConfig(t, path, "pools:\n  - {name: default, policy: fifo}\n")
	cases := []struct {
		name string
		kill []int64
		want string
	}{
		{"six live jobs in old", nil,
			"6 live jobs still in pools that the new configuration drops (job 2 in old, job 3 in old, job 4 in old, " +
				"job 5 in old, job 6 in old, and 1 more): keep the pool until they end, or kill them (allot job kill ID)"},
		{"one left", old[:5], "1 live job still in pools that the new configuration drops (job 7 in old)"},
		{"none left", old[5:], ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, id := range tc.kill {
				if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code/100 != 2 {
					t.Fatalf("kill %d: status %d", id, code)
				}
			}
			err := h.m.Reload(h.ctx)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("reload: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("reload: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestReloadRefusalIsLogged: a reload refused through the API is logged
// by the master, as a SIGHUP's is, so that the log says why the file on
// disk is not in force whoever asked; a reload that goes through logs
// its success.
func TestReloadRefusalIsLogged(t *testing.T) {
	logs := &lockedBuffer{}
	withFile, path := withConfigFile(t, "pools:\n  - {name: default, policy: fifo}\n")
	h := newHarness(t, withFile, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	cases := []struct {
		name, file string
		status     int
		want       string
	}{
		{"an invalid file", "pools:\n  - {name: default, policy: fifoo}\n", 400,
			`level=ERROR msg="configuration reload failed" err="reload ` + path},
		{"a valid one", "pools:\n  - {name: default, policy: priority}\n", 200, `msg="configuration reloaded"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			if code := h.do("POST", "/api/v1/config/reload", nil, nil); code != tc.status {
				t.Fatalf("POST /config/reload: %d, want %d", code, tc.status)
			}
			if !strings.Contains(logs.String(), tc.want) {
				t.Fatalf("the master's log lacks %q:\n%s", tc.want, logs.String())
			}
		})
	}
}
