package spec

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// projectInfo is what the tree checks and later sections need to know
// about a project.
type projectInfo struct {
	Project
	path       string // e.g. `projects[1] "vision"`
	parentLine int
	quotaLine  int
	qosLine    int
	qosBad     bool // its qos list names an unknown level
	clean      bool // the entry had no errors, so its numbers can be trusted
}

// Projects reads the projects section (absent: none) and checks the tree:
// parents exist, form no cycle, and the quotas of a project's children
// add up to at most its own.
func (p *Parser) Projects(raw *yaml.Node) []Project {
	if raw == nil {
		return nil
	}
	items, ok := p.List(raw, "projects", "projects")
	// Until every project has a name, an unknown project name elsewhere
	// may just be the broken entry, so the reference checks stay quiet.
	p.ProjectsKnown = ok
	out := make([]Project, 0, len(items))
	for i, item := range items {
		out = append(out, p.project(item, i))
	}
	p.checkTree()
	return out
}

// AddProject registers a project no file gave (the master's "default"
// when a file lists none), so that references to it resolve.
func (p *Parser) AddProject(pr Project) {
	p.addProject(&projectInfo{Project: pr, clean: true})
}

func (p *Parser) addProject(pi *projectInfo) {
	p.projects[pi.Name] = pi
	p.projOrder = append(p.projOrder, pi)
}

func (p *Parser) project(raw *yaml.Node, i int) Project {
	pi := &projectInfo{Project: Project{Line: raw.Line}}
	path := yamlfield.Index("projects", i)
	f, ok := p.Fields(raw, path)
	if !ok {
		p.ProjectsKnown = false
		return pi.Project
	}
	errsBefore := p.Count()
	if f.Required("name") && yamlfield.Field(f, "name", &pi.Name, p.Name) {
		f.Path = path + " " + yamlfield.Quote(pi.Name)
		if first, dup := p.projects[pi.Name]; dup {
			f.Errorf("name", "duplicate project name %s (first at line %d)", yamlfield.Quote(pi.Name), first.Line)
		} else {
			p.addProject(pi)
		}
	} else {
		p.ProjectsKnown = false
	}
	pi.path = f.Path
	yamlfield.Field(f, "parent", &pi.Parent, p.Name)
	if !p.Scenario || f.Required("quota") {
		yamlfield.Field(f, "quota", &pi.Quota, yamlfield.IntAtLeast(0))
	}
	least := 0
	if p.Scenario {
		least = 1
	}
	// A weight of 0 is refused in either format: scenario files once
	// took it (to keep a project off spare slots), which the master's
	// configuration never could express.
	if !yamlfield.Field(f, "over_quota_weight", &pi.OverQuotaWeight, yamlfield.PositiveNumber) {
		// Spare GPUs go in proportion to quota unless said otherwise (seed
		// 002); a project without quota still gets a share.
		pi.OverQuotaWeight = float64(max(pi.Quota, 1))
	}
	yamlfield.Field(f, "limit", &pi.Limit, yamlfield.IntAtLeast(least))
	yamlfield.Field(f, "preempt_budget", &pi.PreemptBudget, yamlfield.IntAtLeast(least))
	if p.ProjectShares && !yamlfield.Field(f, "shares", &pi.Shares, yamlfield.PositiveNumber) {
		pi.Shares = float64(max(pi.Quota, 1))
	}
	if yamlfield.Field(f, "qos", &pi.QOS, p.qosNames) {
		pi.qosLine = f.ValueLine("qos")
	}
	yamlfield.Field(f, "max_priority_class", &pi.MaxPriorityClass, priorityCap)
	pi.parentLine, pi.quotaLine = f.ValueLine("parent"), f.ValueLine("quota")
	f.Done()
	if pi.Limit > 0 && pi.Limit < pi.Quota {
		hint := " (0 means no limit)"
		if p.Scenario {
			hint = ""
		}
		f.Errorf("limit", "limit %d is below the quota %d; a project may always use its quota%s", pi.Limit, pi.Quota, hint)
	}
	pi.clean = p.Count() == errsBefore
	return pi.Project
}

