package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// A project's qos list is Slurm's AllowQOS for an account: its jobs may
// name only those levels, and a project without a list takes its
// parent's, so that a department's rule covers its teams. The list is
// read with the project and checked against the qos section once that
// is read (checkProjectQOS).

// qosNames reads a project's qos list: at least one name, no repeats.
func (p *Parser) qosNames(yp *yamlfield.Parser, raw *yaml.Node, path string) ([]string, bool) {
	items, ok := yp.List(raw, path, "QOS names")
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		yp.Errorf(raw, path, "expected at least one QOS name; leave qos out to allow every QOS level")
		return nil, false
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		name, ok := p.Name(yp, item, yamlfield.Index(path, i))
		if !ok {
			return nil, false
		}
		if slices.Contains(out, name) {
			yp.Errorf(item, yamlfield.Index(path, i), "QOS %s is listed twice", yamlfield.Quote(name))
			return nil, false
		}
		out = append(out, name)
	}
	return out, true
}

// checkProjectQOS checks that every QOS a project lists is a level of the
// qos section, once both are read.
func (p *Parser) checkProjectQOS() {
	if !p.QOSKnown {
		return
	}
	for _, pi := range p.projOrder {
		for _, name := range pi.QOS {
			if _, ok := p.qos[name]; ok {
				continue
			}
			pi.qosBad = true
			if len(p.QOSOrder) == 0 {
				p.ErrorAt(pi.qosLine, p.Join(pi.path, "qos"), nil, "unknown QOS %s: the file defines no QOS levels", yamlfield.Quote(name))
				continue
			}
			p.ErrorAt(pi.qosLine, p.Join(pi.path, "qos"), nil, "unknown QOS %s%s (qos: %s)", yamlfield.Quote(name),
				yamlfield.Suggest(name, p.QOSOrder), yamlfield.OneOf(p.QOSOrder))
		}
	}
}

// AllowedQOS returns the QOS levels project name's jobs may name, with
// the project whose list it is: its own list, else its nearest
// ancestor's; nil and "" when none has one (every level).
func AllowedQOS(projects []Project, name string) (levels []string, from string) {
	return allowedQOS(name, len(projects), func(n string) (Project, bool) {
		i := slices.IndexFunc(projects, func(pr Project) bool { return pr.Name == n })
		if i < 0 {
			return Project{}, false
		}
		return projects[i], true
	})
}

func allowedQOS(name string, size int, project func(string) (Project, bool)) ([]string, string) {
	for range size + 1 { // a cycle (never in a checked tree) ends
		pr, ok := project(name)
		if !ok {
			return nil, ""
		}
		if pr.QOS != nil {
			return pr.QOS, name
		}
		name = pr.Parent
	}
	return nil, ""
}

// CheckQOSAllowed reports a job of project naming QOS qos that the
// project's list (AllowedQOS) does not allow, in words for its author.
func CheckQOSAllowed(projects []Project, project, qos string) error {
	levels, from := AllowedQOS(projects, project)
	return qosRefused(project, qos, levels, from)
}

// CheckProjectQOS is CheckQOSAllowed over the projects read so far, for
// formats that check their jobs as they read them.
func (p *Parser) CheckProjectQOS(project, qos string) error {
	bad := false
	levels, from := allowedQOS(project, len(p.projOrder), func(n string) (Project, bool) {
		pi, ok := p.projects[n]
		if !ok {
			return Project{}, false
		}
		bad = bad || pi.qosBad && pi.QOS != nil
		return pi.Project, true
	})
	if bad {
		return nil // the list's own error is reported; its uses would repeat it
	}
	return qosRefused(project, qos, levels, from)
}

func qosRefused(project, qos string, levels []string, from string) error {
	if levels == nil || slices.Contains(levels, qos) {
		return nil
	}
	whose := "its qos"
	if from != project {
		whose = "the qos of its parent " + from
	}
	return fmt.Errorf("project %s may not use QOS %s (%s: %s)", project, yamlfield.Quote(qos), whose, strings.Join(levels, ", "))
}
