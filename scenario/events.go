package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// eventParser reads the events section, checking the nodes and jobs
// events name against the name tables of the sections before it.
type eventParser struct {
	*spec.Parser
	*names
}

// list parses the events section. checkJobs is false when jobs come
// from a trace: their names are unknown until the caller reads it.
func (p eventParser) list(raw *yaml.Node, checkJobs bool) []Event {
	if raw == nil {
		return nil
	}
	items, _ := p.List(raw, "events", "events")
	out := make([]Event, 0, len(items))
	for i, item := range items {
		out = append(out, p.event(item, i, checkJobs))
	}
	return out
}

func (p eventParser) event(raw *yaml.Node, i int, checkJobs bool) Event {
	e := Event{Line: raw.Line}
	f, ok := p.Fields(raw, fmt.Sprintf("events[%d]", i))
	if !ok {
		return e
	}
	if f.Required("at") {
		yamlfield.Field(f, "at", &e.At, yamlfield.Duration)
	}
	var actions []EventKind
	for _, k := range eventKinds {
		if f.Has(string(k)) {
			actions = append(actions, k)
		}
	}
	if slices.Contains(actions, EventRequeue) {
		// hold: true is then the requeue's (action), not an action.
		actions = slices.DeleteFunc(actions, func(k EventKind) bool { return k == EventHold })
	}
	switch len(actions) {
	case 0:
		p.ErrorAt(f.Line, f.Path, nil, "missing action: expected one of %s", yamlfield.OneOf(eventKinds))
	case 1:
		e.Kind = actions[0]
		p.action(f, &e, checkJobs)
	default:
		// Two actions at once would need an order between them that the
		// file cannot express; two events at the same time can.
		f.Errorf(string(actions[1]), "an event has one action, and this one already has %s", actions[0])
	}
	yamlfield.Field(f, "after_pass", &e.AfterPass, yamlfield.Boolean)
	if yamlfield.Field(f, "before", &e.Before, name) {
		p.checkBefore(f, &e, checkJobs)
	}
	f.Done()
	return e
}

// checkBefore checks that an event's before names a job of the file
// submitted at the event's time. With jobs from a trace the simulator
// checks it as it reads the trace.
func (p eventParser) checkBefore(f *yamlfield.Fields, e *Event, checkJobs bool) {
	if !checkJobs || !p.jobNamesKnown {
		return
	}
	at, ok := p.jobSubmits[e.Before]
	switch {
	case !ok:
		f.Errorf("before", "%s", p.unknownJob(e.Before))
	case at != e.At:
		f.Errorf("before", "job %s is submitted at %ds, not at the event's time (%ds): an event comes before a submission of its own instant only",
			yamlfield.Quote(e.Before), at, e.At)
	}
}

// action parses the value of the event's single action key.
func (p eventParser) action(f *yamlfield.Fields, e *Event, checkJobs bool) {
	key := string(e.Kind)
	path := p.Join(f.Path, key)
	if e.Kind == EventNodeReshape {
		p.reshape(f, e, path)
		return
	}
	if e.Kind.OfNode() {
		if yamlfield.Field(f, key, &e.Node, name) {
			p.checkEventNode(f.Lookup(key), path, e.Node)
		}
		return
	}
	if e.Kind == EventKill || e.Kind == EventHold || e.Kind == EventRelease || e.Kind == EventRequeue {
		if yamlfield.Field(f, key, &e.Job, name) {
			p.checkEventJob(f.Lookup(key), path, e.Job, checkJobs)
		}
		if e.Kind == EventRequeue {
			yamlfield.Field(f, "hold", &e.Hold, yamlfield.Boolean)
		}
		return
	}
	g, ok := p.Fields(f.Lookup(key), path)
	if !ok {
		return
	}
	if g.Required("job") && yamlfield.Field(g, "job", &e.Job, name) {
		p.checkEventJob(g.Lookup("job"), p.Join(path, "job"), e.Job, checkJobs)
	}
	switch e.Kind {
	case EventSetPriority:
		if pool := p.jobPools[e.Job]; pool != "" && checkJobs && p.pools[pool] != nil && p.pools[pool].policy == PolicyMultifactor {
			g.Errorf("job", "job %s runs in multifactor pool %s, which computes its priority and ignores set_priority",
				yamlfield.Quote(e.Job), yamlfield.Quote(pool))
		}
		if g.Required("priority") {
			yamlfield.Field(g, "priority", &e.Priority, yamlfield.IntIn(MinPriority, MaxPriority))
		}
	case EventSetWeight:
		if g.Required("weight") {
			yamlfield.Field(g, "weight", &e.Weight, yamlfield.PositiveNumber)
		}
	case EventSetTimeLimit:
		if g.Required("time_limit") {
			yamlfield.Field(g, "time_limit", &e.TimeLimit, yamlfield.Duration)
		}
	case EventSetQOS, EventSetNice:
		p.setQOSNice(g, e, checkJobs)
	}
	g.Done()
}

