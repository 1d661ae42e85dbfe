package jobfile

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Each valueParser below accepts only the YAML types (by resolved tag) that
// can spell its value, so that a value of the wrong type is an error and
// never quietly becomes a default: slots: "8" and preemptible: yes are both
// rejected.

// maxDurationSeconds keeps every duration convertible to time.Duration.
const maxDurationSeconds = math.MaxInt64 / int64(time.Second)

// scalar returns n resolved when it is a scalar with one of tags.
func scalar(n *yaml.Node, tags ...string) (*yaml.Node, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return n, false
	}
	tag := n.ShortTag()
	for _, t := range tags {
		if tag == t {
			return n, true
		}
	}
	return n, false
}

// decodeScalar converts a scalar with yaml's own rules (0x10, 1_000, .5),
// turning a library panic into a failed conversion.
func decodeScalar(n *yaml.Node, out any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return n.Decode(out) == nil
}

// intIn accepts an integer in [lo, hi].
func intIn(lo, hi int) valueParser[int] {
	want := fmt.Sprintf("an integer from %d to %d", lo, hi)
	if hi == math.MaxInt {
		want = fmt.Sprintf("an integer >= %d", lo)
	}
	return func(p *parser, raw *yaml.Node, path string) (int, bool) {
		n, ok := scalar(raw, "!!int")
		var v int64
		if !ok || !decodeScalar(n, &v) || v < int64(lo) || v > int64(hi) {
			p.errorf(raw, path, "expected %s, got %s", want, describe(n))
			return 0, false
		}
		return int(v), true
	}
}

// intAtLeast accepts an integer >= lo.
func intAtLeast(lo int) valueParser[int] { return intIn(lo, math.MaxInt) }

// int64In accepts an integer in [lo, hi], with a custom description.
func int64In(lo, hi int64, want string) valueParser[int64] {
	return func(p *parser, raw *yaml.Node, path string) (int64, bool) {
		n, ok := scalar(raw, "!!int")
		var v int64
		if !ok || !decodeScalar(n, &v) || v < lo || v > hi {
			p.errorf(raw, path, "expected %s, got %s", want, describe(n))
			return 0, false
		}
		return v, true
	}
}

// number accepts a finite integer or float.
func number(p *parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !decodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) {
		p.errorf(raw, path, "expected a finite number, got %s", describe(n))
		return 0, false
	}
	return v, true
}

// positiveNumber accepts a finite integer or float > 0.
func positiveNumber(p *parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !decodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		p.errorf(raw, path, "expected a number > 0, got %s", describe(n))
		return 0, false
	}
	return v, true
}

// boolean accepts true or false.
func boolean(p *parser, raw *yaml.Node, path string) (bool, bool) {
	n, ok := scalar(raw, "!!bool")
	var v bool
	if !ok || !decodeScalar(n, &v) {
		p.errorf(raw, path, "expected true or false, got %s", describe(n))
		return false, false
	}
	return v, true
}

// text accepts any string-like scalar; numbers and dates keep the text as
// written, so "project: 12" is the project "12". Booleans and null are
// rejected because they are far more often a mistake than a name.
func text(p *parser, raw *yaml.Node, path string) (string, bool) {
	n, ok := scalar(raw, "!!str", "!!int", "!!float", "!!timestamp")
	if !ok {
		p.errorf(raw, path, "expected a string, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// maxNameBytes bounds names (job, project, pool).
const maxNameBytes = 128

// name accepts a non-empty name of at most maxNameBytes bytes with no
// control characters and no leading or trailing space.
func name(p *parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := text(p, raw, path)
	if !ok {
		return "", false
	}
	if msg := checkName(s); msg != "" {
		p.errorf(raw, path, "%s, got %s", msg, quote(s))
		return "", false
	}
	return s, true
}

// checkName returns what is wrong with a name, or "".
func checkName(s string) string {
	switch {
	case s == "":
		return "expected a non-empty name"
	case len(s) > maxNameBytes:
		return fmt.Sprintf("expected a name of at most %d bytes", maxNameBytes)
	case strings.TrimSpace(s) != s:
		return "expected a name without leading or trailing spaces"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "expected a name without control characters"
	}
	return ""
}

// enum accepts one of values; what names the value in messages ("kind").
func enum[S ~string](what string, values ...S) valueParser[S] {
	return func(p *parser, raw *yaml.Node, path string) (S, bool) {
		n, ok := scalar(raw, "!!str")
		if !ok {
			p.errorf(raw, path, "expected one of %s, got %s", oneOf(values), describe(n))
			return "", false
		}
		for _, v := range values {
			if string(v) == n.Value {
				return v, true
			}
		}
		opts := make([]string, len(values))
		for i, v := range values {
			opts[i] = string(v)
		}
		p.errorf(raw, path, "unknown %s %s%s (expected one of %s)", what, quote(n.Value), suggest(n.Value, opts), oneOf(values))
		return "", false
	}
}

// duration accepts whole seconds >= 0: an integer, a float with a whole
// value, or a Go duration string such as "1h30m".
func duration(p *parser, raw *yaml.Node, path string) (int64, bool) {
	const want = "expected a duration (whole seconds like 90, or a string like 90s or 1h30m)"
	n, ok := scalar(raw, "!!int", "!!float", "!!str")
	if !ok {
		p.errorf(raw, path, "%s, got %s", want, describe(n))
		return 0, false
	}
	got := describe(n)
	switch n.ShortTag() {
	case "!!int":
		var v int64
		if !decodeScalar(n, &v) {
			p.errorf(raw, path, "%s, got %s", want, got)
			return 0, false
		}
		return checkSeconds(p, raw, path, got, float64(v), v)
	case "!!float":
		var v float64
		if !decodeScalar(n, &v) || math.IsNaN(v) {
			p.errorf(raw, path, "%s, got %s", want, got)
			return 0, false
		}
		if v != math.Trunc(v) {
			p.errorf(raw, path, "expected a whole number of seconds, got %s", got)
			return 0, false
		}
		return checkSeconds(p, raw, path, got, v, int64(math.Min(v, float64(maxDurationSeconds))))
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		p.errorAt(raw.Line, path, err, "%s, got %s", want, got)
		return 0, false
	}
	if d%time.Second != 0 {
		p.errorf(raw, path, "expected a whole number of seconds, got %s", got)
		return 0, false
	}
	return checkSeconds(p, raw, path, got, d.Seconds(), int64(d/time.Second))
}

// checkSeconds applies the range check shared by all duration spellings;
// approx is the value as a float so that huge floats compare correctly.
func checkSeconds(p *parser, raw *yaml.Node, path, got string, approx float64, secs int64) (int64, bool) {
	switch {
	case approx < 0:
		p.errorf(raw, path, "expected a duration >= 0, got %s", got)
		return 0, false
	case approx > float64(maxDurationSeconds):
		p.errorf(raw, path, "duration %s is too long (the limit is %ds, about 292 years)", got, maxDurationSeconds)
		return 0, false
	}
	return secs, true
}

// positiveDuration is duration, but 0 is rejected too.
func positiveDuration(p *parser, raw *yaml.Node, path string) (int64, bool) {
	v, ok := duration(p, raw, path)
	if ok && v == 0 {
		p.errorf(raw, path, "expected a duration > 0, got %s", describe(resolve(raw)))
		return 0, false
	}
	return v, ok
}
