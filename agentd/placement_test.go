package agentd

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestPlacementNotes: the agent says where the master's node rule put the
// node when that is not what --pool and --label asked for, and nothing
// when the master agrees or does not say.
func TestPlacementNotes(t *testing.T) {
	own := map[string]string{"switch": "leaf-3"}
	rule := "the node rule for gpu-01 in the master's configuration"
	cases := []struct {
		name   string
		pool   string
		labels map[string]string
		reply  api.NodePlacement
		want   []placementNote
	}{
		{name: "the master agrees", pool: "training", labels: own,
			reply: api.NodePlacement{Pool: "training"}},
		{name: "a master that does not say", pool: "training", labels: own},
		{name: "a rule pins the pool --pool names", pool: "training", labels: own,
			reply: api.NodePlacement{Pool: "training", PoolByRule: true}},
		{name: "a rule pins another pool", pool: "training", labels: own,
			reply: api.NodePlacement{Pool: "research", PoolByRule: true},
			want: []placementNote{{slog.LevelWarn,
				"the master places this node in pool research (" + rule + "), not training as --pool says"}}},
		{name: "another pool without a rule", pool: "training",
			reply: api.NodePlacement{Pool: "research"},
			want:  []placementNote{{slog.LevelWarn, "the master places this node in pool research, not training as --pool says"}}},
		{name: "no --pool: the default pool", reply: api.NodePlacement{Pool: "default"}},
		{name: "no --pool: a rule's pool", reply: api.NodePlacement{Pool: "research", PoolByRule: true},
			want: []placementNote{{slog.LevelInfo, "the master places this node in pool research (" + rule + ")"}}},
		{name: "a rule overrides and adds labels", pool: "training", labels: map[string]string{"switch": "leaf-3", "rack": "r1"},
			reply: api.NodePlacement{Pool: "training", Labels: map[string]string{"switch": "leaf-9", "rack": "r1", "tier": "a", "gpu": "h100"}},
			want: []placementNote{
				{slog.LevelWarn, rule + " overrides labels that --label gives: switch=leaf-9, not leaf-3"},
				{slog.LevelInfo, rule + " adds labels: gpu=h100,tier=a"}}},
		{name: "a rule repeats the agent's label", pool: "training", labels: own,
			reply: api.NodePlacement{Pool: "training", Labels: map[string]string{"switch": "leaf-3"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := placementNotes("gpu-01", tc.pool, tc.labels, tc.reply)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("notes:\n%v\nwant:\n%v", got, tc.want)
			}
		})
	}
}

// TestRegisteredLog: the registration's line names the pool the master
// put the node in, and a warning follows when a node rule put it
// elsewhere than --pool says.
func TestRegisteredLog(t *testing.T) {
	fm := newFakeMaster(t)
	fm.syncWaitS = 0
	fm.placement = api.NodePlacement{Pool: "research", PoolByRule: true, Labels: map[string]string{"switch": "leaf-3", "tier": "a"}}
	a, buf := loggedAgent(t, fm)
	if err := (&registrar{a: a}).register(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`level=INFO msg="registered with the master" node=gpu-01 pool=research running=0 sync_wait_s=0 commands=0 labels="switch=leaf-3,tier=a"`,
		`level=WARN msg="the master places this node in pool research (the node rule for gpu-01 in the master's configuration), not training as --pool says" node=gpu-01`,
		`level=INFO msg="the node rule for gpu-01 in the master's configuration adds labels: tier=a" node=gpu-01`,
	}
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s\nwant %d lines", buf.String(), len(want))
	}
	for i, w := range want {
		if _, line, _ := strings.Cut(lines[i], " "); line != w { // cut the time
			t.Errorf("line %d:\n%s\nwant:\n%s", i, line, w)
		}
	}
}

