package config

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

func (p *parser) projectList(raw *yaml.Node) []Project {
	items, ok := p.list(raw, "projects", "projects")
	p.projsKnown = ok
	var out []Project
	for i, item := range items {
		out = append(out, p.project(item, i))
	}
	return out
}

func (p *parser) addProject(pi *projectInfo) {
	p.projects[pi.Name] = pi
	p.projOrder = append(p.projOrder, pi)
}

func (p *parser) project(raw *yaml.Node, i int) Project {
	pi := &projectInfo{Project: Project{OverQuotaWeight: DefaultOverQuotaWeight}, line: raw.Line}
	path := yamlfield.Index("projects", i)
	f, ok := p.Fields(raw, path)
	if !ok {
		p.projsKnown = false
		return pi.Project
	}
	errsBefore := p.Count()
	if f.Required("name") && yamlfield.Field(f, "name", &pi.Name, name) {
		f.Path = path + " " + yamlfield.Quote(pi.Name)
		if first, dup := p.projects[pi.Name]; dup {
			f.Errorf("name", "duplicate project name %s (first at line %d)", yamlfield.Quote(pi.Name), first.line)
		} else {
			p.addProject(pi)
		}
	} else {
		p.projsKnown = false
	}
	pi.path = f.Path
	if yamlfield.Field(f, "parent", &pi.Parent, name) {
		pi.parentRef = f.ValueLine("parent")
	}
	yamlfield.Field(f, "quota", &pi.Quota, yamlfield.IntAtLeast(0))
	if !yamlfield.Field(f, "over_quota_weight", &pi.OverQuotaWeight, yamlfield.PositiveNumber) {
		// Spare GPUs go in proportion to quota unless said otherwise (seed
		// 002); a project without quota still gets a share.
		pi.OverQuotaWeight = float64(max(pi.Quota, 1))
	}
	yamlfield.Field(f, "limit", &pi.Limit, yamlfield.IntAtLeast(0))
	yamlfield.Field(f, "preempt_budget", &pi.PreemptBudget, yamlfield.IntAtLeast(0))
	if !yamlfield.Field(f, "shares", &pi.Shares, yamlfield.PositiveNumber) {
		pi.Shares = float64(max(pi.Quota, 1))
	}
	pi.quotaLine, pi.limitLine = f.ValueLine("quota"), f.ValueLine("limit")
	f.Done()
	if pi.Limit > 0 && pi.Limit < pi.Quota {
		f.Errorf("limit", "limit %d is below the quota %d; a project may always use its quota (0 means no limit)", pi.Limit, pi.Quota)
	}
	pi.clean = p.Count() == errsBefore
	return pi.Project
}

// checkTree checks the project tree once every project is known: parents
// exist, parents form no cycle, and children's quotas fit the parent's.
// Each is checked only where the entries involved parsed cleanly, so that
// one mistake is not reported again as its consequences.
func (p *parser) checkTree() {
	if !p.projsKnown {
		return
	}
	names := p.projectNames()
	treeOK := true
	for _, pi := range p.projOrder {
		if pi.Parent == "" {
			continue
		}
		switch _, ok := p.projects[pi.Parent]; {
		case pi.Parent == pi.Name:
			p.ErrorAt(pi.parentRef, p.Join(pi.path, "parent"), nil, "a project cannot be its own parent")
			treeOK = false
		case !ok:
			p.ErrorAt(pi.parentRef, p.Join(pi.path, "parent"), nil, "unknown project %s%s (projects: %s)",
				yamlfield.Quote(pi.Parent), yamlfield.Suggest(pi.Parent, names), strings.Join(names, ", "))
			treeOK = false
		}
	}
	if !treeOK {
		return
	}
	for _, pi := range p.projOrder {
		if cycle := p.cycleFrom(pi); cycle != nil {
			p.ErrorAt(pi.parentRef, p.Join(pi.path, "parent"), nil, "the parents form a cycle: %s", strings.Join(cycle, " → "))
			return
		}
	}
	p.checkQuotas()
}

// cycleFrom returns the names along the cycle that pi's parents run into,
// starting and ending at pi, or nil when pi's chain reaches the top or a
// cycle that pi is not on (reported from a project on it).
func (p *parser) cycleFrom(pi *projectInfo) []string {
	path := []string{pi.Name}
	at := pi
	for range len(p.projOrder) {
		if at.Parent == "" {
			return nil
		}
		at = p.projects[at.Parent]
		path = append(path, at.Name)
		if at == pi {
			return path
		}
	}
	return nil
}

// checkQuotas reports parents whose children deserve more than they do.
func (p *parser) checkQuotas() {
	for _, parent := range p.projOrder {
		if !parent.clean {
			continue
		}
		sum, clean := 0, true
		var parts []string
		for _, kid := range p.projOrder {
			if kid.Parent != parent.Name {
				continue
			}
			clean = clean && kid.clean
			// Saturate: a sum past MaxInt is too much either way.
			sum = min(sum, math.MaxInt-kid.Quota) + kid.Quota
			parts = append(parts, kid.Name+" "+strconv.Itoa(kid.Quota))
		}
		if clean && sum > parent.Quota {
			p.ErrorAt(parent.quotaLine, p.Join(parent.path, "quota"), nil,
				"the sub-projects' quotas add up to %d (%s), more than this project's quota of %d",
				sum, strings.Join(parts, ", "), parent.Quota)
		}
	}
}

// hasChildren reports whether a project has sub-projects.
func (p *parser) hasChildren(name string) bool {
	return slices.ContainsFunc(p.projOrder, func(pi *projectInfo) bool { return pi.Parent == name })
}
