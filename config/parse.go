package config

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// parser holds the state of one Parse call. Validation keeps going after
// an error so that one run reports several independent mistakes; the name
// tables let later sections check references to earlier ones. The cluster
// spec's sections (projects, licenses, QOS, decay, multifactor blocks) are
// package spec's, with the master's dialect.
type parser struct {
	*spec.Parser
}

// dialect is the master's: strict names, projects with shares, and
// defaults for the QOS list and multifactor blocks.
var dialect = spec.Dialect{Name: spec.StrictName, ProjectShares: true, DefaultQOS: true}

// config walks the top-level mapping. The cluster spec's sections come
// first whatever the key order in the file, because the other sections
// refer to them.
func (p *parser) config(root *yaml.Node) *Config {
	c := &Config{DefaultPool: DefaultPoolName, DefaultProject: DefaultProjectName, AgentTimeout: DefaultAgentTimeout}
	f, ok := p.Fields(root, "")
	if !ok {
		return c
	}
	// One clear error rather than one per field another kind of file
	// has and the master's format lacks (allot sim and allot submit say
	// the converse).
	if yamlfield.WrongKind(f, yamlfield.ConfigFile, "allot master --config and allot config check read the master's configuration: pools, the nodes pinned to them, projects and users (docs/config.md)",
		yamlfield.ScenarioFile, yamlfield.JobFile) {
		return c
	}
	f.Known(topLevel...)
	var defPool, defProject bool
	c.Cluster = spec.ReadCluster(p.Parser, f, spec.Sections[Pool]{
		Pools: p.poolList,
		AfterProjects: func(cl *spec.Cluster[Pool]) {
			if len(cl.Projects) == 0 && p.ProjectsKnown {
				cl.Projects = []Project{defaultProject()}
				p.AddProject(cl.Projects[0])
			}
			c.Nodes = p.nodeList(f.Lookup("nodes"))
			defPool, defProject = p.settings(f, c, cl)
		},
	})
	usersRaw := f.Lookup("users")
	c.DefaultQOS = p.defaultQOS(f, c.QOS)
	c.DefaultQOSSet = f.Has("default_qos")
	f.Done()

	userDefault := ""
	if p.checkDefaults(f, c, defPool, defProject) {
		userDefault = c.DefaultProject
		p.checkDefaultQOS(f, c)
	}
	c.Users = p.userList(usersRaw, userDefault)
	return c
}

// topLevel are the file's top-level fields, in the order docs/config.md
// and the unknown-field hint list them.
var topLevel = []string{"pools", "projects", "nodes", "default_pool", "default_project", "agent_timeout", "lost_node_grace",
	"fence", "max_node_gpus", "history_retention", "users", "licenses", "qos", "default_qos", "decay"}

// settings reads the master's top-level settings (lost_node_grace into
// the cluster spec being read, cl), and reports whether
// default_pool and default_project were given.
func (p *parser) settings(f *yamlfield.Fields, c *Config, cl *spec.Cluster[Pool]) (defPool, defProject bool) {
	defPool = yamlfield.Field(f, "default_pool", &c.DefaultPool, name)
	defProject = yamlfield.Field(f, "default_project", &c.DefaultProject, name)
	var secs int64
	if yamlfield.Field(f, "agent_timeout", &secs, yamlfield.PositiveDuration) {
		c.AgentTimeout = time.Duration(secs) * time.Second
	}
	cl.LostNodeGrace = p.LostNodeGrace(f)
	fence := true
	yamlfield.Field(f, "fence", &fence, yamlfield.Boolean)
	c.NoFence = !fence
	yamlfield.Field(f, "max_node_gpus", &c.MaxNodeGPUs, yamlfield.IntIn(1, MaxNodeGPUsLimit))
	if yamlfield.Field(f, "history_retention", &secs, yamlfield.Duration) {
		c.HistoryRetention = time.Duration(secs) * time.Second
	}
	return defPool, defProject
}

// checkDefaults checks that the default pool and project exist, and
// reports whether the default project is usable. An explicit value is
// reported at its own line; an implied "default" at the list that lacks
// it.
func (p *parser) checkDefaults(f *yamlfield.Fields, c *Config, defPool, defProject bool) bool {
	if p.PoolsKnown {
		if !p.HasPool(c.DefaultPool) {
			line := f.ValueLine("default_pool")
			if !defPool {
				line = f.KeyLine("pools")
			}
			p.ErrorAt(line, "default_pool", nil, "%s is not a pool%s (pools: %s); %s",
				yamlfield.Quote(c.DefaultPool), yamlfield.Suggest(c.DefaultPool, p.PoolOrder),
				strings.Join(p.PoolOrder, ", "), "set default_pool to one of them")
		}
	}
	if !p.ProjectsKnown {
		return false
	}
	line := f.ValueLine("default_project")
	if !defProject {
		line = f.KeyLine("projects")
	}
	_, _, ok := p.Project(c.DefaultProject)
	switch {
	case !ok:
		names := p.ProjectNames()
		p.ErrorAt(line, "default_project", nil, "%s is not a project%s (projects: %s); add it or set default_project to one of them",
			yamlfield.Quote(c.DefaultProject), yamlfield.Suggest(c.DefaultProject, names), strings.Join(names, ", "))
	case p.HasChildren(c.DefaultProject):
		p.ErrorAt(line, "default_project", nil, "%s has sub-projects; jobs run in projects without sub-projects", yamlfield.Quote(c.DefaultProject))
	default:
		return true
	}
	return false
}

