package config

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// parser holds the state of one Parse call. Validation keeps going after
// an error so that one run reports several independent mistakes; the name
// tables let later sections check references to earlier ones.
type parser struct {
	*yamlfield.Parser

	pools      map[string]int // name → line
	poolOrder  []string
	poolsKnown bool // every pool entry has a valid name
	projects   map[string]*projectInfo
	projOrder  []*projectInfo
	projsKnown bool // every project entry has a valid name
}

// projectInfo is what the tree checks need to know about a project.
type projectInfo struct {
	Project
	path      string // e.g. `projects[1] "vision"`
	line      int
	parentRef int // line of the parent field; 0 without one
	quotaLine int
	limitLine int
	clean     bool // the entry had no errors, so its numbers can be trusted
}

// config walks the top-level mapping. Pools and projects come first
// whatever the key order in the file, because the other sections refer to
// them.
func (p *parser) config(root *yaml.Node) *Config {
	c := &Config{DefaultPool: DefaultPoolName, DefaultProject: DefaultProjectName, AgentTimeout: DefaultAgentTimeout,
		LostNodeGrace: DefaultLostNodeGrace}
	f, ok := p.Fields(root, "")
	if !ok {
		return c
	}
	p.pools = make(map[string]int)
	p.projects = make(map[string]*projectInfo)
	c.Pools = p.poolList(f.Lookup("pools"))
	if len(c.Pools) == 0 && p.poolsKnown {
		c.Pools = []Pool{defaultPool()}
		p.pools[DefaultPoolName] = 0
		p.poolOrder = []string{DefaultPoolName}
	}
	c.Projects = p.projectList(f.Lookup("projects"))
	if len(c.Projects) == 0 && p.projsKnown {
		c.Projects = []Project{defaultProject()}
		p.addProject(&projectInfo{Project: c.Projects[0], clean: true})
	}
	c.Nodes = p.nodeList(f.Lookup("nodes"))
	defPool := yamlfield.Field(f, "default_pool", &c.DefaultPool, name)
	defProject := yamlfield.Field(f, "default_project", &c.DefaultProject, name)
	var secs int64
	if yamlfield.Field(f, "agent_timeout", &secs, yamlfield.PositiveDuration) {
		c.AgentTimeout = time.Duration(secs) * time.Second
	}
	if yamlfield.Field(f, "lost_node_grace", &secs, yamlfield.Duration) {
		c.LostNodeGrace = time.Duration(secs) * time.Second
	}
	yamlfield.Field(f, "max_node_gpus", &c.MaxNodeGPUs, yamlfield.IntIn(1, MaxNodeGPUsLimit))
	if yamlfield.Field(f, "history_retention", &secs, yamlfield.Duration) {
		c.HistoryRetention = time.Duration(secs) * time.Second
	}
	usersRaw := f.Lookup("users")
	c.Licenses = p.licenses(f.Lookup("licenses"))
	qos, qosKnown := p.qosList(f.Lookup("qos"))
	c.QOS = qos
	c.DefaultQOS = p.defaultQOS(f, qos, qosKnown)
	c.Decay = p.decay(f.Lookup("decay"))
	f.Done()

	p.checkTree()
	userDefault := ""
	if p.checkDefaults(f, c, defPool, defProject) {
		userDefault = c.DefaultProject
	}
	c.Users = p.userList(usersRaw, userDefault)
	return c
}

