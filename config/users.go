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
		u := User{Shares: 1}
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
		yamlfield.Field(f, "shares", &u.Shares, yamlfield.PositiveNumber)
		f.Done()
		if projectsOK && p.ProjectsKnown && (explicit || f.Node("default_project") == nil) {
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
		pr, nok := name(p.Parser.Parser, item, ipath)
		if !nok {
			ok = false
			continue
		}
		switch {
		case slices.Contains(u.Projects, pr):
			p.Errorf(item, ipath, "project %s is listed twice", yamlfield.Quote(pr))
		case p.ProjectsKnown && !p.known(pr):
			p.Errorf(item, ipath, "unknown project %s%s (projects: %s)", yamlfield.Quote(pr),
				yamlfield.Suggest(pr, p.ProjectNames()), strings.Join(p.ProjectNames(), ", "))
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
	for _, pr := range p.ProjectNames() {
		if p.badUserDefault(u, pr) == "" {
			u.DefaultProject = pr
			return
		}
	}
	// Every listed project has a project without sub-projects under it
	// unless the tree is broken, which is reported already.
}

// badUserDefault says why pr cannot be u's default project, or "".
func (p *parser) badUserDefault(u *User, pr string) string {
	switch {
	case !p.known(pr):
		return fmt.Sprintf("unknown project %s%s (projects: %s)", yamlfield.Quote(pr),
			yamlfield.Suggest(pr, p.ProjectNames()), strings.Join(p.ProjectNames(), ", "))
	case p.HasChildren(pr):
		return fmt.Sprintf("%s has sub-projects; jobs run in projects without sub-projects", yamlfield.Quote(pr))
	case !p.userMay(u, pr):
		return fmt.Sprintf("%s is not among the user's projects (%s)", yamlfield.Quote(pr), strings.Join(u.Projects, ", "))
	}
	return ""
}

// userMay reports whether u may submit to pr.
func (p *parser) userMay(u *User, pr string) bool {
	return covers(u.Projects, pr, len(p.ProjectNames()), func(name string) (string, bool) {
		pr, _, ok := p.Project(name)
		return pr.Parent, ok
	})
}

// known reports whether a project of that name was read.
func (p *parser) known(pr string) bool {
	_, _, ok := p.Project(pr)
	return ok
}