// TestMovedNotes: a placement that a sync reply brings (a reload of the
// master's configuration changed the node rule) is logged as what
// changed, then as at registration where it parts from --pool and
// --label.
func TestMovedNotes(t *testing.T) {
	own := map[string]string{"switch": "leaf-3"}
	rule := "the node rule for gpu-01 in the master's configuration"
	training := api.NodePlacement{Pool: "training"}
	cases := []struct {
		name     string
		pool     string
		was, now api.NodePlacement
		want     []placementNote
	}{
		{name: "a rule moves the node away from --pool", pool: "training", was: training,
			now: api.NodePlacement{Pool: "research", PoolByRule: true},
			want: []placementNote{
				{slog.LevelInfo, "the master moved this node to pool research (it was in training)"},
				{slog.LevelWarn, "the master places this node in pool research (" + rule + "), not training as --pool says"}}},
		{name: "the rule goes: back to --pool", pool: "training", was: api.NodePlacement{Pool: "research", PoolByRule: true},
			now:  training,
			want: []placementNote{{slog.LevelInfo, "the master moved this node to pool training (it was in research)"}}},
		{name: "from a pool unheard of", pool: "training", now: training,
			want: []placementNote{{slog.LevelInfo, "the master moved this node to pool training"}}},
		{name: "a rule overrides and adds labels", pool: "training", was: training,
			now: api.NodePlacement{Pool: "training", Labels: map[string]string{"switch": "leaf-9", "tier": "a"}},
			want: []placementNote{
				{slog.LevelInfo, "the master changed this node's labels to switch=leaf-9,tier=a"},
				{slog.LevelWarn, rule + " overrides labels that --label gives: switch=leaf-9, not leaf-3"},
				{slog.LevelInfo, rule + " adds labels: tier=a"}}},
		{name: "the rule's labels go: --label's stand", pool: "training",
			was:  api.NodePlacement{Pool: "training", Labels: map[string]string{"switch": "leaf-9"}},
			now:  training,
			want: []placementNote{{slog.LevelInfo, "the master changed this node's labels to switch=leaf-3"}}},
		{name: "a rule pins the pool it was in", pool: "training", was: training,
			now:  api.NodePlacement{Pool: "training", PoolByRule: true},
			want: []placementNote{{slog.LevelInfo, rule + " now pins pool training"}}},
		{name: "a rule no longer pins the pool", was: api.NodePlacement{Pool: "research", PoolByRule: true},
			now:  api.NodePlacement{Pool: "research"},
			want: []placementNote{{slog.LevelInfo, rule + " no longer pins pool research"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := movedNotes("gpu-01", tc.pool, own, tc.was, tc.now)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("notes:\n%v\nwant:\n%v", got, tc.want)
			}
		})
	}
}

// TestSyncPlacementLog: a sync reply that says the master moved the
// node is logged, and the agent keeps the new placement; a sync reply
// without one changes neither.
func TestSyncPlacementLog(t *testing.T) {
	fm := newFakeMaster(t)
	fm.syncWaitS = 0
	fm.placement = api.NodePlacement{Pool: "training"}
	a, buf := loggedAgent(t, fm)
	ctx := context.Background()
	if err := (&registrar{a: a}).register(ctx); err != nil {
		t.Fatal(err)
	}
	if got := a.Placement(); got.Pool != "training" || got.PoolByRule {
		t.Fatalf("placement after registering: %+v, want pool training", got)
	}
	moved := api.NodePlacement{Pool: "research", PoolByRule: true, Labels: map[string]string{"switch": "leaf-3", "tier": "a"}}
	fm.mu.Lock()
	fm.movedTo = &moved
	fm.mu.Unlock()
	buf.Reset()
	if _, err := a.syncOnce(ctx, 0); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`level=INFO msg="the master moved this node to pool research (it was in training)" node=gpu-01`,
		`level=WARN msg="the master places this node in pool research (the node rule for gpu-01 in the master's configuration), not training as --pool says" node=gpu-01`,
		`level=INFO msg="the node rule for gpu-01 in the master's configuration adds labels: tier=a" node=gpu-01`,
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s\nwant %d lines", buf.String(), len(want))
	}
	for i, w := range want {
		if _, line, _ := strings.Cut(lines[i], " "); line != w { // cut the time
			t.Errorf("line %d:\n%s\nwant:\n%s", i, line, w)
		}
	}
	check := func() {
		t.Helper()
		if got := a.Placement(); got.Pool != moved.Pool || !got.PoolByRule || !maps.Equal(got.Labels, moved.Labels) {
			t.Fatalf("placement %+v, want %+v", got, moved)
		}
	}
	check()
	buf.Reset()
	if _, err := a.syncOnce(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("a sync reply without a placement logged:\n%s", buf.String())
	}
	check()
}

// loggedAgent is an agent of fm, gpu-01 asking for pool training and
// switch=leaf-3, whose log is buf.
func loggedAgent(t *testing.T, fm *fakeMaster) (*Agent, *bytes.Buffer) {
	t.Helper()
	cfg := testConfig(t, fm, t.TempDir())
	cfg.Name, cfg.Pool, cfg.Labels = "gpu-01", "training", map[string]string{"switch": "leaf-3"}
	buf := &bytes.Buffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(buf, nil))
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, buf
}
