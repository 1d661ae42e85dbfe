package config

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

func (p *parser) userList(raw *yaml.Node, defProject string) []User {
	items, _ := p.list(raw, "users", "users")
	seen := make(map[string]int)
	var out []User
	for i, item := range items {
		path := yamlfield.Index("users", i)
		f, ok := p.Fields(item, path)
		if !ok {
			continue
		}
		var u User
		if f.Required("name") && yamlfield.Field(f, "name", &u.Name, name) {
			f.Path = path + " " + yamlfield.Quote(u.Name)
			if first, dup := seen[u.Name]; dup {
				f.Errorf("name", "duplicate user name %s (first at line %d)", yamlfield.Quote(u.Name), first)
			} else {
				seen[u.Name] = item.Line
			}
		}
		projectsOK := p.userProjects(f, &u)
		explicit := yamlfield.Field(f, "default_project", &u.DefaultProject, name)
		f.Done()
		if projectsOK && p.projsKnown && (explicit || f.Node("default_project") == nil) {
			p.userDefault(f, &u, explicit, defProject)
		}
		out = append(out, u)
	}
	return out
}

// userProjects reads the projects a user may submit to and reports
// unknown and repeated ones. It returns false when the list could not be
// read in full.
func (p *parser) userProjects(f *yamlfield.Fields, u *User) bool {
	raw := f.Lookup("projects")
	if raw == nil {
		return true
	}
	path := p.Join(f.Path, "projects")
	items, ok := p.List(raw, path, "project names")
	for i, item := range items {
		ipath := yamlfield.Index(path, i)
		pr, nok := name(p.Parser, item, ipath)
		if !nok {
			ok = false
			continue
		}
		switch {
		case slices.Contains(u.Projects, pr):
			p.Errorf(item, ipath, "project %s is listed twice", yamlfield.Quote(pr))
		case p.projsKnown && p.projects[pr] == nil:
			p.Errorf(item, ipath, "unknown project %s%s (projects: %s)", yamlfield.Quote(pr),
				yamlfield.Suggest(pr, p.projectNames()), strings.Join(p.projectNames(), ", "))
			ok = false
		default:
			u.Projects = append(u.Projects, pr)
		}
	}
	return ok
}

// userDefault checks an explicit default project, or fills one in: the
// config's default project when the user may use it, else the first
// project in file order without sub-projects that the user may use.
func (p *parser) userDefault(f *yamlfield.Fields, u *User, explicit bool, defProject string) {
	if explicit {
		if msg := p.badUserDefault(u, u.DefaultProject); msg != "" {
			f.Errorf("default_project", "%s", msg)
		}
		return
	}
	if defProject == "" {
		return // the config's default is broken, and reported
	}
	if p.badUserDefault(u, defProject) == "" {
		u.DefaultProject = defProject
		return
	}
	for _, pi := range p.projOrder {
		if p.badUserDefault(u, pi.Name) == "" {
			u.DefaultProject = pi.Name
			return
		}
	}
	// Every listed project has a project without sub-projects under it
	// unless the tree is broken, which is reported already.
}

// badUserDefault says why pr cannot be u's default project, or "".
func (p *parser) badUserDefault(u *User, pr string) string {
	switch {
	case p.projects[pr] == nil:
		return fmt.Sprintf("unknown project %s%s (projects: %s)", yamlfield.Quote(pr),
			yamlfield.Suggest(pr, p.projectNames()), strings.Join(p.projectNames(), ", "))
	case p.hasChildren(pr):
		return fmt.Sprintf("%s has sub-projects; jobs run in projects without sub-projects", yamlfield.Quote(pr))
	case !p.userMay(u, pr):
		return fmt.Sprintf("%s is not among the user's projects (%s)", yamlfield.Quote(pr), strings.Join(u.Projects, ", "))
	}
	return ""
}

// userMay reports whether u may submit to pr.
func (p *parser) userMay(u *User, pr string) bool {
	return covers(u.Projects, pr, len(p.projOrder), func(name string) (string, bool) {
		pi := p.projects[name]
		if pi == nil {
			return "", false
		}
		return pi.Parent, true
	})
}

func (p *parser) projectNames() []string {
	names := make([]string, len(p.projOrder))
	for i, pi := range p.projOrder {
		names[i] = pi.Name
	}
	return names
}
