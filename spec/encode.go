package spec

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
)

// The encoder writes the spec's types back in a dialect, so that a
// program that builds a file (the master's export of its history as a
// scenario) marshals the same types the parser reads, and reading the
// file back gives the same values. It writes only fields the dialect
// accepts for the value at hand: an option a pool's policy would ignore,
// or a multifactor setting without its weight in a scenario, would be
// rejected on reading. Durations are whole seconds.

// Mapping is a YAML mapping built key by key, in the order written.
type Mapping struct{ Node *yaml.Node }

// NewMapping starts an empty block mapping.
func NewMapping() Mapping {
	return Mapping{Node: &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}}
}

// Set appends key with the value v, encoded as YAML (v may be a
// *yaml.Node).
func (m Mapping) Set(key string, v any) {
	val, ok := v.(*yaml.Node)
	if !ok {
		val = encode(v)
	}
	// Encoded, a key that reads as another type (a license named "null"
	// or "1") is quoted.
	m.Node.Content = append(m.Node.Content, encode(key), val)
}

// encode is v as a YAML node. Only the encoder's own values (numbers,
// strings, booleans, string maps) come here, which always encode.
func encode(v any) *yaml.Node {
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		panic(fmt.Sprintf("spec: encode %v: %v", v, err))
	}
	return n
}

// SetIf sets key only when cond holds: the field is left out otherwise,
// for its default or because the dialect would reject it.
func (m Mapping) SetIf(cond bool, key string, v any) {
	if cond {
		m.Set(key, v)
	}
}

// Seq is a YAML sequence of nodes.
func Seq(items []*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// PoolNode starts the mapping of a pool with the spec's fields: name,
// policy and the options its policy takes. The format adds its own.
func (d Dialect) PoolNode(pl Pool) Mapping {
	m := NewMapping()
	m.Set("name", pl.Name)
	m.Set("policy", string(pl.Policy))
	switch pl.Policy {
	case sched.PolicyPriority, sched.PolicyFairShare, sched.PolicyMultifactor:
		// Quota pools always preempt, and say nothing about it.
		m.SetIf(pl.Preemption, "preemption", true)
	}
	backfills := pl.Policy == sched.PolicyPriority || pl.Policy == sched.PolicyMultifactor
	m.SetIf(backfills && pl.Backfill, "backfill", true)
	m.SetIf(pl.Reservations != "", "reservations", string(pl.Reservations))
	m.SetIf(pl.Placement != "", "placement", string(pl.Placement))
	m.SetIf(pl.MinRunTime > 0, "min_run_time", int64(pl.MinRunTime/time.Second))
	m.SetIf(pl.ZeroSlotLimit != DefaultZeroSlotLimit, "zero_slot_limit", pl.ZeroSlotLimit)
	m.SetIf(pl.KillGrace != DefaultKillGrace, "kill_grace", int64(pl.KillGrace/time.Second))
	if pl.Policy == sched.PolicyMultifactor {
		m.Set("multifactor", d.multifactorNode(pl.Multifactor).Node)
	}
	return m
}

// multifactorNode writes a multifactor block: the positive weights, and
// the settings the dialect takes with them (in scenario files, a setting
// exactly with its weight).
func (d Dialect) multifactorNode(mf sched.Multifactor) Mapping {
	m := NewMapping()
	for _, w := range []struct {
		key string
		v   float64
	}{{"age", mf.Age}, {"fair_share", mf.FairShare}, {"job_size", mf.JobSize}, {"qos", mf.QOS}, {"pool", mf.Pool}} {
		m.SetIf(w.v > 0, w.key, w.v)
	}
	m.SetIf(mf.MaxAge > 0 && (!d.Scenario || mf.Age > 0), "max_age", mf.MaxAge)
	m.SetIf(mf.FairShareMode != "" && (!d.Scenario || mf.FairShare > 0), "fair_share_mode", string(mf.FairShareMode))
	m.SetIf(mf.FavorSmall && (!d.Scenario || mf.JobSize > 0), "favor_small", true)
	m.SetIf(mf.PoolPriority > 0, "pool_priority", mf.PoolPriority)
	return m
}

// ProjectNode writes a project.
func (d Dialect) ProjectNode(pr Project) Mapping {
	m := NewMapping()
	m.Set("name", pr.Name)
	m.SetIf(pr.Parent != "", "parent", pr.Parent)
	m.Set("quota", pr.Quota)
	m.Set("over_quota_weight", pr.OverQuotaWeight)
	m.SetIf(pr.Limit > 0, "limit", pr.Limit)
	m.SetIf(pr.PreemptBudget > 0, "preempt_budget", pr.PreemptBudget)
	m.SetIf(d.ProjectShares, "shares", pr.Shares)
	m.SetIf(len(pr.QOS) > 0, "qos", pr.QOS)
	m.SetIf(pr.MaxPriorityClass != "", "max_priority_class", pr.MaxPriorityClass)
	return m
}

// ClusterNodes writes the cluster's sections into the top-level mapping
// top, with pool writing each pool of the format's type: pools, then
// projects, licenses, QOS levels and the decay, each left out when empty
// (the QOS list, when the dialect's default would stand in for it). The
// decay is written when it is set (Period > 0): a format whose files
// reject an unread decay zeroes it first.
func ClusterNodes[P any](d Dialect, top Mapping, c Cluster[P], pool func(P) *yaml.Node) {
	pools := make([]*yaml.Node, len(c.Pools))
	for i, pl := range c.Pools {
		pools[i] = pool(pl)
	}
	top.Set("pools", Seq(pools))
	if len(c.Projects) > 0 {
		projects := make([]*yaml.Node, len(c.Projects))
		for i, pr := range c.Projects {
			projects[i] = d.ProjectNode(pr).Node
		}
		top.Set("projects", Seq(projects))
	}
	if len(c.Licenses) > 0 {
		lic := NewMapping()
		for _, l := range c.Licenses {
			lic.Set(l.Name, l.Total)
		}
		top.Set("licenses", lic.Node)
	}
	if len(c.QOS) > 0 || d.DefaultQOS {
		levels := make([]*yaml.Node, len(c.QOS))
		for i, q := range c.QOS {
			m := NewMapping()
			m.Set("name", q.Name)
			m.SetIf(q.Priority > 0, "priority", q.Priority)
			m.SetIf(q.Preempt, "preempt", true)
			levels[i] = m.Node
		}
		top.Set("qos", Seq(levels))
	}
	if c.Decay.Period > 0 {
		m := NewMapping()
		m.Set("period", c.Decay.Period)
		m.SetIf(c.Decay.PerPeriod > 0, "per_period", c.Decay.PerPeriod)
		m.SetIf(c.Decay.HalfLife > 0, "half_life", c.Decay.HalfLife)
		top.Set("decay", m.Node)
	}
}
