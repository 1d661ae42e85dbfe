package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// mustParse parses src or fails the test.
func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	c, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestDefault(t *testing.T) {
	c := Default()
	want := &Config{
		DefaultPool:    "default",
		DefaultProject: "default",
		AgentTimeout:   30 * time.Second,
		Cluster: spec.Cluster[Pool]{
			LostNodeGrace: 5 * time.Minute,
			Pools: []Pool{{Pool: spec.Pool{Name: "default", Policy: sched.PolicyPriority, Preemption: true, Backfill: true,
				Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace}, Grace: 30 * time.Second, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
			Projects: []Project{{Name: "default", OverQuotaWeight: 1, Shares: 1}},
			QOS:      []spec.QOS{{Name: "normal"}, {Name: "high", Priority: 10}, {Name: "emergency", Priority: 100, Preempt: true}},
			Decay:    spec.Decay{Period: 86400, HalfLife: 7 * 86400},
		},
		DefaultQOS: "normal",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Default() = %+v\nwant %+v", c, want)
	}
	// An empty mapping is the default configuration, read from a file.
	want.File = "test.yaml"
	if got := mustParse(t, "{}\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("Parse({}) = %+v\nwant %+v", got, want)
	}
}

func TestParseFilledDefaults(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Pool
	}{
		{"fifo", "{name: default, policy: fifo}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"backfill gets easy", "{name: default, policy: backfill}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"conservative", "{name: default, policy: backfill, reservations: conservative, placement: spread}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyBackfill, Reservations: sched.ReserveConservative, Placement: sched.PlaceSpread, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"quota preempts", "{name: default, policy: quota, grace: 90}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyQuota, Preemption: true, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1}, Grace: 90 * time.Second, GraceLine: 1, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"quota with preemption true", "{name: default, policy: quota, preemption: true}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyQuota, Preemption: true, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"priority with backfill takes grace", "{name: default, policy: priority, backfill: true, grace: 0, zero_slot_limit: 0, kill_grace: 0}",
			Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyPriority, Backfill: true, Placement: sched.PlaceBinpack, Line: 1},
				GraceLine: 1, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"kill grace", "{name: default, policy: fifo, kill_grace: 2m}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: 2 * time.Minute, Line: 1}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"kill grace in seconds", "{name: default, policy: fifo, kill_grace: 5}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: 5 * time.Second, Line: 1}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
		{"exit actions", "{name: default, policy: priority, preemption: true, on_preempt: fail, max_retries: 2}",
			Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyPriority, Preemption: true, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1},
				Grace: DefaultGrace, OnPreempt: spec.OnPreemptFail, MaxRetries: 2}},
		// A pool that never preempts takes them too: they govern its lost
		// attempts and owners' requeues (trial 2026-11-29d D10).
		{"exit actions on backfill", "{name: default, policy: backfill, on_preempt: fail, max_retries: 1}",
			Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1},
				Grace: DefaultGrace, OnPreempt: spec.OnPreemptFail, MaxRetries: 1}},
		{"max_retries 0", "{name: default, policy: quota, max_retries: 0}",
			Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyQuota, Preemption: true, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1},
				Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: 0}},
		{"fair share", "{name: default, policy: fair_share, preemption: true, grace: 1h}", Pool{Pool: spec.Pool{Name: "default", Policy: sched.PolicyFairShare, Preemption: true, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 1}, Grace: time.Hour, GraceLine: 1, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, "pools: ["+tt.src+"]\n")
			if len(c.Pools) != 1 || !reflect.DeepEqual(c.Pools[0], tt.want) {
				t.Errorf("pools = %+v\nwant [%+v]", c.Pools, tt.want)
			}
		})
	}
}

