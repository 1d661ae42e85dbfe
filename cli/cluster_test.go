package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestProjectsQuotaPools: allot projects compares quota with the use in
// quota pools only, pool by pool when there are several, and still shows
// the use in every pool under USED.
// TestProjectsWideQOS: -o wide adds the QOS levels each project's jobs
// may name, a parent's list named as such; MAX PRIORITY names the
// parent whose max_priority_class a subproject inherits.
func TestProjectsWideQOS(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	f.projects = []api.Project{
		{Name: "org", Quota: 4, OverQuotaWeight: 1, QOS: []string{"normal", "high"}, MaxPriorityClass: "NORMAL"},
		{Name: "team", Parent: "org", Quota: 2, OverQuotaWeight: 1, QOS: []string{"normal", "high"}, QOSFrom: "org",
			MaxPriorityClass: "NORMAL", MaxPriorityClassFrom: "org"},
		{Name: "open", Quota: 1, OverQuotaWeight: 1},
	}
	runCLICases(t, f, []cliCase{{name: "wide", args: []string{"projects", "-o", "wide"},
		out: `NAME  PARENT  QUOTA  USED  IN QUOTA POOLS  OVER  LIMIT  WEIGHT  QUEUED  RUNNING  MAX PRIORITY    QOS
org   -       4      0     -               -     -      1       0       0        NORMAL          normal,high
team  org     2      0     -               -     -      1       0       0        NORMAL (org's)  normal,high (org's)
open  -       1      0     -               -     -      1       0       0        -               any
`}})
}

func TestProjectsQuotaPools(t *testing.T) {
	fixClock(t)
	one := []api.Project{
		// Its quota in the quota pool and 3 GPUs in a FIFO pool: within.
		{Name: "nlp", Quota: 4, OverQuotaWeight: 1, Used: 7, UsedInQuotaPools: 4,
			QuotaPools: []api.ProjectPoolUse{{Pool: "train", Used: 4}}},
		{Name: "vision", Quota: 2, OverQuotaWeight: 1, Used: 5, UsedInQuotaPools: 5, OverQuota: 3,
			QuotaPools: []api.ProjectPoolUse{{Pool: "train", Used: 5}}},
		// Past its quota only by what LOW work borrows: within.
		{Name: "speech", Quota: 2, OverQuotaWeight: 1, Used: 5, UsedInQuotaPools: 5,
			QuotaPools: []api.ProjectPoolUse{{Pool: "train", Used: 5, Borrowed: 3}}},
	}
	several := []api.Project{
		{Name: "dept", Quota: 6, OverQuotaWeight: 1, Used: 12, UsedInQuotaPools: 8,
			QuotaPools: []api.ProjectPoolUse{{Pool: "train", Used: 6}, {Pool: "eval", Used: 2}}},
	}
	cases := []struct {
		name     string
		projects []api.Project
		out      string
	}{
		{"one quota pool", one, `NAME    PARENT  QUOTA  USED  IN QUOTA POOLS  OVER  LIMIT  WEIGHT  QUEUED  RUNNING  MAX PRIORITY
nlp     -       4      7     4               -     -      1       0       0        -
vision  -       2      5     5               3     -      1       0       0        -
speech  -       2      5     5(3 borrowed)   -     -      1       0       0        -
`},
		{"several quota pools", several, `NAME  PARENT  QUOTA  USED  IN QUOTA POOLS  OVER  LIMIT  WEIGHT  QUEUED  RUNNING  MAX PRIORITY
dept  -       6      12    train=6,eval=2  -     -      1       0       0        -
`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.projects = tc.projects
			runCLICases(t, f, []cliCase{{name: "table", args: []string{"projects"}, out: tc.out}})
		})
	}
}

