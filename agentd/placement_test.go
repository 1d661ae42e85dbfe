package agentd

import (
	"bytes"
	"context"
	"log/slog"
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
		reply  api.RegisterReply
		want   []placementNote
	}{
		{name: "the master agrees", pool: "training", labels: own,
			reply: api.RegisterReply{Pool: "training"}},
		{name: "a master that does not say", pool: "training", labels: own},
		{name: "a rule pins the pool --pool names", pool: "training", labels: own,
			reply: api.RegisterReply{Pool: "training", PoolByRule: true}},
		{name: "a rule pins another pool", pool: "training", labels: own,
			reply: api.RegisterReply{Pool: "research", PoolByRule: true},
			want: []placementNote{{slog.LevelWarn,
				"the master places this node in pool research (" + rule + "), not training as --pool says"}}},
		{name: "another pool without a rule", pool: "training",
			reply: api.RegisterReply{Pool: "research"},
			want:  []placementNote{{slog.LevelWarn, "the master places this node in pool research, not training as --pool says"}}},
		{name: "no --pool: the default pool", reply: api.RegisterReply{Pool: "default"}},
		{name: "no --pool: a rule's pool", reply: api.RegisterReply{Pool: "research", PoolByRule: true},
			want: []placementNote{{slog.LevelInfo, "the master places this node in pool research (" + rule + ")"}}},
		{name: "a rule overrides and adds labels", pool: "training", labels: map[string]string{"switch": "leaf-3", "rack": "r1"},
			reply: api.RegisterReply{Pool: "training", Labels: map[string]string{"switch": "leaf-9", "rack": "r1", "tier": "a", "gpu": "h100"}},
			want: []placementNote{
				{slog.LevelWarn, rule + " overrides labels that --label gives: switch=leaf-9, not leaf-3"},
				{slog.LevelInfo, rule + " adds labels: gpu=h100,tier=a"}}},
		{name: "a rule repeats the agent's label", pool: "training", labels: own,
			reply: api.RegisterReply{Pool: "training", Labels: map[string]string{"switch": "leaf-3"}}},
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
	fm.placement = api.RegisterReply{Pool: "research", PoolByRule: true, Labels: map[string]string{"switch": "leaf-3", "tier": "a"}}
	cfg := testConfig(t, fm, t.TempDir())
	cfg.Name, cfg.Pool, cfg.Labels = "gpu-01", "training", map[string]string{"switch": "leaf-3"}
	var buf bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.register(context.Background()); err != nil {
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
