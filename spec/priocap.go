package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// PriorityClasses are the job files' priority classes, most important
// first, which a project's max_priority_class names.
var PriorityClasses = []string{"HIGH", "NORMAL", "LOW"}

// priorityCap reads a project's max_priority_class: one of
// PriorityClasses in any case, as a job file's priority_class is, kept
// in its canonical form ("high" is HIGH).
func priorityCap(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	if !ok {
		return "", false
	}
	if c := strings.ToUpper(s); slices.Contains(PriorityClasses, c) {
		return c, true
	}
	p.Errorf(raw, path, "expected one of %s, got %s", yamlfield.OneOf(PriorityClasses), yamlfield.Quote(s))
	return "", false
}

// MaxPriorityClass returns the most important priority class the members
// of project name may give their jobs, with the project whose setting it
// is: its own max_priority_class, else its nearest ancestor's; "" and ""
// when none sets one (every class). Leads of the project and admins are
// not capped (Slurm lets only operators raise a job's priority).
func MaxPriorityClass(projects []Project, name string) (class, from string) {
	for range len(projects) + 1 { // a cycle (never in a checked tree) ends
		i := slices.IndexFunc(projects, func(pr Project) bool { return pr.Name == name })
		if i < 0 {
			return "", ""
		}
		if c := projects[i].MaxPriorityClass; c != "" {
			return c, name
		}
		name = projects[i].Parent
	}
	return "", ""
}

// AbovePriorityCap says why a member may not give a job of project the
// priority class class, or nil when it may: the project (or the ancestor
// whose setting it is) caps its members' jobs at a less important class.
func AbovePriorityCap(projects []Project, project, class string) error {
	limit, from := MaxPriorityClass(projects, project)
	if limit == "" || slices.Index(PriorityClasses, class) >= slices.Index(PriorityClasses, limit) {
		return nil
	}
	where := fmt.Sprintf("project %s", project)
	if from != project {
		where += fmt.Sprintf(" (by its parent %s)", from)
	}
	return fmt.Errorf("%s caps its members' jobs at priority class %s (max_priority_class), so %s work needs its lead or an admin",
		where, limit, class)
}
