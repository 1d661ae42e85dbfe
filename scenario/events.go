package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// eventList parses the events section. checkJobs is false when jobs come
// from a trace: their names are unknown until the caller reads it.
func (p *parser) eventList(raw *yaml.Node, checkJobs bool) []Event {
	if raw == nil {
		return nil
	}
	items, _ := p.list(raw, "events", "events")
	out := make([]Event, 0, len(items))
	for i, item := range items {
		out = append(out, p.event(item, i, checkJobs))
	}
	return out
}

func (p *parser) event(raw *yaml.Node, i int, checkJobs bool) Event {
	e := Event{Line: raw.Line}
	f, ok := p.fields(raw, fmt.Sprintf("events[%d]", i))
	if !ok {
		return e
	}
	if f.required("at") {
		field(f, "at", &e.At, duration)
	}
	var actions []EventKind
	for _, k := range eventKinds {
		if f.has(string(k)) {
			actions = append(actions, k)
		}
	}
	switch len(actions) {
	case 0:
		p.errorAt(f.line, f.path, nil, "missing action: expected one of %s", oneOf(eventKinds))
	case 1:
		e.Kind = actions[0]
		p.action(f, &e, checkJobs)
	default:
		// Two actions at once would need an order between them that the
		// file cannot express; two events at the same time can.
		f.errorf(string(actions[1]), "an event has one action, and this one already has %s", actions[0])
	}
	f.done()
	return e
}

// action parses the value of the event's single action key.
func (p *parser) action(f *fields, e *Event, checkJobs bool) {
	key := string(e.Kind)
	path := join(f.path, key)
	if e.Kind == EventKill {
		if field(f, key, &e.Job, name) {
			p.checkEventJob(f.lookup(key), path, e.Job, checkJobs)
		}
		return
	}
	g, ok := p.fields(f.lookup(key), path)
	if !ok {
		return
	}
	if g.required("job") && field(g, "job", &e.Job, name) {
		p.checkEventJob(g.lookup("job"), join(path, "job"), e.Job, checkJobs)
	}
	switch e.Kind {
	case EventSetPriority:
		if g.required("priority") {
			field(g, "priority", &e.Priority, intIn(MinPriority, MaxPriority))
		}
	case EventSetWeight:
		if g.required("weight") {
			field(g, "weight", &e.Weight, positiveNumber)
		}
	}
	g.done()
}

func (p *parser) checkEventJob(n *yaml.Node, path, job string, checkJobs bool) {
	if !checkJobs || !p.jobNamesKnown {
		return
	}
	if _, ok := p.jobLines[job]; ok {
		return
	}
	p.errorf(n, path, "unknown job %s%s", quote(job), suggest(job, p.jobOrder))
}
