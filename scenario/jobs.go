package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// jobList parses the jobs section: a list of jobs, or a {trace: FILE}
// mapping naming a trace that supplies them instead.
func (p *parser) jobList(raw *yaml.Node) ([]Job, *TraceRef) {
	p.jobNamesKnown = true
	if raw == nil {
		return nil, nil
	}
	n := yamlfield.Resolve(raw)
	switch {
	case n != nil && n.Kind == yaml.MappingNode:
		return nil, p.trace(raw)
	case n != nil && n.Kind == yaml.SequenceNode:
	case n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		return nil, nil
	default:
		p.Errorf(raw, "jobs", "expected a list of jobs or a {trace: FILE} mapping, got %s", p.Describe(n))
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
	f, ok := p.Fields(raw, "jobs")
	if !ok {
		return nil
	}
	if f.Required("trace") {
		yamlfield.Field(f, "trace", &t.Path, name)
	}
	yamlfield.Field(f, "format", &t.Format, yamlfield.Enum("trace format", traceFormats...))
	f.Done()
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
	f, ok := p.Fields(raw, path)
	if !ok {
		p.jobNamesKnown = false
		return j
	}
	if f.Required("name") && yamlfield.Field(f, "name", &j.Name, name) {
		if first, dup := p.jobLines[j.Name]; dup {
			f.Errorf("name", "duplicate job name %s (first at line %d)", yamlfield.Quote(j.Name), first)
		} else {
			p.jobLines[j.Name] = raw.Line
			p.jobOrder = append(p.jobOrder, j.Name)
		}
		f.Path = path + " " + yamlfield.Quote(j.Name)
	} else {
		p.jobNamesKnown = false
	}
	yamlfield.Field(f, "kind", &j.Kind, yamlfield.Enum("kind", kinds...))
	yamlfield.Field(f, "submit", &j.Submit, yamlfield.Duration)
	poolSet := yamlfield.Field(f, "pool", &j.Pool, name)
	yamlfield.Field(f, "tasks", &j.Tasks, yamlfield.IntAtLeast(1))
	j.MaxConcurrent = j.Tasks
	yamlfield.Field(f, "max_concurrent", &j.MaxConcurrent, yamlfield.IntAtLeast(1))
	yamlfield.Field(f, "slots", &j.Slots, yamlfield.IntAtLeast(0))
	yamlfield.Field(f, "duration", &j.Duration, yamlfield.Duration)
	yamlfield.Field(f, "time_limit", &j.TimeLimit, yamlfield.PositiveDuration)
	yamlfield.Field(f, "priority", &j.Priority, yamlfield.IntIn(MinPriority, MaxPriority))
	yamlfield.Field(f, "weight", &j.Weight, yamlfield.PositiveNumber)
	j.Preemptible = j.Kind == KindExperiment
	yamlfield.Field(f, "preemptible", &j.Preemptible, yamlfield.Boolean)
	f.Done()
	p.checkJobPool(f, &j, poolSet)
	return j
}

// checkJobPool checks that the job's pool exists and that one task fits in
// it. When a pool has errors its size is unknown, so the fit check waits.
func (p *parser) checkJobPool(f *yamlfield.Fields, j *Job, poolSet bool) {
	info := p.pools[j.Pool]
	if info == nil {
		if poolSet && p.poolNamesKnown {
			names := p.poolOrder
			f.Errorf("pool", "unknown pool %s%s (pools: %s)", yamlfield.Quote(j.Pool), yamlfield.Suggest(j.Pool, names), yamlfield.OneOf(names))
		}
		return
	}
	if info.clean && j.Slots > info.capacity {
		f.Errorf("slots", "a task needs %d slots, but pool %s has only %d in all", j.Slots, yamlfield.Quote(j.Pool), info.capacity)
	}
}