// list is List for an optional section: an absent one is empty.
func (p *parser) list(raw *yaml.Node, path, of string) ([]*yaml.Node, bool) {
	if raw == nil {
		return nil, true
	}
	return p.List(raw, path, of)
}

// poolList reads the pools section; a file that lists none gets the
// default pool.
func (p *parser) poolList(raw *yaml.Node) []Pool {
	var out []Pool
	for i, item := range p.PoolEntries(raw) {
		out = append(out, p.pool(item, i))
	}
	if len(out) == 0 && p.PoolsKnown {
		out = []Pool{defaultPool()}
		p.AddPool(DefaultPoolName, 0)
	}
	return out
}

// pool reads one pool: the cluster spec's part (name, policy and its
// options), then the master's own fields.
func (p *parser) pool(raw *yaml.Node, i int) Pool {
	f, sp, ok := p.PoolFields(raw, i)
	pl := Pool{Pool: sp, Grace: DefaultGrace,
		OnPreempt: spec.OnPreemptReschedule, MaxRetries: spec.NoRetryCap}
	if !ok {
		return pl
	}
	p.PoolOptions(f, &pl.Pool)
	var grace int64
	if yamlfield.Field(f, "grace", &grace, yamlfield.Duration) {
		pl.Grace, pl.GraceLine = time.Duration(grace)*time.Second, f.KeyLine("grace")
	}
	// Taken in a pool that never preempts too: a lost attempt and an
	// owner's requeue count as retries there (docs/config.md).
	spec.ExitActionFields(f, &pl.OnPreempt, &pl.MaxRetries)
	scenarioPoolOnly(f)
	f.Done()
	p.CheckPolicy(f, &pl.Pool)
	if pl.Policy != sched.PolicyMultifactor {
		pl.Multifactor = sched.Multifactor{}
	}
	return pl
}

func (p *parser) nodeList(raw *yaml.Node) []NodeRule {
	items, _ := p.list(raw, "nodes", "nodes")
	seen := make(map[string]int)
	var out []NodeRule
	for i, item := range items {
		path := yamlfield.Index("nodes", i)
		f, ok := p.Fields(item, path)
		if !ok {
			continue
		}
		var n NodeRule
		if p.NodeName(f, path, &n.Node) {
			if first, dup := seen[n.Name]; dup {
				f.Errorf("name", "duplicate node name %s (first at line %d)", yamlfield.Quote(n.Name), first)
			} else {
				seen[n.Name] = item.Line
			}
		}
		if yamlfield.Field(f, "pool", &n.Pool, name) && p.PoolsKnown {
			if !p.HasPool(n.Pool) {
				f.Errorf("pool", "unknown pool %s%s (pools: %s)", yamlfield.Quote(n.Pool),
					yamlfield.Suggest(n.Pool, p.PoolOrder), strings.Join(p.PoolOrder, ", "))
			}
		}
		p.NodeLabels(f, &n.Node)
		f.Done()
		out = append(out, n)
	}
	return out
}

// name checks the names of the master's file (package spec's strict
// names).
var name = spec.StrictName

// scenarioPoolFields are the pool fields only a scenario has, with what
// this file says instead: a pool copied from a scenario (or OSMO's
// docs) was refused with "unknown field" and no word why.
var scenarioPoolFields = []struct{ key, instead string }{
	{"shares_nodes_with", "pools that share another's nodes (OSMO pools) are a scenario's only: here, make one quota pool with a project per team, each with its quota"},
	{"quota", "a pool's quota is a scenario's (OSMO pools): here quotas are the projects', enforced in every quota pool"},
	{"nodes", "a pool's list of nodes is a scenario's: here agents join a pool (allot agent --pool) or a top-level nodes rule pins them"},
	{"checkpoint_cost", "checkpoint_cost is a scenario's (how long a simulated checkpoint takes): here grace says how long a preempted task may take"},
}

// scenarioPoolOnly reports each scenario-only field of pool f with what to
// write instead.
func scenarioPoolOnly(f *yamlfield.Fields) {
	for _, s := range scenarioPoolFields {
		if f.Lookup(s.key) != nil {
			f.Errorf(s.key, "%s", s.instead)
		}
	}
}
