package config

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// The sections of multifactor pools that package spec reads (the pool's
// multifactor block, the QOS list, licenses and the usage decay), and
// what the master adds to them: a default QOS, and a decay without a
// section.

// decay reads the usage decay, DefaultDecay without a section.
func (p *parser) decay(raw *yaml.Node) sched.Decay {
	if raw == nil {
		return DefaultDecay()
	}
	d, _ := p.Decay(raw)
	return d.Sched()
}

// qosList reads the QOS levels; without a qos section the list is
// sched.DefaultQOS.
func (p *parser) qosList(raw *yaml.Node) []sched.QOS {
	levels := p.QOSList(raw)
	out := make([]sched.QOS, len(levels))
	for i, q := range levels {
		out[i] = q.Sched()
	}
	return out
}

// defaultQOS checks the file's default_qos against the list, or picks the
// first QOS.
func (p *parser) defaultQOS(f *yamlfield.Fields, list []sched.QOS) string {
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
	names := qosNames(list)
	f.Errorf("default_qos", "%s is not a QOS%s (qos: %s)", yamlfield.Quote(def), yamlfield.Suggest(def, names),
		strings.Join(names, ", "))
	return ""
}

func qosNames(list []sched.QOS) []string {
	out := make([]string, len(list))
	for i, q := range list {
		out[i] = q.Name
	}
	return out
}