// checkDefaults checks that the default pool and project exist, and
// reports whether the default project is usable. An explicit value is
// reported at its own line; an implied "default" at the list that lacks
// it.
func (p *parser) checkDefaults(f *yamlfield.Fields, c *Config, defPool, defProject bool) bool {
	if p.poolsKnown {
		if _, ok := p.pools[c.DefaultPool]; !ok {
			line := f.ValueLine("default_pool")
			if !defPool {
				line = f.KeyLine("pools")
			}
			p.ErrorAt(line, "default_pool", nil, "%s is not a pool%s (pools: %s); %s",
				yamlfield.Quote(c.DefaultPool), yamlfield.Suggest(c.DefaultPool, p.poolOrder),
				strings.Join(p.poolOrder, ", "), "set default_pool to one of them")
		}
	}
	if !p.projsKnown {
		return false
	}
	line := f.ValueLine("default_project")
	if !defProject {
		line = f.KeyLine("projects")
	}
	pr, ok := p.projects[c.DefaultProject]
	switch {
	case !ok:
		names := p.projectNames()
		p.ErrorAt(line, "default_project", nil, "%s is not a project%s (projects: %s); add it or set default_project to one of them",
			yamlfield.Quote(c.DefaultProject), yamlfield.Suggest(c.DefaultProject, names), strings.Join(names, ", "))
	case p.hasChildren(pr.Name):
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

func (p *parser) poolList(raw *yaml.Node) []Pool {
	items, ok := p.list(raw, "pools", "pools")
	// Until every pool has a name, an unknown pool name elsewhere may just
	// be the broken pool, so the reference checks stay quiet.
	p.poolsKnown = ok
	var out []Pool
	for i, item := range items {
		out = append(out, p.pool(item, i))
	}
	return out
}

func (p *parser) pool(raw *yaml.Node, i int) Pool {
	pl := Pool{Placement: sched.PlaceBinpack, Grace: DefaultGrace, ZeroSlotLimit: DefaultZeroSlotLimit}
	path := yamlfield.Index("pools", i)
	f, ok := p.Fields(raw, path)
	if !ok {
		p.poolsKnown = false
		return pl
	}
	if f.Required("name") && yamlfield.Field(f, "name", &pl.Name, name) {
		f.Path = path + " " + yamlfield.Quote(pl.Name)
		if first, dup := p.pools[pl.Name]; dup {
			f.Errorf("name", "duplicate pool name %s (first at line %d)", yamlfield.Quote(pl.Name), first)
		} else {
			p.pools[pl.Name] = raw.Line
			p.poolOrder = append(p.poolOrder, pl.Name)
		}
	} else {
		p.poolsKnown = false
	}
	policyOK := f.Required("policy") && yamlfield.Field(f, "policy", &pl.Policy, yamlfield.Enum("policy", policies...))
	yamlfield.Field(f, "preemption", &pl.Preemption, yamlfield.Boolean)
	yamlfield.Field(f, "backfill", &pl.Backfill, yamlfield.Boolean)
	yamlfield.Field(f, "reservations", &pl.Reservations, yamlfield.Enum("reservations", reservations...))
	yamlfield.Field(f, "placement", &pl.Placement, yamlfield.Enum("placement", placements...))
	var grace int64
	if yamlfield.Field(f, "grace", &grace, yamlfield.Duration) {
		pl.Grace = time.Duration(grace) * time.Second
	}
	yamlfield.Field(f, "zero_slot_limit", &pl.ZeroSlotLimit, yamlfield.IntAtLeast(0))
	var minRun int64
	if yamlfield.Field(f, "min_run_time", &minRun, yamlfield.Duration) {
		pl.MinRunTime = time.Duration(minRun) * time.Second
	}
	mf, mfOK := p.multifactor(f)
	f.Done()
	if policyOK {
		checkPolicyOptions(f, &pl)
		if pl.Policy == sched.PolicyMultifactor && mfOK {
			pl.Multifactor = mf
		}
	}
	return pl
}

// checkPolicyOptions rejects options the pool's policy would ignore: a
// setting that silently does nothing hides a misunderstanding. Grace and
// min_run_time suit every policy: consolidation moves and elastic resizes
// checkpoint tasks in any pool.
func checkPolicyOptions(f *yamlfield.Fields, pl *Pool) {
	preempts := []sched.Policy{sched.PolicyPriority, sched.PolicyFairShare, sched.PolicyQuota, sched.PolicyMultifactor}
	switch {
	case pl.Policy == sched.PolicyQuota && f.Has("preemption") && !pl.Preemption:
		f.Errorf("preemption", "quota pools always reclaim quota by preemption; leave preemption out")
	case pl.Preemption && !slices.Contains(preempts, pl.Policy):
		f.Errorf("preemption", "only priority, fair_share, quota and multifactor pools preempt, and this pool's policy is %s", pl.Policy)
	}
	if pl.Policy == sched.PolicyQuota {
		pl.Preemption = true
	}
	if pl.Backfill && pl.Policy != sched.PolicyPriority && pl.Policy != sched.PolicyMultifactor {
		f.Errorf("backfill", "only priority and multifactor pools take backfill: true (backfill pools always backfill), and this pool's policy is %s", pl.Policy)
	}
	reserves := pl.Policy == sched.PolicyBackfill || (pl.Policy == sched.PolicyMultifactor && pl.Backfill)
	if f.Node("reservations") != nil && !reserves {
		what := string(pl.Policy)
		if pl.Policy == sched.PolicyMultifactor {
			what += " without backfill"
		}
		f.Errorf("reservations", "only backfill pools and multifactor pools with backfill: true take reservations, and this pool's policy is %s", what)
	}
	if reserves && pl.Reservations == "" {
		pl.Reservations = sched.ReserveEASY
	}
	if f.Node("multifactor") != nil && pl.Policy != sched.PolicyMultifactor {
		f.Errorf("multifactor", "only multifactor pools take multifactor weights, and this pool's policy is %s", pl.Policy)
	}
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
		if f.Required("name") && yamlfield.Field(f, "name", &n.Name, name) {
			f.Path = path + " " + yamlfield.Quote(n.Name)
			if first, dup := seen[n.Name]; dup {
				f.Errorf("name", "duplicate node name %s (first at line %d)", yamlfield.Quote(n.Name), first)
			} else {
				seen[n.Name] = item.Line
			}
		}
		if yamlfield.Field(f, "pool", &n.Pool, name) && p.poolsKnown {
			if _, ok := p.pools[n.Pool]; !ok {
				f.Errorf("pool", "unknown pool %s%s (pools: %s)", yamlfield.Quote(n.Pool),
					yamlfield.Suggest(n.Pool, p.poolOrder), strings.Join(p.poolOrder, ", "))
			}
		}
		yamlfield.Field(f, "labels", &n.Labels, labels)
		f.Done()
		out = append(out, n)
	}
	return out
}

// name accepts a non-empty name of at most MaxNameBytes bytes with no
// control characters and no leading or trailing space: the names job
// files can refer to.
func name(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	if !ok {
		return "", false
	}
	var msg string
	switch {
	case s == "":
		msg = "expected a non-empty name"
	case len(s) > MaxNameBytes:
		msg = fmt.Sprintf("expected a name of at most %d bytes", MaxNameBytes)
	case strings.TrimSpace(s) != s:
		msg = "expected a name without leading or trailing spaces"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		msg = "expected a name without control characters"
	default:
		return s, true
	}
	p.Errorf(raw, path, "%s, got %s", msg, yamlfield.Quote(s))
	return "", false
}

// labels accepts a mapping of non-empty keys to strings; null means none.
func labels(p *yamlfield.Parser, raw *yaml.Node, path string) (map[string]string, bool) {
	if yamlfield.IsNull(raw) {
		return nil, true
	}
	prs, ok := p.Pairs(raw, path)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(prs))
	for _, pr := range prs {
		if pr.Key.Value == "" {
			p.Errorf(pr.Key, path, "expected a non-empty label name")
			ok = false
			continue
		}
		v, vok := yamlfield.Text(p, pr.Val, p.Join(path, pr.Key.Value))
		ok = ok && vok
		out[pr.Key.Value] = v
	}
	if len(out) == 0 {
		out = nil
	}
	return out, ok
}
