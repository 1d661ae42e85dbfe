package master

import (
	"context"
	"errors"
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