func TestClusterLists(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "nodes", args: []string{"nodes"}, out: `NAME   POOL      STATE         GPU   SLOTS  LABELS             LAST SEEN  REASON
dgx-1  research  up            h100  8/8    rack=r1,switch=s1  5s         -
dgx-2  research  lost,drained  h100  0/8    -                  3h         bad fan
`},
		{name: "pools", args: []string{"pools"}, out: `NAME      POLICY    OPTIONS                      GRACE  NODES  SLOTS  QUEUED  RUNNING
research  priority  preemption,backfill,binpack  2m     2      8/16   1       2
batch     fifo      -                            30s    0      0/0    1       0

batch: no node is up in the pool; its 1 queued job waits until one is
`},
		{name: "projects", args: []string{"projects"}, out: `NAME    PARENT  QUOTA  USED  IN QUOTA POOLS  OVER  LIMIT  WEIGHT  QUEUED  RUNNING  MAX PRIORITY
ml      -       24     8     -               -     40     1       2       2        -
vision  ml      16     8     -               -     -      2       1       2        -
nlp     ml      8      0     -               -     -      1       1       0        -
`},
		{name: "projects yaml", args: []string{"projects", "-o", "yaml"}, out: `- name: ml
  quota: 24
  over_quota_weight: 1
  limit: 40
  used: 8
  queued_jobs: 2
  running_tasks: 2
  used_in_quota_pools: 0
  over_quota: 0
- name: vision
  parent: ml
  quota: 16
  over_quota_weight: 2
  used: 8
  queued_jobs: 1
  running_tasks: 2
  used_in_quota_pools: 0
  over_quota: 0
- name: nlp
  parent: ml
  quota: 8
  over_quota_weight: 1
  used: 0
  queued_jobs: 1
  running_tasks: 0
  used_in_quota_pools: 0
  over_quota: 0
`},
		{name: "nodes wide", args: []string{"nodes", "-o", "wide"}, out: `NAME   POOL      STATE         GPU   SLOTS  LABELS             LAST SEEN  REASON   VERSION  REGISTERED           DRAINED                      NODE RULE
dgx-1  research  up            h100  8/8    rack=r1,switch=s1  5s         -        v1.2.0   2024-05-01 09:00:00  -                            pool (agent's: batch), switch=s1
dgx-2  research  lost,drained  h100  0/8    -                  3h         bad fan  -        -                    2024-05-01 08:00:00 by root  -
`},
		{name: "pools wide", args: []string{"pools", "-o", "wide"}, out: `NAME      POLICY    OPTIONS                      GRACE  NODES  SLOTS  QUEUED  RUNNING  RESERVATIONS                            BACKFILL WINDOW
research  priority  preemption,backfill,binpack  2m     2      8/16   1       2        job 5 at 2024-05-01 10:40:00 (8 slots)  2 slots for 40m
batch     fifo      -                            30s    0      0/0    1       0        -                                       0 slots

batch: no node is up in the pool; its 1 queued job waits until one is
`},
		{name: "bad output", args: []string{"nodes", "-o", "xml"}, err: `--output: expected one of table, wide, json, yaml, got "xml"`},
		{name: "arguments", args: []string{"pools", "x"}, err: `allot pools: unexpected argument "x": it takes no arguments (allot pools)`},
	})

	out, _, err := runAt(t, f, "nodes", "-o", "json")
	var nodes []api.Node
	if err != nil || json.Unmarshal([]byte(out), &nodes) != nil || len(nodes) != 2 || nodes[0].Labels["rack"] != "r1" {
		t.Errorf("nodes -o json: %v\n%s", err, out)
	}
	// An empty list is [] in JSON, not null.
	f.pools = nil
	if out, _, err := runAt(t, f, "pools", "-o", "json"); err != nil || out != "[]\n" {
		t.Errorf("empty pools -o json = %q, %v", out, err)
	}
}

