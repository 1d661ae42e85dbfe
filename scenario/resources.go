package scenario

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// License is a cluster-wide consumable, such as commercial software
// seats: at most Total are held at once across every pool.
type License struct {
	Name  string
	Total int
	Line  int
}

// QOS is a quality of service jobs of priority and multifactor pools may
// name. Priority ranks QOS levels (and, divided by the highest, is the
// multifactor QOS factor); a QOS with Preempt lets its jobs preempt less
// important tasks of a lower QOS even in a pool without preemption.
type QOS struct {
	Name     string
	Priority int
	Preempt  bool
	Line     int
}

// licenseList parses the licenses section: a mapping of names to totals,
// kept in file order.
func (p *parser) licenseList(raw *yaml.Node) []License {
	p.licenses = map[string]int{}
	if raw == nil || yamlfield.IsNull(raw) {
		return nil
	}
	prs, ok := p.Pairs(raw, "licenses")
	if !ok {
		p.licensesKnown = false
		return nil
	}
	out := make([]License, 0, len(prs))
	for _, pr := range prs {
		l := License{Name: pr.Key.Value, Line: pr.Key.Line}
		if pr.Key.ShortTag() == "!!null" || l.Name == "" {
			p.Errorf(pr.Key, "licenses", "expected a license name, got %s", p.Describe(pr.Key))
			p.licensesKnown = false
			continue
		}
		if n, ok := yamlfield.IntAtLeast(0)(p.Parser, pr.Val, p.Join("licenses", l.Name)); ok {
			l.Total = n
		} else {
			l.Total = -1 // broken: jobs are not checked against it
		}
		p.licenses[l.Name] = l.Total
		p.licenseOrder = append(p.licenseOrder, l.Name)
		out = append(out, l)
	}
	return out
}

// qosList parses the qos section: a list of {name, priority, preempt}.
func (p *parser) qosList(raw *yaml.Node) []QOS {
	p.qos = map[string]bool{}
	if raw == nil {
		return nil
	}
	items, ok := p.List(raw, "qos", "QOS levels")
	p.qosKnown = ok
	out := make([]QOS, 0, len(items))
	for i, item := range items {
		q := QOS{Line: item.Line}
		path := fmt.Sprintf("qos[%d]", i)
		f, ok := p.Fields(item, path)
		if !ok {
			p.qosKnown = false
			continue
		}
		if f.Required("name") && yamlfield.Field(f, "name", &q.Name, name) {
			f.Path = path + " " + yamlfield.Quote(q.Name)
			if p.qos[q.Name] {
				f.Errorf("name", "duplicate QOS name %s", yamlfield.Quote(q.Name))
			} else {
				p.qos[q.Name] = true
				p.qosOrder = append(p.qosOrder, q.Name)
			}
		} else {
			p.qosKnown = false
		}
		yamlfield.Field(f, "priority", &q.Priority, yamlfield.IntAtLeast(0))
		yamlfield.Field(f, "preempt", &q.Preempt, yamlfield.Boolean)
		f.Done()
		p.qosPreempts = p.qosPreempts || q.Preempt
		out = append(out, q)
	}
	return out
}

// checkJobResources checks a job's QOS and licenses against the file's
// qos and licenses sections and its pool.
func (p *parser) checkJobResources(f *yamlfield.Fields, j *Job, info *poolInfo) {
	if j.QOS != "" {
		switch {
		case len(p.qosOrder) == 0 && p.qosKnown:
			f.Errorf("qos", "unknown QOS %s: the file has no qos section", yamlfield.Quote(j.QOS))
		case !p.qos[j.QOS] && p.qosKnown:
			f.Errorf("qos", "unknown QOS %s%s (QOS: %s)", yamlfield.Quote(j.QOS), yamlfield.Suggest(j.QOS, p.qosOrder), yamlfield.OneOf(p.qosOrder))
		case info != nil && info.policy != "" && info.policy != PolicyPriority && info.policy != PolicyMultifactor:
			f.Errorf("qos", "only priority and multifactor pools use a job's QOS, and pool %s's policy is %s",
				yamlfield.Quote(j.Pool), info.policy)
		}
	}
	names := make([]string, 0, len(j.Licenses))
	for name := range j.Licenses {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		total, ok := p.licenses[name]
		switch {
		case !p.licensesKnown:
		case !ok && len(p.licenseOrder) == 0:
			f.Errorf("licenses", "unknown license %s: the file has no licenses section", yamlfield.Quote(name))
		case !ok:
			f.Errorf("licenses", "unknown license %s%s (licenses: %s)", yamlfield.Quote(name),
				yamlfield.Suggest(name, p.licenseOrder), yamlfield.OneOf(p.licenseOrder))
		case total >= 0 && j.Licenses[name] > total:
			f.Errorf("licenses", "a task needs %d %s licenses, but there are only %d in all", j.Licenses[name], yamlfield.Quote(name), total)
		}
	}
}
