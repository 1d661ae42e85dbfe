package config

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
)

func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "examples", "cluster.yaml")); err == nil {
		f.Add(data)
	}
	for _, src := range []string{
		"",
		"~",
		"{}",
		"- a\n",
		tree,
		onePool,
		"pools: [{name: a, policy: backfill, reservations: conservative}]\ndefault_pool: a\n",
		"projects: [{name: a, parent: b}, {name: b, parent: a}]\n",
		"projects: [{name: default}, {name: x, parent: x}]\n",
		"projects: [{name: default, quota: 1}, {name: c, parent: default, quota: 9223372036854775807}, {name: e, parent: default, quota: 9223372036854775807}]\n",
		"users: [{name: u, projects: [default, default]}]\n",
		"a: &a {<<: *a}\n",
		"pools: &p [*p]\n",
		"nodes: [{name: n, labels: {~: 1}}]\n",
		"agent_timeout: 1e30\n",
		fairShare,
		"qos: []\ndefault_qos: a\n",
		"decay: {per_period: 1, half_life: 1}\n",
		"licenses: {a: 1, a: 2}\n",
		"pools: [{name: default, policy: multifactor, multifactor: {age: 1e308, max_age: 1}}]\n",
	} {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			if c != nil {
				t.Errorf("Parse returned a config along with an error")
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error does not start with the file name: %v", err)
			}
			return
		}
		checkInvariants(t, c)
	})
}

// checkInvariants asserts what doc.go promises of a successful Parse.
func checkInvariants(t *testing.T, c *Config) {
	t.Helper()
	if len(c.Pools) == 0 || len(c.Projects) == 0 || c.AgentTimeout <= 0 {
		t.Fatalf("config without pools, projects or a timeout: %+v", c)
	}
	if c.PoolIndex(c.DefaultPool) < 0 || !c.IsLeaf(c.DefaultProject) {
		t.Errorf("defaults %q, %q do not exist or take no jobs", c.DefaultPool, c.DefaultProject)
	}
	for _, p := range c.Pools {
		mf := p.Policy == sched.PolicyMultifactor
		ok := slices.Contains(policies, p.Policy) && slices.Contains(placements, p.Placement) &&
			(p.Policy == sched.PolicyBackfill || (mf && p.Backfill)) == (p.Reservations != "") &&
			(!p.Backfill || p.Policy == sched.PolicyPriority || mf) &&
			(p.Policy != sched.PolicyQuota || p.Preemption) &&
			mf == (p.Multifactor != sched.Multifactor{}) &&
			p.Grace >= 0 && p.ZeroSlotLimit >= 0 && p.KillGrace >= 0 && p.MinRunTime >= 0 && c.PoolIndex(p.Name) >= 0
		if !ok {
			t.Errorf("pool breaks an invariant: %+v", p)
		}
	}
	for _, n := range c.Nodes {
		if n.Pool != "" && c.PoolIndex(n.Pool) < 0 {
			t.Errorf("node %q in unknown pool %q", n.Name, n.Pool)
		}
	}
	quotas := map[string]int{}
	for _, p := range c.Projects {
		if p.Quota < 0 || p.Limit < 0 || (p.Limit > 0 && p.Limit < p.Quota) || !(p.OverQuotaWeight > 0) || math.IsInf(p.OverQuotaWeight, 0) ||
			p.PreemptBudget < 0 || !(p.Shares > 0) || math.IsInf(p.Shares, 0) {
			t.Errorf("project breaks an invariant: %+v", p)
		}
		if p.Parent != "" {
			quotas[p.Parent] += p.Quota
		}
	}
	for name, sum := range quotas {
		if p, _ := c.Project(name); sum > p.Quota || sum < 0 {
			t.Errorf("project %q: children's quotas %d exceed %d", name, sum, p.Quota)
		}
	}
	// The core accepts the pools (multifactor weights included), the
	// project tree (no cycle, no dangling parent), the licenses and the
	// QOS list.
	snap := &sched.Snapshot{Pools: c.SchedPools(), Projects: c.SchedProjects(), Licenses: c.SchedLicenses(), QOS: c.SchedQOS()}
	if _, err := sched.Schedule(snap); err != nil {
		t.Errorf("sched rejects the config: %v", err)
	}
	if err := c.SchedDecay().Validate(); err != nil {
		t.Errorf("decay %+v: %v", c.Decay, err)
	}
	if (c.DefaultQOS == "") != (len(c.QOS) == 0) || (c.DefaultQOS != "" && c.QOSIndex(c.DefaultQOS) < 0) {
		t.Errorf("default QOS %q of %+v", c.DefaultQOS, c.QOS)
	}
	for i, q := range c.QOS {
		if q.Priority < 0 || c.QOSIndex(q.Name) != i {
			t.Errorf("QOS %+v is negative or not unique", q)
		}
	}
	for i, l := range c.Licenses {
		if l.Total < 0 || c.LicenseIndex(l.Name) != i {
			t.Errorf("license %+v is negative or not unique", l)
		}
	}
	for _, u := range c.Users {
		if !c.IsLeaf(u.DefaultProject) || !c.userMay(u, u.DefaultProject) {
			t.Errorf("user %q: bad default project %q", u.Name, u.DefaultProject)
		}
		for _, pr := range u.Projects {
			if c.ProjectIndex(pr) < 0 {
				t.Errorf("user %q: unknown project %q", u.Name, pr)
			}
		}
	}
}