func TestParseFull(t *testing.T) {
	src := `
default_pool: gpu
default_project: d
agent_timeout: 1m
lost_node_grace: 90s
history_retention: 2160h
pools:
  - {name: gpu, policy: priority, preemption: true}
  - {name: cpu, policy: fifo}
nodes:
  - {name: n1, pool: gpu, labels: {rack: 12}}
  - {name: n2}
projects:
  - {name: a, parent: lab, quota: 3, over_quota_weight: 2.5}
  - {name: lab, quota: 8, limit: 10}
  - {name: b, parent: lab, quota: 5}
  - {name: d}
users:
  - {name: ana, projects: [lab]}
  - {name: bo, projects: [b, d], default_project: b}
  - {name: cy}
`
	c := mustParse(t, src)
	want := &Config{
		DefaultPool:      "gpu",
		DefaultProject:   "d",
		AgentTimeout:     time.Minute,
		HistoryRetention: 90 * 24 * time.Hour,
		Cluster: spec.Cluster[Pool]{
			LostNodeGrace: 90 * time.Second,
			Pools: []Pool{
				{Pool: spec.Pool{Name: "gpu", Policy: sched.PolicyPriority, Preemption: true, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 8}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap},
				{Pool: spec.Pool{Name: "cpu", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack, ZeroSlotLimit: 100, KillGrace: DefaultKillGrace, Line: 9}, Grace: DefaultGrace, OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap},
			},
			Projects: []Project{
				{Name: "a", Parent: "lab", Quota: 3, OverQuotaWeight: 2.5, Shares: 3, Line: 14},
				{Name: "lab", Quota: 8, OverQuotaWeight: 8, Limit: 10, Shares: 8, Line: 15},
				{Name: "b", Parent: "lab", Quota: 5, OverQuotaWeight: 5, Shares: 5, Line: 16},
				{Name: "d", OverQuotaWeight: 1, Shares: 1, Line: 17},
			},
			QOS:   spec.DefaultQOS(),
			Decay: spec.DefaultDecay,
		},
		Nodes: []NodeRule{{Node: spec.Node{Name: "n1", Labels: map[string]string{"rack": "12"}}, Pool: "gpu"}, {Node: spec.Node{Name: "n2"}}},
		Users: []User{
			// ana may not use d, so her default is the first project
			// without sub-projects under lab.
			{Name: "ana", Projects: []string{"lab"}, DefaultProject: "a", Shares: 1},
			{Name: "bo", Projects: []string{"b", "d"}, DefaultProject: "b", Shares: 1},
			{Name: "cy", DefaultProject: "d", Shares: 1},
		},
		DefaultQOS: "normal",
		File:       "test.yaml",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", c, want)
	}
}

func TestParseAnchorsAndNumbers(t *testing.T) {
	src := `
pools:
  - &base {name: default, policy: priority, preemption: true, grace: 1m}
  - {<<: *base, name: second}
projects:
  - {name: 2024}
default_project: 2024
`
	c := mustParse(t, src)
	if len(c.Pools) != 2 || c.Pools[1].Name != "second" || !c.Pools[1].Preemption || c.Pools[1].Grace != time.Minute {
		t.Errorf("merged pool = %+v", c.Pools)
	}
	if c.DefaultProject != "2024" || c.Projects[0].Name != "2024" {
		t.Errorf("numeric project name: %+v, default %q", c.Projects, c.DefaultProject)
	}
}

