package spec

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// Cluster is the part of a file that describes a cluster, the same in
// every format: its pools, projects, licenses, QOS levels and usage
// decay. config.Config and scenario.Scenario embed it. P is the format's
// pool type, which embeds Pool and adds what only that format gives a
// pool (the master's grace; a scenario's nodes), so that each format's
// pools stay one list in file order.
type Cluster[P any] struct {
	Pools []P
	// Projects are the quota entities, in file order (see Project).
	Projects []Project
	// Licenses are the cluster-wide counted resources, in file order.
	Licenses []License
	// QOS lists the qualities of service jobs may name, in file order;
	// sched.DefaultQOS without a qos section in dialects with DefaultQOS.
	QOS []QOS
	// Decay is how fast past usage stops counting against an account's
	// fair share: the file's, else DefaultDecay, except in scenario files
	// where no pool reads accounts (no multifactor pool with a fair_share
	// weight), which get the zero Decay.
	Decay Decay
	// DecayPeriodSet says the decay section gives its period (period:),
	// rather than leave it to DefaultDecay's day: Decay.WarningOf calls
	// the period "the default" only when it is not set.
	DecayPeriodSet bool
	// LostNodeGrace is how long the tasks of a lost node that are not
	// preemptible keep their attempt, waiting for the node to come back,
	// before they fail as lost (lifecycle.HoldsThroughLoss); 0 ends them
	// as soon as the node is lost. Whole seconds: the file's
	// lost_node_grace (LostNodeGrace), else DefaultLostNodeGrace for the
	// master and 0 in scenario files.
	LostNodeGrace time.Duration
}

// DefaultLostNodeGrace is the master's lost_node_grace unless configured:
// as long as Kubernetes waits before it evicts the pods of a node that
// stopped answering.
const DefaultLostNodeGrace = 5 * time.Minute

// LostNodeGrace reads the top-level lost_node_grace of f (whole seconds,
// 0 or more), or gives the dialect's default without one. Each format
// calls it where its reading order has the field.
func (p *Parser) LostNodeGrace(f *yamlfield.Fields) time.Duration {
	var secs int64
	if yamlfield.Field(f, "lost_node_grace", &secs, yamlfield.Duration) {
		return time.Duration(secs) * time.Second
	}
	if p.Scenario {
		return 0
	}
	return DefaultLostNodeGrace
}

// Sections is what a format adds to the reading of the cluster's
// sections.
type Sections[P any] struct {
	// Pools reads the pools section (nil when absent) with the format's
	// pool type: each entry with PoolFields, PoolOptions and CheckPolicy,
	// plus the format's own fields.
	Pools func(raw *yaml.Node) []P
	// AfterProjects and AfterQOS, when set, run right after the projects
	// and the QOS levels are read: the format reads there what refers to
	// them, and its own sections that sit there in its reading order, so
	// that errors on one line (a file in flow style) keep their order.
	AfterProjects, AfterQOS func(c *Cluster[P])
}

// ReadCluster reads the cluster's sections of the top-level mapping f, in
// the order later sections need them: pools, projects, licenses, QOS
// levels, then the decay. The format then reads the sections only it
// has, checking their references with the Parser's name tables.
func ReadCluster[P any](p *Parser, f *yamlfield.Fields, s Sections[P]) Cluster[P] {
	var c Cluster[P]
	c.Pools = s.Pools(f.Lookup("pools"))
	c.Projects = p.Projects(f.Lookup("projects"))
	if s.AfterProjects != nil {
		s.AfterProjects(&c)
	}
	c.Licenses = p.Licenses(f.Lookup("licenses"))
	c.QOS = p.QOSList(f.Lookup("qos"))
	p.checkProjectQOS()
	if s.AfterQOS != nil {
		s.AfterQOS(&c)
	}
	raw := f.Lookup("decay")
	c.Decay = p.clusterDecay(raw)
	c.DecayPeriodSet = hasKey(raw, "period")
	return c
}

// clusterDecay reads the decay section, or gives the dialect's default
// without one. Scenario files reject a decay that no pool would read,
// since a setting that does nothing hides a misunderstanding; the
// master's fair-share tree always reads it.
func (p *Parser) clusterDecay(raw *yaml.Node) Decay {
	if raw == nil {
		if p.Scenario && p.FairSharePools == 0 {
			return Decay{}
		}
		return DefaultDecay
	}
	d, _ := p.Decay(raw)
	if p.Scenario && p.FairSharePools == 0 {
		p.Errorf(raw, "decay", "no multifactor pool has a fair_share weight, so decay would never apply")
	}
	return d
}

// hasKey reports whether the mapping node raw (nil: none) has key.
func hasKey(raw *yaml.Node, key string) bool {
	if raw == nil || raw.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(raw.Content); i += 2 {
		if raw.Content[i].Value == key {
			return true
		}
	}
	return false
}

// DefaultQOS is the QOS list of a file without a qos section, in
// dialects with DefaultQOS: the core's sched.DefaultQOS.
func DefaultQOS() []QOS {
	var out []QOS
	for _, q := range sched.DefaultQOS() {
		out = append(out, QOS{Name: q.Name, Priority: q.Priority, Preempt: q.Preempt})
	}
	return out
}

// SchedQOS returns QOS levels as the scheduling core takes them, in the
// same order (a job's QOS indexes them).
func SchedQOS(levels []QOS) []sched.QOS {
	out := make([]sched.QOS, len(levels))
	for i, q := range levels {
		out[i] = q.Sched()
	}
	return out
}

// QOSNames lists the QOS levels' names in order.
func QOSNames(levels []QOS) []string {
	out := make([]string, len(levels))
	for i, q := range levels {
		out[i] = q.Name
	}
	return out
}