// checkTree checks the project tree once every project is known. Each
// check runs only where the entries involved parsed cleanly, so that one
// mistake is not reported again as its consequences.
func (p *Parser) checkTree() {
	if !p.ProjectsKnown {
		return
	}
	names := p.ProjectNames()
	treeOK := true
	for _, pi := range p.projOrder {
		if pi.Parent == "" {
			continue
		}
		switch _, ok := p.projects[pi.Parent]; {
		case pi.Parent == pi.Name:
			p.ErrorAt(pi.parentLine, p.Join(pi.path, "parent"), nil, "a project cannot be its own parent")
			treeOK = false
		case !ok:
			p.ErrorAt(pi.parentLine, p.Join(pi.path, "parent"), nil, "unknown project %s%s (projects: %s)",
				yamlfield.Quote(pi.Parent), yamlfield.Suggest(pi.Parent, names), strings.Join(names, ", "))
			treeOK = false
		}
	}
	if !treeOK {
		return
	}
	for _, pi := range p.projOrder {
		if cycle := p.cycleFrom(pi); cycle != nil {
			p.ErrorAt(pi.parentLine, p.Join(pi.path, "parent"), nil, "the parents form a cycle: %s", strings.Join(cycle, " → "))
			return
		}
	}
	p.checkQuotas()
}

// cycleFrom returns the names along the cycle that pi's parents run into,
// starting and ending at pi, or nil when pi's chain reaches the top or a
// cycle that pi is not on (reported from a project on it).
func (p *Parser) cycleFrom(pi *projectInfo) []string {
	path, back, _ := WalkParents(pi.Name, func(name string) (string, bool) {
		at := p.projects[name]
		if at == nil {
			return "", false
		}
		return at.Parent, true
	}, len(p.projOrder))
	if !back {
		return nil
	}
	return path
}

// WalkParents follows the parents of name in a tree of at most size
// entries (projects, or a scenario's fair-share accounts), parent giving
// each entry's parent ("" at the top) and false for an unknown entry.
// It returns the names met, name first, and how the walk ended: back at
// name (back; path ends with name again), or stuck in a cycle that name
// is not on (stuck); neither when it reached the top or an unknown name.
func WalkParents(name string, parent func(string) (string, bool), size int) (path []string, back, stuck bool) {
	path = []string{name}
	at := name
	for range size + 1 {
		up, ok := parent(at)
		switch {
		case !ok || up == "":
			return path, false, false
		case up == name:
			return append(path, up), true, false
		}
		path = append(path, up)
		at = up
	}
	return path, false, true
}

// checkQuotas reports parents whose children deserve more than they do: a
// guarantee cannot be divided into larger ones.
func (p *Parser) checkQuotas() {
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

// Project returns a project read so far, and whether its entry parsed
// cleanly (its numbers can be trusted).
func (p *Parser) Project(name string) (pr Project, clean, ok bool) {
	pi := p.projects[name]
	if pi == nil {
		return Project{}, false, false
	}
	return pi.Project, pi.clean, true
}

// HasChildren reports whether a project has sub-projects: only projects
// without take jobs.
func (p *Parser) HasChildren(name string) bool {
	return slices.ContainsFunc(p.projOrder, func(pi *projectInfo) bool { return pi.Parent == name })
}

// ProjectNames lists the projects' names in file order.
func (p *Parser) ProjectNames() []string {
	names := make([]string, len(p.projOrder))
	for i, pi := range p.projOrder {
		names[i] = pi.Name
	}
	return names
}

// LimitBelow returns the first project, going up from project, whose
// limit one task of slots would break, with that limit; "" and 0 when
// none.
func (p *Parser) LimitBelow(project string, slots int) (string, int) {
	at := project
	for steps := 0; at != "" && steps <= len(p.projOrder); steps++ {
		pi := p.projects[at]
		if pi == nil {
			return "", 0
		}
		if pi.Limit > 0 && slots > pi.Limit {
			return at, pi.Limit
		}
		at = pi.Parent
	}
	return "", 0
}