// setQOSNice parses a set_qos's QOS, which must be one of the file's
// levels, or a set_nice's nice, in a job's range; both only for a job
// of a pool that reads them, as a job's own qos and nice.
func (p eventParser) setQOSNice(g *yamlfield.Fields, e *Event, checkJobs bool) {
	key := "qos"
	if e.Kind == EventSetNice {
		key = "nice"
	}
	if !g.Required(key) {
		return
	}
	if e.Kind == EventSetNice {
		yamlfield.Field(g, "nice", &e.Nice, yamlfield.IntIn(-MaxNice, MaxNice))
	} else if yamlfield.Field(g, "qos", &e.QOS, name) && p.QOSKnown && !p.HasQOS(e.QOS) {
		if len(p.QOSOrder) == 0 {
			g.Errorf("qos", "unknown QOS %s: the file has no qos section", yamlfield.Quote(e.QOS))
		} else {
			g.Errorf("qos", "unknown QOS %s%s (QOS: %s)", yamlfield.Quote(e.QOS), yamlfield.Suggest(e.QOS, p.QOSOrder), yamlfield.OneOf(p.QOSOrder))
		}
	}
	pool := p.jobPools[e.Job]
	if !checkJobs || pool == "" || p.pools[pool] == nil {
		return
	}
	switch policy := p.pools[pool].policy; {
	case e.Kind == EventSetNice && policy != PolicyMultifactor:
		g.Errorf("job", "job %s runs in pool %s, whose policy is %s: only multifactor pools compute a priority for nice to adjust",
			yamlfield.Quote(e.Job), yamlfield.Quote(pool), policy)
	case e.Kind == EventSetQOS && policy != PolicyPriority && policy != PolicyMultifactor:
		g.Errorf("job", "job %s runs in pool %s, whose policy is %s: only priority and multifactor pools use a job's QOS",
			yamlfield.Quote(e.Job), yamlfield.Quote(pool), policy)
	}
}

// reshape parses a node_reshape's value: the node and its new shape,
// whose slots, gpu and labels read as a node entry's (labels and gpu
// left out: none from then on).
func (p eventParser) reshape(f *yamlfield.Fields, e *Event, path string) {
	g, ok := p.Fields(f.Lookup(string(e.Kind)), path)
	if !ok {
		return
	}
	if g.Required("node") && yamlfield.Field(g, "node", &e.Node, name) {
		p.checkEventNode(g.Lookup("node"), p.Join(path, "node"), e.Node)
	}
	sh := &Node{Line: g.Line}
	if g.Required("slots") {
		yamlfield.Field(g, "slots", &sh.Slots, yamlfield.IntAtLeast(1))
	}
	yamlfield.Field(g, "gpu", &sh.GPU, yamlfield.Text)
	p.NodeLabels(g, &sh.Node)
	if yamlfield.Field(g, "pool", &e.Pool, name) {
		p.checkMovePool(g, e.Pool)
	}
	sh.Name = e.Node
	e.Shape = sh
	g.Done()
}

// checkMovePool checks a node_reshape's pool: a pool of the file with
// nodes of its own, as a node joins the pool that owns the nodes a
// sharing pool uses.
func (p eventParser) checkMovePool(g *yamlfield.Fields, pool string) {
	info := p.pools[pool]
	switch {
	case info == nil:
		g.Errorf("pool", "unknown pool %s%s (pools: %s)", yamlfield.Quote(pool), yamlfield.Suggest(pool, p.PoolOrder),
			yamlfield.OneOf(p.PoolOrder))
	case info.shares != "":
		g.Errorf("pool", "pool %s shares the nodes of pool %s (shares_nodes_with) and has none of its own: move the node to %s",
			yamlfield.Quote(pool), yamlfield.Quote(info.shares), yamlfield.Quote(info.shares))
	}
}

