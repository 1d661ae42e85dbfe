package spec

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// StrictName accepts a non-empty name of at most MaxNameBytes bytes with
// no control characters and no leading or trailing space: the names job
// files can refer to, and the master's configuration's rule.
func StrictName(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	if !ok {
		return "", false
	}
	var msg string
	switch {
	case s == "":
		msg = "expected a non-empty name"
	case len(s) > MaxNameBytes:
		msg = fmt.Sprintf("expected a name of at most %d bytes", MaxNameBytes)
	case strings.TrimSpace(s) != s:
		msg = "expected a name without leading or trailing spaces"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		msg = "expected a name without control characters"
	default:
		return s, true
	}
	p.Errorf(raw, path, "%s, got %s", msg, yamlfield.Quote(s))
	return "", false
}

// AnyName accepts any non-empty string: scenario files name their
// simulated pools and projects freely.
func AnyName(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	if ok && s == "" {
		p.Errorf(raw, path, "expected a non-empty name, got \"\"")
		return "", false
	}
	return s, ok
}

// NonNegative accepts a finite integer or float >= 0.
func NonNegative(p *yamlfield.Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := yamlfield.Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !yamlfield.DecodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		p.Errorf(raw, path, "expected a number >= 0, got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// Fraction accepts a decay factor: a number in (0, 1].
func Fraction(p *yamlfield.Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := yamlfield.Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !yamlfield.DecodeScalar(n, &v) || !(v > 0 && v <= 1) {
		p.Errorf(raw, path, "expected a factor in (0, 1] (1: usage never decays), got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// Labels accepts a node's labels: a mapping of names to values, values
// taken as written (rack: 12 is "12"); null means none. The master's
// files reject an empty name and give nil for an empty mapping; scenario
// files have always taken both as written.
func (p *Parser) Labels(yp *yamlfield.Parser, raw *yaml.Node, path string) (map[string]string, bool) {
	out, ok := yp.StringMap(raw, path, func(pr yamlfield.Pair, vpath string) (string, bool) {
		switch {
		case pr.Key.ShortTag() == "!!null":
			yp.Errorf(pr.Key, path, "expected a label name, got null")
			return "", false
		case pr.Key.Value == "" && !p.Scenario:
			yp.Errorf(pr.Key, path, "expected a non-empty label name")
			return "", false
		}
		return yamlfield.Text(yp, pr.Val, vpath)
	})
	if len(out) == 0 && !p.Scenario {
		out = nil
	}
	return out, ok
}