func TestLoad(t *testing.T) {
	c, err := Load(filepath.Join("..", "examples", "cluster.yaml"))
	if err != nil {
		t.Fatalf("examples/cluster.yaml: %v", err)
	}
	seen := map[sched.Policy]bool{}
	for _, p := range c.Pools {
		seen[p.Policy] = true
	}
	for _, pol := range policies {
		if !seen[pol] {
			t.Errorf("examples/cluster.yaml has no %s pool", pol)
		}
	}
	if len(c.Users) == 0 || len(c.Nodes) == 0 || len(c.Projects) < 3 {
		t.Errorf("examples/cluster.yaml should show every section: %+v", c)
	}

	_, err = Load(filepath.Join(t.TempDir(), "absent.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("pools: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := Load(bad); !errors.As(err, &e) || e.File != bad || e.Line != 1 {
		t.Errorf("Load of a bad file: %v, want an *Error naming %s line 1", err, bad)
	}
}

// tree is a config with a project tree used by the lookup tests.
const tree = `
default_pool: gpu
default_project: d
pools:
  - {name: gpu, policy: quota}
  - {name: cpu, policy: fifo}
nodes:
  - {name: n1, pool: cpu, labels: {rack: r9, os: linux}}
  - {name: n2, labels: {rack: r2}}
projects:
  - {name: d}
  - {name: lab, quota: 8, limit: 12, over_quota_weight: 3}
  - {name: a, parent: lab, quota: 3}
  - {name: b, parent: lab, quota: 5}
users:
  - {name: ana, projects: [lab]}
  - {name: bo, projects: [b, d]}
`

func TestLookups(t *testing.T) {
	c := mustParse(t, tree)
	if p, ok := c.Pool("cpu"); !ok || p.Policy != sched.PolicyFIFO {
		t.Errorf("Pool(cpu) = %+v, %v", p, ok)
	}
	if _, ok := c.Pool("nope"); ok || c.PoolIndex("nope") != -1 {
		t.Error("Pool(nope) found")
	}
	if p, ok := c.Project("lab"); !ok || p.Limit != 12 {
		t.Errorf("Project(lab) = %+v, %v", p, ok)
	}
	if _, ok := c.Project("nope"); ok {
		t.Error("Project(nope) found")
	}
	if u, ok := c.User("ana"); !ok || u.DefaultProject != "a" {
		t.Errorf("User(ana) = %+v, %v", u, ok)
	}
	if n, ok := c.Node("n1"); !ok || n.Pool != "cpu" {
		t.Errorf("Node(n1) = %+v, %v", n, ok)
	}
	for name, want := range map[string]bool{"d": true, "lab": false, "a": true, "nope": false} {
		if got := c.IsLeaf(name); got != want {
			t.Errorf("IsLeaf(%s) = %v, want %v", name, got, want)
		}
	}

	pools := c.SchedPools()
	wantPools := []sched.Pool{
		{Name: "gpu", Policy: sched.PolicyQuota, Preemption: true, Placement: sched.PlaceBinpack},
		{Name: "cpu", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack},
	}
	if !reflect.DeepEqual(pools, wantPools) {
		t.Errorf("SchedPools = %+v\nwant %+v", pools, wantPools)
	}
	projects := c.SchedProjects()
	wantProjects := []sched.Project{
		{Name: "d", Parent: -1, OverQuotaWeight: 1},
		{Name: "lab", Parent: -1, Quota: 8, Limit: 12, OverQuotaWeight: 3},
		{Name: "a", Parent: 1, Quota: 3, OverQuotaWeight: 3},
		{Name: "b", Parent: 1, Quota: 5, OverQuotaWeight: 5},
	}
	if !reflect.DeepEqual(projects, wantProjects) {
		t.Errorf("SchedProjects = %+v\nwant %+v", projects, wantProjects)
	}
	// The core accepts what the config produces.
	if _, err := sched.Schedule(&sched.Snapshot{Pools: pools, Projects: projects}); err != nil {
		t.Errorf("sched rejects the config's snapshot: %v", err)
	}
}

func TestResolve(t *testing.T) {
	c := mustParse(t, tree)
	tests := []struct {
		name, user, requested string
		want                  string
		err                   error    // nil, ErrUnknown or ErrNotAllowed
		says                  []string // in the error
	}{
		{"unlisted user, no project", "zed", "", "d", nil, nil},
		{"unlisted user may use any leaf", "zed", "b", "b", nil, nil},
		{"listed user's default", "ana", "", "a", nil, nil},
		{"listed user, config default", "bo", "", "d", nil, nil},
		{"under a listed parent", "ana", "b", "b", nil, nil},
		{"not the user's", "ana", "d", "", ErrNotAllowed, []string{
			"users: section of the configuration file test.yaml restricts ana to lab", "whatever the user's roles",
			"add d to ana's projects there"}},
		{"not a leaf", "zed", "lab", "", ErrNotAllowed, nil},
		{"unknown", "ana", "nope", "", ErrUnknown, []string{`unknown project "nope" (projects: `}},
		{"a typo", "ana", "lba", "", ErrUnknown, []string{`unknown project "lba"; did you mean "lab"? (projects: `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ResolveProject(tt.user, tt.requested)
			if err != nil && strings.HasSuffix(err.Error(), ": not allowed") {
				t.Errorf("ResolveProject(%q, %q) error %q ends in the sentinel's words", tt.user, tt.requested, err)
			}
			for _, want := range tt.says {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("ResolveProject(%q, %q) error %v, want it to say %q", tt.user, tt.requested, err, want)
				}
			}
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("ResolveProject(%q, %q) = %q, %v; want %q, %v", tt.user, tt.requested, got, err, tt.want, tt.err)
			}
		})
	}

	if p, err := c.ResolvePool(""); p != "gpu" || err != nil {
		t.Errorf("ResolvePool(\"\") = %q, %v", p, err)
	}
	if p, err := c.ResolvePool("cpu"); p != "cpu" || err != nil {
		t.Errorf("ResolvePool(cpu) = %q, %v", p, err)
	}
	// A job file's unknown names get the configuration file's "did you
	// mean" (config check gives it for the same typo in a node rule).
	for _, tt := range []struct{ pool, err string }{
		{"tpu", `unknown pool "tpu"; did you mean "gpu"? (pools: gpu, cpu)`},
		{"fpga", `unknown pool "fpga" (pools: gpu, cpu)`},
	} {
		if _, err := c.ResolvePool(tt.pool); !errors.Is(err, ErrUnknown) || err.Error() != tt.err {
			t.Errorf("ResolvePool(%s) error = %v, want %s", tt.pool, err, tt.err)
		}
	}
}