// TestPoolsNotes: under allot pools' table, a note says why a pool's
// SLOTS reads "1/0" (its job runs on a node a reload moved to another
// pool), why its queued jobs wait (no node is up in it), and what
// waits in running jobs, which QUEUED leaves out; a pool that needs
// none gets no note.
func TestPoolsNotes(t *testing.T) {
	pool := func(name string, nodes, slots, used, queued int, away ...api.PoolNode) api.Pool {
		return api.Pool{Name: name, Policy: "fifo", GraceS: 30, Nodes: nodes, Slots: slots, Used: used, QueuedJobs: queued,
			Elsewhere: away}
	}
	table := `NAME   POLICY  OPTIONS  GRACE  NODES  SLOTS  QUEUED  RUNNING
`
	for _, tc := range []struct {
		name string
		p    api.Pool
		want string
	}{
		{"a pool with nodes", pool("train", 1, 4, 1, 2), table + `train  fifo    -        30s    1      1/4    2       0
`},
		{"a reload moved its last node away under a running job", pool("batch", 0, 0, 1, 2, api.PoolNode{Node: "gpu-b", Pool: "train"}),
			table + `batch  fifo    -        30s    0      1/0    2       0

batch: its jobs run on gpu-b (now in train), moved out of the pool by a configuration reload; SLOTS counts the GPUs they hold there
batch: no node is up in the pool; its 2 queued jobs wait until one is
`},
		{"a reload moved a busy node in (trial 29g G6)", func() api.Pool {
			p := pool("q", 3, 12, 9, 1)
			p.Guests = []api.PoolGuest{{Node: "fa", Pool: "fs", GPUs: 2}, {Node: "fb", Pool: "fs", GPUs: 1}}
			return p
		}(), `NAME  POLICY  OPTIONS  GRACE  NODES  SLOTS  QUEUED  RUNNING
q     fifo    -        30s    3      12/12  1       0

q: fs's jobs hold 2 GPUs on fa, fs's jobs hold 1 GPU on fb, moved into the pool by a configuration reload while they ran there; SLOTS counts them as used
`},
		{"a lost node, its job waiting", func() api.Pool { p := pool("train", 1, 4, 4, 1); p.LostNodes = 1; return p }(),
			`NAME   POLICY  OPTIONS  GRACE  NODES        SLOTS  QUEUED  RUNNING
train  fifo    -        30s    1 (+1 lost)  4/4    1       0

train: 1 node is not up (lost or left); its slots are not in SLOTS, and a job only it could hold waits for it to come back (allot nodes says since when)
`},
		{"a running experiment's trials wait (trial 29i I1)", func() api.Pool { p := pool("asha", 1, 4, 4, 0); p.WaitingTasks = 12; return p }(),
			`NAME  POLICY  OPTIONS  GRACE  NODES  SLOTS  QUEUED  RUNNING
asha  fifo    -        30s    1      4/4    0       0

asha: 12 tasks wait to start in running jobs (an experiment's trials, an array's tasks), not counted in QUEUED
`},
		{"drained, lost and left, nothing queued", func() api.Pool {
			p := pool("train", 2, 8, 0, 0)
			p.DrainedNodes, p.LostNodes, p.LeftNodes = 1, 2, 1
			return p
		}(), `NAME   POLICY  OPTIONS  GRACE  NODES                            SLOTS  QUEUED  RUNNING
train  fifo    -        30s    2 (1 drained, +2 lost, +1 left)  0/8    0       0
`},
		{"no node up, two lost", func() api.Pool { p := pool("train", 0, 0, 0, 1); p.LostNodes = 2; return p }(),
			`NAME   POLICY  OPTIONS  GRACE  NODES        SLOTS  QUEUED  RUNNING
train  fifo    -        30s    0 (+2 lost)  0/0    1       0

train: 2 nodes are not up (lost or left); their slots are not in SLOTS, and a job only they could hold waits for them to come back (allot nodes says since when)
train: no node is up in the pool; its 1 queued job waits until one is
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := printPools(&b, []api.Pool{tc.p}, false); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("pools:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestAge(t *testing.T) {
	fixClock(t)
	for _, tt := range []struct {
		ago  string
		want string
	}{{"-5s", "0s"}, {"59s", "59s"}, {"61s", "1m"}, {"47h", "47h"}, {"49h", "2d"}} {
		d, _ := time.ParseDuration(tt.ago)
		if got := age(t0.Add(-d)); got != tt.want {
			t.Errorf("age(%s ago) = %s, want %s", tt.ago, got, tt.want)
		}
	}
	if got := gpuRanges([]int{7, 0, 1, 2, 5, 9, 10}); got != "0-2,5,7,9-10" {
		t.Errorf("gpuRanges = %s", got)
	}
}

// TestNodeStates: the STATE column adds what the master knows beyond
// up, lost or left: a leaving agent (api.Node.Leaving) and an admin's
// drain.
func TestNodeStates(t *testing.T) {
	for _, tc := range []struct {
		name string
		node api.Node
		want string
	}{
		{name: "up", node: api.Node{State: "up"}, want: "up"},
		{name: "leaving", node: api.Node{State: "up", Leaving: true}, want: "up,leaving"},
		{name: "leaving while drained", node: api.Node{State: "up", Leaving: true, Drain: "draining"}, want: "up,leaving,draining"},
		{name: "left", node: api.Node{State: "left"}, want: "left"},
		{name: "lost and drained", node: api.Node{State: "lost", Drain: "drained"}, want: "lost,drained"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.node.Name, tc.node.Pool = "n1", "p"
			var b strings.Builder
			if err := printNodes(&b, []api.Node{tc.node}, false); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			if len(lines) < 2 || strings.Fields(lines[1])[2] != tc.want {
				t.Errorf("STATE of %+v: want %q in\n%s", tc.node, tc.want, b.String())
			}
		})
	}
}

// TestNodeReasons: REASON is the admin's drain reason and, for a node
// lost or left, since when, and until when its tasks are held.
func TestNodeReasons(t *testing.T) {
	at := func(s string) *time.Time {
		v, _ := time.Parse(time.RFC3339, s)
		return &v
	}
	lost, until := at("2026-05-01T12:00:00Z"), at("2026-05-01T12:05:00Z")
	for _, tc := range []struct {
		name string
		node api.Node
		want string
	}{
		{name: "up", node: api.Node{State: "up"}, want: "-"},
		{name: "drained", node: api.Node{State: "up", Drain: "drained", DrainReason: "new PSU"}, want: "new PSU"},
		{name: "lost", node: api.Node{State: "lost", LostAt: lost},
			want: "lost at " + formatTime(lost) + ": no word from its agent for agent_timeout"},
		{name: "lost, tasks held", node: api.Node{State: "lost", LostAt: lost, HeldUntil: until},
			want: "lost at " + formatTime(lost) + "; its tasks are held until " + formatTime(until) + " (lost_node_grace)"},
		{name: "drained, then lost", node: api.Node{State: "lost", Drain: "drained", DrainReason: "new PSU", LostAt: lost},
			want: "new PSU; lost at " + formatTime(lost)},
		{name: "left", node: api.Node{State: "left", LostAt: lost}, want: "its agent left at " + formatTime(lost)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeReason(tc.node); !strings.HasPrefix(got, tc.want) {
				t.Errorf("REASON %q, want it to start %q", got, tc.want)
			}
		})
	}
}

// TestListAliases: allot job list and allot node list are allot jobs and
// allot nodes, flags included, for people who know allot user list.
func TestListAliases(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	for _, tc := range []struct {
		name        string
		alias, same []string
	}{
		{"jobs", []string{"job", "list"}, []string{"jobs"}},
		{"jobs with flags", []string{"job", "list", "--all", "-o", "wide"}, []string{"jobs", "--all", "-o", "wide"}},
		{"nodes", []string{"node", "list"}, []string{"nodes"}},
		{"nodes as json", []string{"node", "list", "-o", "json"}, []string{"nodes", "-o", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, _, err := runAt(t, f, tc.same...)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := runAt(t, f, tc.alias...)
			if err != nil || got != want {
				t.Errorf("allot %s = %q, %v; want allot %s's %q", strings.Join(tc.alias, " "), got, err, strings.Join(tc.same, " "), want)
			}
		})
	}
}

// TestExactDuration: configured spans read as their files write them.
func TestExactDuration(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    int64
		want string
	}{
		{"no grace", 0, "0s"},
		{"seconds", 45, "45s"},
		{"minutes", 120, "2m"},
		{"hours and minutes", 5400, "1h30m"},
		{"to the second", 3605, "1h0m5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exactDuration(tc.s); got != tc.want {
				t.Errorf("exactDuration(%d) = %q, want %q", tc.s, got, tc.want)
			}
		})
	}
}

// TestNodesPoolNote: a node in the default pool because its agent asked
// for a pool the configuration lacks says so in the wide listing.
func TestNodesPoolNote(t *testing.T) {
	fixClock(t)
	n := api.Node{Name: "gpu-7", Pool: "default", State: "up", GPUType: "a100", Slots: 4, AgentPool: "tpu",
		PoolNote: "its agent asked for pool \"tpu\", which the configuration does not have", HeartbeatAt: now()}
	for _, c := range []struct {
		name string
		wide bool
		want string
	}{
		{"wide", true, "default (agent's tpu: not configured)"},
		{"table", false, "gpu-7  default  up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := printNodes(&b, []api.Node{n}, c.wide); err != nil || !strings.Contains(b.String(), c.want) {
				t.Fatalf("printNodes: %q (%v), want it to contain %q", b.String(), err, c.want)
			}
		})
	}
}

// TestNodeRule: NODE RULE lists what the rule decided, separated as
// docs/cli.md and the dashboard's node rule column write it.
func TestNodeRule(t *testing.T) {
	tests := []struct {
		name string
		node api.Node
		want string
	}{
		{"no rule", api.Node{Labels: map[string]string{"rack": "r1"}}, "-"},
		{"pins the pool the agent asked for", api.Node{PoolByRule: true}, "pool"},
		{"pins another pool", api.Node{PoolByRule: true, AgentPool: "training"}, "pool (agent's: training)"},
		{"labels only", api.Node{RuleLabels: map[string]string{"zone": "a", "rack": "r7"}}, "rack=r7, zone=a"},
		{"pool and labels", api.Node{PoolByRule: true, AgentPool: "training", RuleLabels: map[string]string{"rack": "r7", "zone": "a"}},
			"pool (agent's: training), rack=r7, zone=a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nodeRule(tt.node); got != tt.want {
				t.Errorf("nodeRule = %q, want %q", got, tt.want)
			}
		})
	}
}
