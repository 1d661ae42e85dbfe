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
