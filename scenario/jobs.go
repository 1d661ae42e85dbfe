package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// jobList parses the jobs section: a list of jobs, or a {trace: FILE}
// mapping naming a trace that supplies them instead.
func (p *parser) jobList(raw *yaml.Node) ([]Job, *TraceRef) {
	p.jobNamesKnown = true
	if raw == nil {
		return nil, nil
	}
	n := resolve(raw)
	switch {
	case n != nil && n.Kind == yaml.MappingNode:
		return nil, p.trace(raw)
	case n != nil && n.Kind == yaml.SequenceNode:
	case n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		return nil, nil
	default:
		p.errorf(raw, "jobs", "expected a list of jobs or a {trace: FILE} mapping, got %s", describe(n))
		p.jobNamesKnown = false
		return nil, nil
	}
	out := make([]Job, 0, len(n.Content))
	for i, item := range n.Content {
		out = append(out, p.job(item, i))
	}
	return out, nil
}

func (p *parser) trace(raw *yaml.Node) *TraceRef {
	t := &TraceRef{Line: raw.Line}
	f, ok := p.fields(raw, "jobs")
	if !ok {
		return nil
	}
	if f.required("trace") {
		field(f, "trace", &t.Path, name)
	}
	field(f, "format", &t.Format, enum("trace format", traceFormats...))
	f.done()
	return t
}

func (p *parser) job(raw *yaml.Node, i int) Job {
	j := Job{
		Line:     raw.Line,
		Kind:     KindCommand,
		Pool:     p.firstPool,
		Tasks:    1,
		Slots:    1,
		Duration: -1,
		Priority: DefaultPriority,
		Weight:   DefaultWeight,
	}
	path := fmt.Sprintf("jobs[%d]", i)
	f, ok := p.fields(raw, path)
	if !ok {
		p.jobNamesKnown = false
		return j
	}
	if f.required("name") && field(f, "name", &j.Name, name) {
		if first, dup := p.jobLines[j.Name]; dup {
			f.errorf("name", "duplicate job name %s (first at line %d)", quote(j.Name), first)
		} else {
			p.jobLines[j.Name] = raw.Line
			p.jobOrder = append(p.jobOrder, j.Name)
		}
		f.path = path + " " + quote(j.Name)
	} else {
		p.jobNamesKnown = false
	}
	field(f, "kind", &j.Kind, enum("kind", kinds...))
	field(f, "submit", &j.Submit, duration)
	poolSet := field(f, "pool", &j.Pool, name)
	field(f, "tasks", &j.Tasks, intAtLeast(1))
	j.MaxConcurrent = j.Tasks
	field(f, "max_concurrent", &j.MaxConcurrent, intAtLeast(1))
	field(f, "slots", &j.Slots, intAtLeast(0))
	field(f, "duration", &j.Duration, duration)
	field(f, "time_limit", &j.TimeLimit, positiveDuration)
	field(f, "priority", &j.Priority, intIn(MinPriority, MaxPriority))
	field(f, "weight", &j.Weight, positiveNumber)
	j.Preemptible = j.Kind == KindExperiment
	field(f, "preemptible", &j.Preemptible, boolean)
	f.done()
	p.checkJobPool(f, &j, poolSet)
	return j
}

// checkJobPool checks that the job's pool exists and that one task fits in
// it. When a pool has errors its size is unknown, so the fit check waits.
func (p *parser) checkJobPool(f *fields, j *Job, poolSet bool) {
	info := p.pools[j.Pool]
	if info == nil {
		if poolSet && p.poolNamesKnown {
			names := p.poolOrder
			f.errorf("pool", "unknown pool %s%s (pools: %s)", quote(j.Pool), suggest(j.Pool, names), oneOf(names))
		}
		return
	}
	if info.clean && j.Slots > info.capacity {
		f.errorf("slots", "a task needs %d slots, but pool %s has only %d in all", j.Slots, quote(j.Pool), info.capacity)
	}
}
