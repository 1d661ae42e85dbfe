package config

import (
	"strings"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// The sections of multifactor pools are package spec's (the pool's
// multifactor block, the QOS list, licenses and the usage decay); what
// the master adds to them is a default QOS.

// defaultQOS checks the file's default_qos against the list, or picks the
// first QOS.
func (p *parser) defaultQOS(f *yamlfield.Fields, list []spec.QOS) string {
	var def string
	if !yamlfield.Field(f, "default_qos", &def, name) {
		if len(list) == 0 || f.Node("default_qos") != nil {
			return ""
		}
		return list[0].Name
	}
	if !p.QOSKnown || p.HasQOS(def) {
		return def
	}
	names := spec.QOSNames(list)
	f.Errorf("default_qos", "%s is not a QOS%s (qos: %s)", yamlfield.Quote(def), yamlfield.Suggest(def, names),
		strings.Join(names, ", "))
	return ""
}

// checkDefaultQOS refuses a default project whose qos list (its own or a
// parent's) leaves out the default QOS: every job submitted there
// without a QOS would be refused.
func (p *parser) checkDefaultQOS(f *yamlfield.Fields, c *Config) {
	if c.DefaultQOS == "" || !p.QOSKnown {
		return
	}
	if err := p.CheckProjectQOS(c.DefaultProject, c.DefaultQOS); err != nil {
		key, line := "default_qos", f.ValueLine("default_qos")
		switch {
		case f.Has("default_qos"):
		case f.Has("default_project"):
			key, line = "default_project", f.ValueLine("default_project")
		default:
			key, line = "projects", f.KeyLine("projects")
		}
		p.ErrorAt(line, key, nil, "%v, and %s is the default QOS of the default project: every job there that names none would be refused; "+
			"add it to the project's qos or set default_qos to a level the project may use", err, yamlfield.Quote(c.DefaultQOS))
	}
}