// nodeGroup is a node entry with a count: it makes count nodes, named
// after it name-1..name-count.
type nodeGroup struct {
	count, line int
}

// checkEventNode checks that a node event names a node of the file's
// pools (after count expansion: gpu-1, gpu-2, ...). A name of a group of
// nodes, or one past its count, is told the group's names.
func (p eventParser) checkEventNode(n *yaml.Node, path, node string) {
	if _, ok := p.nodeLines[node]; ok {
		return
	}
	group, in := node, false
	if i := strings.LastIndexByte(node, '-'); i > 0 {
		if _, err := strconv.Atoi(node[i+1:]); err == nil {
			group, in = node[:i], true
		}
	}
	if g, ok := p.nodeGroups[group]; ok {
		names := fmt.Sprintf("%s to %s", yamlfield.Quote(group+"-1"), yamlfield.Quote(group+"-"+strconv.Itoa(g.count)))
		if in {
			p.Errorf(n, path, "unknown node %s: the entry %s on line %d (count: %d) makes the nodes %s",
				yamlfield.Quote(node), yamlfield.Quote(group), g.line, g.count, names)
		} else {
			p.Errorf(n, path, "unknown node %s: the entry on line %d makes %d nodes (count: %d), named %s; name one of them",
				yamlfield.Quote(node), g.line, g.count, g.count, names)
		}
		return
	}
	if line, ok := p.nodeLines[group]; in && ok {
		// big-1 for the one node of an entry without a count (trial
		// 2026-11-29h H6: the list of the first names hid "big").
		p.Errorf(n, path, "unknown node %s; did you mean %s? (the entry on line %d has no count, so its one node is named %s)",
			yamlfield.Quote(node), yamlfield.Quote(group), line, yamlfield.Quote(group))
		return
	}
	entries := nodeEntries(p.nodeOrder, p.nodeGroups)
	hint := yamlfield.Suggest(node, p.nodeOrder)
	if hint == "" {
		hint = yamlfield.Suggest(node, entries)
	}
	p.Errorf(n, path, "unknown node %s%s (nodes: %s)", yamlfield.Quote(node), hint, listNames(entries))
}

// nodeEntries is the file's nodes by entry: a group of nodes made by a
// count as "gpu-1 to gpu-12", the others by name, so that a short list
// shows every entry of a file with a large count before any "more".
func nodeEntries(order []string, groups map[string]nodeGroup) []string {
	var out []string
	for i := 0; i < len(order); i++ {
		name := order[i]
		if j := strings.LastIndexByte(name, '-'); j > 0 && name[j+1:] == "1" {
			if g, ok := groups[name[:j]]; ok && i+g.count <= len(order) && order[i+g.count-1] == name[:j]+"-"+strconv.Itoa(g.count) {
				out = append(out, name+" to "+order[i+g.count-1])
				i += g.count - 1
				continue
			}
		}
		out = append(out, name)
	}
	return out
}

// shownNames is how many names an unknown node's or job's error lists
// before it counts the rest.
const shownNames = 5

// listNames lists the first names (file order) and counts the rest, as
// the config's errors list what exists (trial 2026-11-29g G10).
func listNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= shownNames+1 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shownNames], ", "), len(names)-shownNames)
}

// unknownJob is the error's text for a job the file does not submit: a
// likely spelling, and the jobs there are (trial 2026-11-29h H6).
func (p eventParser) unknownJob(job string) string {
	return fmt.Sprintf("unknown job %s%s (jobs: %s)", yamlfield.Quote(job), yamlfield.Suggest(job, p.jobOrder), listNames(p.jobOrder))
}

func (p eventParser) checkEventJob(n *yaml.Node, path, job string, checkJobs bool) {
	if !checkJobs || !p.jobNamesKnown {
		return
	}
	if _, ok := p.jobLines[job]; ok {
		return
	}
	p.Errorf(n, path, "%s", p.unknownJob(job))
}