func TestNodePool(t *testing.T) {
	c := mustParse(t, tree)
	tests := []struct {
		name, node, requested string
		agent                 map[string]string
		pool                  string
		labels                map[string]string
		err                   bool
	}{
		{"pinned wins over the agent", "n1", "gpu", map[string]string{"rack": "r1", "gpu": "h100"}, "cpu",
			map[string]string{"rack": "r9", "os": "linux", "gpu": "h100"}, false},
		{"labels only", "n2", "cpu", nil, "cpu", map[string]string{"rack": "r2"}, false},
		{"unknown node, default pool", "n3", "", nil, "gpu", nil, false},
		{"unknown node, agent's pool", "n3", "cpu", map[string]string{"x": "y"}, "cpu", map[string]string{"x": "y"}, false},
		{"agent asks for an unknown pool", "n3", "tpu", nil, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool, labels, err := c.NodePool(tt.node, tt.requested, tt.agent)
			if pool != tt.pool || !reflect.DeepEqual(labels, tt.labels) || (err != nil) != tt.err {
				t.Errorf("NodePool = %q, %v, %v; want %q, %v, error %v", pool, labels, err, tt.pool, tt.labels, tt.err)
			}
		})
	}
	// The agent's map is not changed.
	agent := map[string]string{"rack": "r1"}
	if _, _, err := c.NodePool("n1", "", agent); err != nil || agent["rack"] != "r1" || len(agent) != 1 {
		t.Errorf("NodePool changed the agent's labels: %v, %v", agent, err)
	}
}

// TestForNonAdmin (trial 29e E9): a refusal whose fix is an admin's
// (the users: section) tells a user who is no admin to ask one, and is
// still ErrNotAllowed; other errors are as they were.
func TestForNonAdmin(t *testing.T) {
	c := mustParse(t, tree)
	_, restricted := c.ResolveProject("ana", "d")
	_, unknown := c.ResolveProject("ana", "nope")
	_, notLeaf := c.ResolveProject("zed", "lab")
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"the users: section", restricted, "restricts ana to lab, whatever the user's roles; ask an admin to add d to ana's projects there and reload the configuration (allot config reload)"},
		{"unknown: as it was", unknown, unknown.Error()},
		{"not a leaf: as it was", notLeaf, notLeaf.Error()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ForNonAdmin(tt.err)
			if !strings.Contains(got.Error(), tt.want) || errors.Is(got, ErrNotAllowed) != errors.Is(tt.err, ErrNotAllowed) {
				t.Errorf("ForNonAdmin(%v) = %v; want it to say %q", tt.err, got, tt.want)
			}
		})
	}
	if got := ForNonAdmin(restricted).Error(); strings.Contains(got, "drop the projects: list") {
		t.Errorf("a user's refusal %q offers the admin's other way", got)
	}
	if strings.Contains(restricted.Error(), "ask an admin") || !strings.Contains(restricted.Error(), "; add d to ana's projects") ||
		!strings.Contains(restricted.Error(), "or drop the projects: list") {
		t.Errorf("the admin's refusal %q: want the change itself", restricted)
	}
}
