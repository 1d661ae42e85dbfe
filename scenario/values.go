package scenario

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// The value parsers here are the ones only scenario files have; the common
// ones (integers, durations, enums, ...) are in package yamlfield.

// name accepts a non-empty string: the cluster spec's rule for scenario
// names.
var name = spec.AnyName

// priorityClass accepts HIGH, NORMAL or LOW in any case, as job files do.
func priorityClass(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	n, ok := yamlfield.Scalar(raw, "!!str")
	if !ok {
		p.Errorf(raw, path, "expected one of %s, got %s", yamlfield.OneOf(classes), p.Describe(n))
		return "", false
	}
	for _, c := range classes {
		if strings.EqualFold(n.Value, c) {
			return c, true
		}
	}
	p.Errorf(raw, path, "unknown priority class %s%s (expected one of %s)", yamlfield.Quote(n.Value),
		yamlfield.Suggest(strings.ToUpper(n.Value), classes), yamlfield.OneOf(classes))
	return "", false
}

// classPriority is a class's canonical number.
func classPriority(class string) int {
	switch class {
	case ClassHigh:
		return 10
	case ClassLow:
		return 80
	}
	return DefaultPriority
}

// classOf is the class whose band holds priority (1..99).
func classOf(priority int) string {
	switch {
	case priority < 30:
		return ClassHigh
	case priority < 60:
		return ClassNormal
	}
	return ClassLow
}

// classBand renders a class's band for messages.
func classBand(class string) string {
	switch class {
	case ClassHigh:
		return "1-29"
	case ClassLow:
		return "60-99"
	}
	return "30-59"
}

// licenseMap accepts a mapping of license names to counts >= 1.
func licenseMap(p *yamlfield.Parser, raw *yaml.Node, path string) (map[string]int, bool) {
	prs, ok := p.Pairs(raw, path)
	if !ok {
		return nil, false
	}
	out := make(map[string]int, len(prs))
	for _, pr := range prs {
		if pr.Key.ShortTag() == "!!null" || pr.Key.Value == "" {
			p.Errorf(pr.Key, path, "expected a license name, got %s", p.Describe(pr.Key))
			ok = false
			continue
		}
		n, vok := yamlfield.IntAtLeast(1)(p, pr.Val, p.Join(path, pr.Key.Value))
		ok = ok && vok
		out[pr.Key.Value] = n
	}
	return out, ok
}
