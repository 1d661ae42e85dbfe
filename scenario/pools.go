package scenario

import (
	"fmt"
	"maps"
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// poolInfo is what the job checks need to know about a pool. For a pool
// that shares another's nodes, policy, capacity and gpus are the other
// pool's once resolveSharing has run.
type poolInfo struct {
	line     int
	policy   sched.Policy
	capacity int            // total slots over the pool's nodes, saturating at MaxInt
	gpus     map[string]int // slots per GPU type ("" for nodes without one)
	quota    int            // the pool's own quota, or -1
	shares   string         // the pool whose nodes it shares, or ""
	sharesAt int            // the line of shares_nodes_with
	// onPreempt and maxRetries are the defaults of the pool's jobs.
	onPreempt  string
	maxRetries int
	clean      bool // the pool had no errors, so capacity can be trusted
	// largest is the largest node's slots, and largestOf the largest of
	// each GPU type: tasks larger span nodes.
	largest   int
	largestOf map[string]int
	// fs marks a multifactor pool with a fair-share weight, whose jobs
	// charge accounts; fsMode is its fair-share mode.
	fs     bool
	fsMode sched.FairShareMode
}

// scenario walks the top-level mapping. Pools come first whatever the key
// order in the file, because jobs and events refer back to them.
func (p *parser) scenario(root *yaml.Node) *Scenario {
	s := &Scenario{}
	f, ok := p.Fields(root, "")
	if !ok {
		return s
	}
	p.pools = make(map[string]*poolInfo)
	p.nodeLines = make(map[string]int)
	p.nodeGroups = make(map[string]nodeGroup)
	p.jobLines = make(map[string]int)
	// One clear error rather than one per field another kind of file
	// has and a scenario lacks (config check and allot submit say the
	// converse).
	if yamlfield.WrongKind(f, yamlfield.ScenarioFile, "allot sim reads a scenario: pools with their nodes, and jobs or a trace (docs/scenario.md)",
		yamlfield.ConfigFile, yamlfield.JobFile) {
		return s
	}
	f.Known(topLevel...)
	s.Cluster = spec.ReadCluster(p.Parser, f, spec.Sections[Pool]{
		Pools: func(raw *yaml.Node) []Pool {
			if !f.Required("pools") {
				p.PoolsKnown = false // jobs are not checked against pools
				return nil
			}
			pools := p.poolList(raw)
			p.reshapeCapacity(pools, f.Lookup("events"))
			p.resolveSharing(pools)
			return pools
		},
		AfterProjects: func(c *spec.Cluster[Pool]) { p.checkProjectNames(c.Projects) },
		AfterQOS: func(c *spec.Cluster[Pool]) {
			s.Accounts = p.accountList(f.Lookup("accounts"))
			s.Epoch = p.epoch(f)
			c.LostNodeGrace = p.LostNodeGrace(f)
		},
	})
	p.jobPools, p.jobSubmits = map[string]string{}, map[string]int64{}
	s.Jobs, s.Trace = p.jobList(f.Lookup("jobs"))
	s.Accounts = append(s.Accounts, p.userLeaves...)
	p.checkLeaves()
	p.checkTrace(s)
	s.Events = eventParser{p.Parser, &p.names}.list(f.Lookup("events"), s.Trace == nil)
	f.Done()
	return s
}

// topLevel are the file's top-level fields, in the order docs/scenario.md
// and the unknown-field hint list them.
var topLevel = []string{"pools", "projects", "licenses", "qos", "accounts", "decay", "epoch", "lost_node_grace", "jobs", "events"}

func (p *parser) poolList(raw *yaml.Node) []Pool {
	items := p.PoolEntries(raw)
	if p.PoolsKnown && len(items) == 0 {
		p.Errorf(raw, "pools", "at least one pool is required")
	}
	var out []Pool
	for i, item := range items {
		out = append(out, p.pool(item, i))
	}
	return out
}

// firstPool is the pool of jobs that name none: the first in the file.
func (p *parser) firstPool() string {
	if len(p.PoolOrder) == 0 {
		return ""
	}
	return p.PoolOrder[0]
}

// pool reads one pool: the cluster spec's part (name, policy and its
// options; a pool that shares another's nodes takes them from there),
// then the scenario's own fields.
func (p *parser) pool(raw *yaml.Node, i int) Pool {
	f, sp, ok := p.PoolFields(raw, i)
	pl := Pool{Pool: sp, Quota: -1, OnPreempt: OnPreemptReschedule, MaxRetries: -1}
	if !ok {
		return pl
	}
	errsBefore := p.Count()
	info := &poolInfo{line: raw.Line, quota: -1, gpus: map[string]int{}, largestOf: map[string]int{}}
	if _, dup := p.pools[pl.Name]; pl.Name != "" && !dup {
		p.pools[pl.Name] = info
	}
	if yamlfield.Field(f, "shares_nodes_with", &pl.SharesNodesWith, name) {
		info.shares, info.sharesAt = pl.SharesNodesWith, f.ValueLine("shares_nodes_with")
		p.sharingPool(f, pl.SharesNodesWith)
		spec.KillGraceField(f, &pl.Pool) // a pool's own, as in the master's file
	} else {
		p.ownPool(f, &pl)
	}
	yamlfield.Field(f, "quota", &pl.Quota, yamlfield.IntAtLeast(0))
	spec.ExitActionFields(f, &pl.OnPreempt, &pl.MaxRetries)
	configOnly(f)
	f.Done()
	p.CheckPolicy(f, &pl.Pool)
	if pl.Policy != "" {
		checkScenarioOptions(f, &pl)
	}
	for _, n := range pl.Nodes {
		info.capacity = addSaturating(info.capacity, n.Slots)
		info.gpus[n.GPU] = addSaturating(info.gpus[n.GPU], n.Slots)
		info.largest = max(info.largest, n.Slots)
		info.largestOf[n.GPU] = max(info.largestOf[n.GPU], n.Slots)
	}
	info.policy, info.quota = pl.Policy, pl.Quota
	info.onPreempt, info.maxRetries = pl.OnPreempt, pl.MaxRetries
	if pl.Policy == PolicyMultifactor && pl.Multifactor.FairShare > 0 {
		info.fs, info.fsMode = true, pl.Multifactor.FairShareMode
	}
	info.clean = p.Count() == errsBefore
	return pl
}

// ownPool reads the fields of a pool with nodes of its own.
func (p *parser) ownPool(f *yamlfield.Fields, pl *Pool) {
	p.PoolOptions(f, &pl.Pool)
	yamlfield.Field(f, "serial", &pl.Serial, yamlfield.Boolean)
	yamlfield.Field(f, "checkpoint_cost", &pl.CheckpointCost, yamlfield.Duration)
	if f.Required("nodes") {
		pl.Nodes = p.nodeList(f.Lookup("nodes"), p.Join(f.Path, "nodes"))
	}
}

// sharingPool rejects the fields a pool that shares another's nodes takes
// from that pool: one set of nodes has one policy and one placement.
func (p *parser) sharingPool(f *yamlfield.Fields, owner string) {
	for _, key := range []string{"policy", "preemption", "backfill", "serial", "reservations", "placement", "checkpoint_cost",
		"min_run_time", "multifactor", "nodes", "zero_slot_limit"} {
		if f.Has(key) {
			f.Errorf(key, "this pool shares the nodes of pool %s and takes its %s from there; set it on that pool",
				yamlfield.Quote(owner), key)
		}
	}
}

// checkScenarioOptions rejects the scenario's own options where the
// pool's policy would ignore them (CheckPolicy checks the shared ones).
func checkScenarioOptions(f *yamlfield.Fields, pl *Pool) {
	if pl.Serial && pl.Policy != PolicyFIFO {
		f.Errorf("serial", "only fifo pools can be serial, and this pool's policy is %s", pl.Policy)
	}
	if pl.Quota >= 0 && pl.Policy != PolicyQuota {
		f.Errorf("quota", "only quota pools take a quota, and this pool's policy is %s", pl.Policy)
	}
}

func addSaturating(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

func (p *parser) nodeList(raw *yaml.Node, path string) []Node {
	items, ok := p.List(raw, path, "nodes")
	if ok && len(items) == 0 {
		p.Errorf(raw, path, "a pool needs at least one node")
	}
	var out []Node
	for i, item := range items {
		out = p.node(item, fmt.Sprintf("%s[%d]", path, i), out)
	}
	return out
}

// node parses one node entry and appends the nodes it expands to.
func (p *parser) node(raw *yaml.Node, path string, out []Node) []Node {
	f, ok := p.Fields(raw, path)
	if !ok {
		return out
	}
	n := Node{Line: raw.Line}
	count := 1
	named := p.NodeName(f, path, &n.Node)
	yamlfield.Field(f, "count", &count, yamlfield.IntIn(1, MaxNodes))
	if f.Required("slots") {
		yamlfield.Field(f, "slots", &n.Slots, yamlfield.IntAtLeast(1))
	}
	yamlfield.Field(f, "gpu", &n.GPU, yamlfield.Text)
	p.NodeLabels(f, &n.Node)
	f.Done()
	if !named {
		return out
	}
	return p.expand(f, n, count, out)
}

// expand appends count copies of n, named n.Name-1..n.Name-N when count > 1,
// and checks the names against every node seen so far in the file.
func (p *parser) expand(f *yamlfield.Fields, n Node, count int, out []Node) []Node {
	if count > MaxNodes-p.nodeTotal {
		f.Errorf("count", "the file would have more than %d nodes", MaxNodes)
		return out
	}
	p.nodeTotal += count
	if count > 1 {
		p.nodeGroups[n.Name] = nodeGroup{count: count, line: n.Line}
	}
	reported := false
	for i := 1; i <= count; i++ {
		m := n
		if count > 1 {
			m.Name = fmt.Sprintf("%s-%d", n.Name, i)
			m.Labels = maps.Clone(n.Labels)
		}
		if first, dup := p.nodeLines[m.Name]; dup {
			if !reported {
				how := ""
				if count > 1 {
					how = fmt.Sprintf(" (made by count: %d)", count)
				}
				f.Errorf("name", "duplicate node name %s%s (first at line %d)", yamlfield.Quote(m.Name), how, first)
				reported = true
			}
			continue
		}
		p.nodeLines[m.Name] = n.Line
		p.nodeOrder = append(p.nodeOrder, m.Name)
		out = append(out, m)
	}
	return out
}

// configPoolFields are the pool fields only the master's configuration
// has, with what a scenario says instead: a pool copied from a
// configuration file was refused with "unknown field" and no word why.
var configPoolFields = []struct{ key, instead string }{
	{"grace", "grace is the master's configuration's (how long a preempted task may take to checkpoint): a scenario gives how long its checkpoints take, checkpoint_cost"},
}

// configOnly reports each configuration-only field of pool f with what
// to write instead.
func configOnly(f *yamlfield.Fields) {
	for _, c := range configPoolFields {
		if f.Lookup(c.key) != nil {
			f.Errorf(c.key, "%s", c.instead)
		}
	}
}
