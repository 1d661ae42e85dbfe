package scenario

import (
	"fmt"
	"maps"
	"math"

	"go.yaml.in/yaml/v3"
)

// poolInfo is what the job checks need to know about a pool.
type poolInfo struct {
	line     int
	capacity int  // total slots over the pool's nodes, saturating at MaxInt
	clean    bool // the pool had no errors, so capacity can be trusted
}

// scenario walks the top-level mapping. Pools come first whatever the key
// order in the file, because jobs and events refer back to them.
func (p *parser) scenario(root *yaml.Node) *Scenario {
	s := &Scenario{}
	f, ok := p.fields(root, "")
	if !ok {
		return s
	}
	p.pools = make(map[string]*poolInfo)
	p.nodeLines = make(map[string]int)
	p.jobLines = make(map[string]int)
	if f.required("pools") {
		s.Pools = p.poolList(f.lookup("pools"))
	}
	s.Jobs, s.Trace = p.jobList(f.lookup("jobs"))
	s.Events = p.eventList(f.lookup("events"), s.Trace == nil)
	f.done()
	return s
}

func (p *parser) poolList(raw *yaml.Node) []Pool {
	items, ok := p.list(raw, "pools", "pools")
	if ok && len(items) == 0 {
		p.errorf(raw, "pools", "at least one pool is required")
	}
	// Until every pool has a name, an unknown pool name in a job may just be
	// the broken pool, so the job check stays quiet.
	p.poolNamesKnown = ok
	var out []Pool
	for i, item := range items {
		out = append(out, p.pool(item, i))
	}
	return out
}

func (p *parser) pool(raw *yaml.Node, i int) Pool {
	pl := Pool{Line: raw.Line, Placement: PlacementBinpack}
	path := fmt.Sprintf("pools[%d]", i)
	f, ok := p.fields(raw, path)
	if !ok {
		p.poolNamesKnown = false
		return pl
	}
	errsBefore := p.count
	info := &poolInfo{line: raw.Line}
	if f.required("name") && field(f, "name", &pl.Name, name) {
		if first, dup := p.pools[pl.Name]; dup {
			f.errorf("name", "duplicate pool name %s (first at line %d)", quote(pl.Name), first.line)
		} else {
			p.pools[pl.Name] = info
			p.poolOrder = append(p.poolOrder, pl.Name)
			if len(p.pools) == 1 {
				p.firstPool = pl.Name
			}
		}
		f.path = path + " " + quote(pl.Name)
	} else {
		p.poolNamesKnown = false
	}
	policyOK := f.required("policy") && field(f, "policy", &pl.Policy, enum("policy", policies...))
	field(f, "preemption", &pl.Preemption, boolean)
	field(f, "backfill", &pl.Backfill, boolean)
	field(f, "serial", &pl.Serial, boolean)
	reservationsSet := f.has("reservations")
	field(f, "reservations", &pl.Reservations, enum("reservations", reservations...))
	field(f, "placement", &pl.Placement, enum("placement", placements...))
	field(f, "checkpoint_cost", &pl.CheckpointCost, duration)
	if f.required("nodes") {
		pl.Nodes = p.nodeList(f.lookup("nodes"), join(f.path, "nodes"))
	}
	f.done()
	if policyOK {
		checkPolicyOptions(f, &pl, reservationsSet)
	}
	for _, n := range pl.Nodes {
		info.capacity = addSaturating(info.capacity, n.Slots)
	}
	info.clean = p.count == errsBefore
	return pl
}

// checkPolicyOptions rejects options the pool's policy would ignore: a
// setting that silently does nothing hides a misunderstanding.
func checkPolicyOptions(f *fields, pl *Pool, reservationsSet bool) {
	if pl.Preemption && pl.Policy != PolicyPriority && pl.Policy != PolicyFairShare {
		f.errorf("preemption", "only priority and fair_share pools preempt, and this pool's policy is %s", pl.Policy)
	}
	if pl.Backfill && pl.Policy != PolicyPriority {
		f.errorf("backfill", "only priority pools take backfill: true, and this pool's policy is %s", pl.Policy)
	}
	if pl.Serial && pl.Policy != PolicyFIFO {
		f.errorf("serial", "only fifo pools can be serial, and this pool's policy is %s", pl.Policy)
	}
	if reservationsSet && pl.Policy != PolicyBackfill {
		f.errorf("reservations", "only backfill pools take reservations, and this pool's policy is %s", pl.Policy)
	}
	if pl.Policy == PolicyBackfill && pl.Reservations == "" {
		pl.Reservations = ReservationsEasy
	}
}

func addSaturating(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

func (p *parser) nodeList(raw *yaml.Node, path string) []Node {
	items, ok := p.list(raw, path, "nodes")
	if ok && len(items) == 0 {
		p.errorf(raw, path, "a pool needs at least one node")
	}
	var out []Node
	for i, item := range items {
		out = p.node(item, fmt.Sprintf("%s[%d]", path, i), out)
	}
	return out
}

// node parses one node entry and appends the nodes it expands to.
func (p *parser) node(raw *yaml.Node, path string, out []Node) []Node {
	f, ok := p.fields(raw, path)
	if !ok {
		return out
	}
	n := Node{Line: raw.Line}
	count := 1
	named := f.required("name") && field(f, "name", &n.Name, name)
	if named {
		f.path = path + " " + quote(n.Name)
	}
	field(f, "count", &count, intIn(1, MaxNodes))
	if f.required("slots") {
		field(f, "slots", &n.Slots, intAtLeast(1))
	}
	field(f, "gpu", &n.GPU, text)
	field(f, "labels", &n.Labels, stringMap)
	f.done()
	if !named {
		return out
	}
	return p.expand(f, n, count, out)
}

// expand appends count copies of n, named n.Name-1..n.Name-N when count > 1,
// and checks the names against every node seen so far in the file.
func (p *parser) expand(f *fields, n Node, count int, out []Node) []Node {
	if count > MaxNodes-p.nodeTotal {
		f.errorf("count", "the file would have more than %d nodes", MaxNodes)
		return out
	}
	p.nodeTotal += count
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
				f.errorf("name", "duplicate node name %s%s (first at line %d)", quote(m.Name), how, first)
				reported = true
			}
			continue
		}
		p.nodeLines[m.Name] = n.Line
		out = append(out, m)
	}
	return out
}
