package scenario

import (
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// projectInfo is what the job checks need to know about a project.
type projectInfo struct {
	line   int
	parent string
	quota  int
	limit  int
	leaf   bool // no other project names it as parent
	clean  bool // the entry had no errors
}

// projectList parses the projects section, then checks the tree: every
// parent exists and no chain of parents comes back to where it started.
func (p *parser) projectList(raw *yaml.Node) []Project {
	p.projects = make(map[string]*projectInfo)
	p.projectNamesKnown = true
	if raw == nil {
		return nil
	}
	items, ok := p.List(raw, "projects", "projects")
	p.projectNamesKnown = ok
	out := make([]Project, 0, len(items))
	fields := make([]*yamlfield.Fields, 0, len(items))
	for i, item := range items {
		pr, f := p.project(item, i)
		out = append(out, pr)
		fields = append(fields, f)
	}
	treeOK := true
	for i := range out {
		if fields[i] != nil {
			treeOK = p.checkParent(fields[i], &out[i]) && treeOK
		}
	}
	if treeOK && p.projectNamesKnown {
		p.checkChildQuotas(out, fields)
	}
	return out
}

// checkChildQuotas reports parents whose sub-projects deserve more than
// they do, as the master's configuration does: a guarantee cannot be
// divided into larger ones.
func (p *parser) checkChildQuotas(out []Project, fields []*yamlfield.Fields) {
	for i, parent := range out {
		info := p.projects[parent.Name]
		if fields[i] == nil || info == nil || !info.clean {
			continue
		}
		sum, clean := 0, true
		var parts []string
		for _, kid := range out {
			if kid.Parent != parent.Name {
				continue
			}
			ki := p.projects[kid.Name]
			clean = clean && ki != nil && ki.clean
			sum = addSaturating(sum, kid.Quota)
			parts = append(parts, fmt.Sprintf("%s %d", kid.Name, kid.Quota))
		}
		if clean && sum > parent.Quota {
			fields[i].Errorf("quota", "the sub-projects' quotas add up to %d (%s), more than this project's quota of %d",
				sum, strings.Join(parts, ", "), parent.Quota)
		}
	}
}

func (p *parser) project(raw *yaml.Node, i int) (Project, *yamlfield.Fields) {
	pr := Project{Line: raw.Line}
	path := fmt.Sprintf("projects[%d]", i)
	f, ok := p.Fields(raw, path)
	if !ok {
		p.projectNamesKnown = false
		return pr, nil
	}
	errsBefore := p.Count()
	info := &projectInfo{line: raw.Line, leaf: true}
	if f.Required("name") && yamlfield.Field(f, "name", &pr.Name, name) {
		if first, dup := p.projects[pr.Name]; dup {
			f.Errorf("name", "duplicate project name %s (first at line %d)", yamlfield.Quote(pr.Name), first.line)
		} else {
			p.projects[pr.Name] = info
			p.projectOrder = append(p.projectOrder, pr.Name)
		}
		f.Path = path + " " + yamlfield.Quote(pr.Name)
	} else {
		p.projectNamesKnown = false
	}
	yamlfield.Field(f, "parent", &pr.Parent, name)
	quotaOK := f.Required("quota") && yamlfield.Field(f, "quota", &pr.Quota, yamlfield.IntAtLeast(0))
	pr.OverQuotaWeight = float64(max(pr.Quota, 1)) // a project without quota still gets a share
	yamlfield.Field(f, "over_quota_weight", &pr.OverQuotaWeight, nonNegativeNumber)
	if yamlfield.Field(f, "limit", &pr.Limit, yamlfield.IntAtLeast(1)) && quotaOK && pr.Limit < pr.Quota {
		f.Errorf("limit", "a limit of %d is below the project's quota of %d", pr.Limit, pr.Quota)
	}
	yamlfield.Field(f, "preempt_budget", &pr.PreemptBudget, yamlfield.IntAtLeast(1))
	f.Done()
	info.parent, info.quota, info.limit = pr.Parent, pr.Quota, pr.Limit
	info.clean = p.Count() == errsBefore
	return pr, f
}

// checkParent checks that a project's parent exists and that following
// parents from it never returns to it, and reports whether they do.
func (p *parser) checkParent(f *yamlfield.Fields, pr *Project) bool {
	if pr.Parent == "" || !p.projectNamesKnown {
		return true
	}
	parent := p.projects[pr.Parent]
	switch {
	case pr.Parent == pr.Name:
		f.Errorf("parent", "a project cannot be its own parent")
		return false
	case parent == nil:
		f.Errorf("parent", "unknown project %s%s (projects: %s)", yamlfield.Quote(pr.Parent),
			yamlfield.Suggest(pr.Parent, p.projectOrder), yamlfield.OneOf(p.projectOrder))
		return false
	}
	parent.leaf = false
	at := pr.Parent
	for steps := 0; at != ""; steps++ {
		if at == pr.Name || steps > len(p.projects) {
			f.Errorf("parent", "the parents of project %s come back to it (a cycle)", yamlfield.Quote(pr.Name))
			return false
		}
		next := p.projects[at]
		if next == nil {
			return false // reported on that project
		}
		at = next.parent
	}
	return true
}

// checkProjectNames rejects a project named like a pool with a quota: that
// pool's jobs form a project of that name already.
func (p *parser) checkProjectNames(projects []Project) {
	for i, pr := range projects {
		if info := p.pools[pr.Name]; info != nil && info.quota >= 0 {
			p.ErrorAt(pr.Line, fmt.Sprintf("projects[%d] %s: name", i, yamlfield.Quote(pr.Name)), nil,
				"pool %s has a quota, which makes it a project of that name already (line %d)",
				yamlfield.Quote(pr.Name), info.line)
		}
	}
}

// nonNegativeNumber accepts a finite integer or float >= 0.
func nonNegativeNumber(p *yamlfield.Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := yamlfield.Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !yamlfield.DecodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		p.Errorf(raw, path, "expected a number >= 0, got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// limitBelow returns the first project, going up from project, whose limit
// one task of slots would break, with that limit; "" and 0 when none.
func (p *parser) limitBelow(project string, slots int) (string, int) {
	at := project
	for steps := 0; at != "" && steps <= len(p.projects); steps++ {
		info := p.projects[at]
		if info == nil {
			return "", 0
		}
		if info.limit > 0 && slots > info.limit {
			return at, info.limit
		}
		at = info.parent
	}
	return "", 0
}
