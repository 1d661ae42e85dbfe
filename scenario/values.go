package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// The value parsers here are the ones only scenario files have; the common
// ones (integers, durations, enums, ...) are in package yamlfield.

// name accepts a non-empty string.
func name(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	if ok && s == "" {
		p.Errorf(raw, path, "expected a non-empty name, got \"\"")
		return "", false
	}
	return s, ok
}

// stringMap accepts a mapping of strings to strings; null means none.
func stringMap(p *yamlfield.Parser, raw *yaml.Node, path string) (map[string]string, bool) {
	if n := yamlfield.Resolve(raw); n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, true
	}
	prs, ok := p.Pairs(raw, path)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(prs))
	for _, pr := range prs {
		v, vok := yamlfield.Text(p, pr.Val, p.Join(path, pr.Key.Value))
		if pr.Key.ShortTag() == "!!null" {
			p.Errorf(pr.Key, path, "expected a key, got null")
			vok = false
		}
		ok = ok && vok
		out[pr.Key.Value] = v
	}
	return out, ok
}
