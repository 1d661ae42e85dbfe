package yamlfield

import (
	"fmt"
	"math"
	"time"

	"go.yaml.in/yaml/v3"
)

// Each ValueParser below accepts only the YAML types (by resolved tag) that
// can spell its value, so that a value of the wrong type is an error and
// never quietly becomes a default: slots: "8" and preemptible: yes are both
// rejected.

// maxDurationSeconds keeps every duration convertible to time.Duration.
const maxDurationSeconds = math.MaxInt64 / int64(time.Second)

// Scalar returns n resolved, and whether it is a scalar with one of tags.
func Scalar(n *yaml.Node, tags ...string) (*yaml.Node, bool) {
	n = Resolve(n)
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

// DecodeScalar converts a scalar with yaml's own rules (0x10, 1_000, .5),
// turning a library panic into a failed conversion.
func DecodeScalar(n *yaml.Node, out any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return n.Decode(out) == nil
}

// IntIn accepts an integer in [lo, hi].
func IntIn(lo, hi int) ValueParser[int] {
	want := fmt.Sprintf("an integer from %d to %d", lo, hi)
	if hi == math.MaxInt {
		want = fmt.Sprintf("an integer >= %d", lo)
	}
	parse := Int64In(int64(lo), int64(hi), want)
	return func(p *Parser, raw *yaml.Node, path string) (int, bool) {
		v, ok := parse(p, raw, path)
		return int(v), ok
	}
}

// IntAtLeast accepts an integer >= lo.
func IntAtLeast(lo int) ValueParser[int] { return IntIn(lo, math.MaxInt) }

// Int64In accepts an integer in [lo, hi]; want describes the range in
// messages ("an integer >= 0").
func Int64In(lo, hi int64, want string) ValueParser[int64] {
	return func(p *Parser, raw *yaml.Node, path string) (int64, bool) {
		n, ok := Scalar(raw, "!!int")
		var v int64
		if !ok || !DecodeScalar(n, &v) || v < lo || v > hi {
			p.Errorf(raw, path, "expected %s, got %s", want, p.Describe(n))
			return 0, false
		}
		return v, true
	}
}

// Number accepts a finite integer or float.
func Number(p *Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !DecodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) {
		p.Errorf(raw, path, "expected a finite number, got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// PositiveNumber accepts a finite integer or float > 0.
func PositiveNumber(p *Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !DecodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		p.Errorf(raw, path, "expected a number > 0, got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// Boolean accepts true or false.
func Boolean(p *Parser, raw *yaml.Node, path string) (bool, bool) {
	n, ok := Scalar(raw, "!!bool")
	var v bool
	if !ok || !DecodeScalar(n, &v) {
		p.Errorf(raw, path, "expected true or false, got %s", p.Describe(n))
		return false, false
	}
	return v, true
}

// Text accepts any string-like scalar; numbers and dates keep the text as
// written, so "rack: 12" is the label "12". Booleans and null are rejected
// because they are far more often a mistake than a name.
func Text(p *Parser, raw *yaml.Node, path string) (string, bool) {
	n, ok := Scalar(raw, "!!str", "!!int", "!!float", "!!timestamp")
	if !ok {
		p.Errorf(raw, path, "expected a string, got %s", p.Describe(n))
		return "", false
	}
	return n.Value, true
}

// Enum accepts one of values; what names the value in messages ("policy").
func Enum[S ~string](what string, values ...S) ValueParser[S] {
	return func(p *Parser, raw *yaml.Node, path string) (S, bool) {
		n, ok := Scalar(raw, "!!str")
		if !ok {
			p.Errorf(raw, path, "expected one of %s, got %s", OneOf(values), p.Describe(n))
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
		p.Errorf(raw, path, "unknown %s %s%s (expected one of %s)", what, Quote(n.Value), Suggest(n.Value, opts), OneOf(values))
		return "", false
	}
}

// Duration accepts whole seconds >= 0: an integer, a float with a whole
// value, or a string: a Go duration such as "1h30m", one with whole days
// first ("2d", "1d12h"), or one of Slurm's forms ("1:30:00", "2-12:00:00";
// see parseDurationString). The result always converts to time.Duration
// without overflow.
func Duration(p *Parser, raw *yaml.Node, path string) (int64, bool) {
	return duration(p, raw, path, ">= 0")
}

// duration is Duration, with floor saying what a negative value was
// expected to be (">= 0", or "> 0" for PositiveDuration, so that -1h and
// 0 are refused with the same rule).
func duration(p *Parser, raw *yaml.Node, path, floor string) (int64, bool) {
	n, ok := Scalar(raw, "!!int", "!!float", "!!str")
	if !ok {
		p.Errorf(raw, path, "%s, got %s", durationWant, p.Describe(n))
		return 0, false
	}
	got := p.Describe(n)
	switch n.ShortTag() {
	case "!!int":
		var v int64
		if !DecodeScalar(n, &v) {
			p.Errorf(raw, path, "%s, got %s", durationWant, got)
			return 0, false
		}
		return checkSeconds(p, raw, path, floor, got, float64(v), v)
	case "!!float":
		var v float64
		if !DecodeScalar(n, &v) || math.IsNaN(v) {
			p.Errorf(raw, path, "%s, got %s", durationWant, got)
			return 0, false
		}
		if v != math.Trunc(v) {
			p.Errorf(raw, path, "expected a whole number of seconds, got %s", got)
			return 0, false
		}
		return checkSeconds(p, raw, path, floor, got, v, int64(math.Min(v, float64(maxDurationSeconds))))
	}
	secs, approx, bad := parseDurationString(n.Value, got)
	if bad != nil {
		p.ErrorAt(raw.Line, path, bad.cause, "%s", bad.msg)
		return 0, false
	}
	return checkSeconds(p, raw, path, floor, got, approx, secs)
}

// checkSeconds applies the range check shared by all duration spellings;
// approx is the value as a float so that huge floats compare correctly.
func checkSeconds(p *Parser, raw *yaml.Node, path, floor, got string, approx float64, secs int64) (int64, bool) {
	if msg := rangeProblem(floor, got, approx); msg != "" {
		p.Errorf(raw, path, "%s", msg)
		return 0, false
	}
	return secs, true
}

// rangeProblem says why a duration of about approx seconds is out of
// range, or "" when it is not; floor is the rule a negative one breaks
// (">= 0").
func rangeProblem(floor, got string, approx float64) string {
	switch {
	case approx < 0:
		return "expected a duration " + floor + ", got " + got
	case approx > float64(maxDurationSeconds):
		return fmt.Sprintf("duration %s is too long (the limit is %ds, about 292 years)", got, maxDurationSeconds)
	}
	return ""
}

// PositiveDuration is Duration, but 0 is rejected too.
func PositiveDuration(p *Parser, raw *yaml.Node, path string) (int64, bool) {
	v, ok := duration(p, raw, path, "> 0")
	if ok && v == 0 {
		p.Errorf(raw, path, "expected a duration > 0, got %s", p.Describe(Resolve(raw)))
		return 0, false
	}
	return v, ok
}
