package jobfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// HPType is the type of a hyperparameter.
type HPType string

// Hyperparameter types.
const (
	HPConst       HPType = "const"       // one value: Val
	HPCategorical HPType = "categorical" // one of Vals
	HPInt         HPType = "int"         // an integer in [Minval, Maxval]
	HPDouble      HPType = "double"      // a float in [Minval, Maxval]
	HPLog         HPType = "log"         // Base ** x for x in [Minval, Maxval]
)

var hpTypes = []HPType{HPConst, HPCategorical, HPInt, HPDouble, HPLog}

// maxSafeInt bounds int hyperparameters to integers that every JSON reader
// (JavaScript included) holds exactly.
const maxSafeInt = 1 << 53

// maxValueDepth bounds the nesting of a constant or categorical value.
const maxValueDepth = 64

// Hyperparameter is one hyperparameter of an experiment. In a job file a
// plain value (a scalar or a list) is a constant; a mapping needs a type.
type Hyperparameter struct {
	Type HPType `json:"type"`
	// Val is the value of a constant, as compact JSON.
	Val json.RawMessage `json:"val,omitempty"`
	// Vals are the values of a categorical, in file order, as compact JSON.
	Vals []json.RawMessage `json:"vals,omitempty"`
	// Minval and Maxval bound int, double and log hyperparameters, with
	// Minval < Maxval; for log they are exponents of Base. For int they
	// are integers within ±2^53.
	Minval float64 `json:"minval,omitempty"`
	Maxval float64 `json:"maxval,omitempty"`
	// Base is the base of a log hyperparameter (> 0, not 1; default 10).
	Base float64 `json:"base,omitempty"`
	// Count is the number of grid points of an int, double or log
	// hyperparameter; 0 when not given. Random search ignores it.
	Count int `json:"count,omitempty"`
}

// MarshalJSON writes only the fields of h's type, in the job file's form,
// with int bounds as integers and double bounds as floats (1.0, not 1).
func (h Hyperparameter) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":%q`, h.Type)
	switch h.Type {
	case HPConst:
		b.WriteString(`,"val":`)
		b.Write(h.Val)
	case HPCategorical:
		b.WriteString(`,"vals":[`)
		for i, v := range h.Vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(v)
		}
		b.WriteByte(']')
	case HPInt:
		fmt.Fprintf(&b, `,"minval":%d,"maxval":%d`, int64(h.Minval), int64(h.Maxval))
	case HPDouble, HPLog:
		if math.IsNaN(h.Minval) || math.IsInf(h.Minval, 0) || math.IsNaN(h.Maxval) || math.IsInf(h.Maxval, 0) {
			return nil, fmt.Errorf("jobfile: hyperparameter bounds %v, %v are not finite", h.Minval, h.Maxval)
		}
		fmt.Fprintf(&b, `,"minval":%s,"maxval":%s`, formatFloat(h.Minval), formatFloat(h.Maxval))
		if h.Type == HPLog {
			fmt.Fprintf(&b, `,"base":%s`, formatFloat(h.Base))
		}
	default:
		return nil, fmt.Errorf("jobfile: unknown hyperparameter type %q", h.Type)
	}
	if h.Count > 0 && (h.Type == HPInt || h.Type == HPDouble || h.Type == HPLog) {
		fmt.Fprintf(&b, `,"count":%d`, h.Count)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// formatFloat writes v as JSON that reads back as a float: 1 is "1.0".
func formatFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// jsonString writes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// hyperparameters parses the hyperparameters mapping; null or empty is nil.
func (p *parser) hyperparameters(raw *yaml.Node) map[string]Hyperparameter {
	if raw == nil || yamlfield.IsNull(raw) {
		return nil
	}
	prs, ok := p.Pairs(raw, "hyperparameters")
	if !ok || len(prs) == 0 {
		return nil
	}
	out := make(map[string]Hyperparameter, len(prs))
	for _, pr := range prs {
		name := pr.Key.Value
		path := p.Join("hyperparameters", name)
		if name == "" || len(name) > maxNameBytes {
			p.Errorf(pr.Key, path, "expected a hyperparameter name of 1 to %d bytes", maxNameBytes)
			continue
		}
		if h, ok := p.hyperparameter(pr.Val, path); ok {
			out[name] = h
		}
	}
	return out
}

func (p *parser) hyperparameter(raw *yaml.Node, path string) (Hyperparameter, bool) {
	n := yamlfield.Resolve(raw)
	if n == nil || n.Kind != yaml.MappingNode {
		v, ok := p.jsonValue(raw, path)
		return Hyperparameter{Type: HPConst, Val: v}, ok
	}
	f, ok := p.Fields(raw, path)
	if !ok {
		return Hyperparameter{}, false
	}
	if f.Node("type") == nil {
		p.Errorf(raw, path, "expected a value, or a mapping with type (one of %s); write {type: const, val: {...}} to give a mapping as one value", yamlfield.OneOf(hpTypes))
		return Hyperparameter{}, false
	}
	var h Hyperparameter
	before := p.Count()
	if !yamlfield.Field(f, "type", &h.Type, yamlfield.Enum("hyperparameter type", hpTypes...)) {
		return h, false // the other fields depend on the type
	}
	defer f.Done()
	switch h.Type {
	case HPConst:
		if f.Required("val") {
			h.Val, _ = p.jsonValue(f.Lookup("val"), p.Join(path, "val"))
		}
	case HPCategorical:
		if !f.Required("vals") {
			break
		}
		vn := f.Lookup("vals")
		items := yamlfield.Resolve(vn)
		if items == nil || items.Kind != yaml.SequenceNode || len(items.Content) == 0 {
			f.Errorf("vals", "expected a non-empty list of values, got %s", p.Describe(items))
			break
		}
		for i, item := range items.Content {
			v, _ := p.jsonValue(item, yamlfield.Index(p.Join(path, "vals"), i))
			h.Vals = append(h.Vals, v)
		}
	case HPInt:
		r := yamlfield.Int64In(-maxSafeInt, maxSafeInt, fmt.Sprintf("an integer from %d to %d", -maxSafeInt, maxSafeInt))
		var lo, hi int64
		okLo := f.Required("minval") && yamlfield.Field(f, "minval", &lo, r)
		okHi := f.Required("maxval") && yamlfield.Field(f, "maxval", &hi, r)
		h.Minval, h.Maxval = float64(lo), float64(hi)
		if okLo && okHi && lo >= hi {
			f.Errorf("maxval", "expected maxval > minval (%d), got %d", lo, hi)
		}
	case HPDouble, HPLog:
		okLo := f.Required("minval") && yamlfield.Field(f, "minval", &h.Minval, yamlfield.Number)
		okHi := f.Required("maxval") && yamlfield.Field(f, "maxval", &h.Maxval, yamlfield.Number)
		if okLo && okHi && h.Minval >= h.Maxval {
			f.Errorf("maxval", "expected maxval > minval (%s), got %s", formatFloat(h.Minval), formatFloat(h.Maxval))
		} else if okLo && okHi && math.IsInf(h.Maxval-h.Minval, 0) {
			f.Errorf("maxval", "the range from minval to maxval is too wide for a float64")
		}
		if h.Type == HPLog {
			h.Base = 10
			if yamlfield.Field(f, "base", &h.Base, yamlfield.PositiveNumber) && h.Base == 1 {
				f.Errorf("base", "expected a base > 0 other than 1, got 1")
			}
			if okLo && okHi && p.Count() == before {
				for _, e := range []float64{h.Minval, h.Maxval} {
					if v := math.Pow(h.Base, e); v == 0 || math.IsInf(v, 0) {
						f.Errorf("maxval", "%s ** %s is outside the range of a float64", formatFloat(h.Base), formatFloat(e))
						break
					}
				}
			}
		}
	}
	if h.Type == HPInt || h.Type == HPDouble || h.Type == HPLog {
		yamlfield.Field(f, "count", &h.Count, yamlfield.IntIn(1, MaxTrials))
	}
	return h, p.Count() == before
}

// jsonValue converts a YAML value to compact JSON: mappings to objects with
// keys in file order, integers and floats kept apart (1.0 stays a float),
// timestamps as the text written. NaN, infinities, integers beyond 64 bits
// and other tags are errors, as is a value over MaxHyperparametersBytes.
func (p *parser) jsonValue(raw *yaml.Node, path string) (json.RawMessage, bool) {
	w := &jsonWriter{p: p, line: raw.Line, path: path}
	if !w.value(raw, path, 0) || !w.fits() {
		return nil, false
	}
	return json.RawMessage(w.buf), true
}

type jsonWriter struct {
	p    *parser
	buf  []byte
	line int    // of the value, for errors about the whole of it
	path string // of the value
}

// fits reports whether the value so far is within the size limit.
func (w *jsonWriter) fits() bool {
	if len(w.buf) > MaxHyperparametersBytes {
		w.p.ErrorAt(w.line, w.path, nil, "the value is larger than %d bytes as JSON", MaxHyperparametersBytes)
		return false
	}
	return true
}

func (w *jsonWriter) value(raw *yaml.Node, path string, depth int) bool {
	if !w.fits() {
		return false
	}
	if depth > maxValueDepth {
		w.p.ErrorAt(w.line, w.path, nil, "the value nests deeper than %d levels", maxValueDepth)
		return false
	}
	n := yamlfield.Resolve(raw)
	if n == nil {
		w.p.Errorf(raw, path, "expected a value, got an unresolvable alias")
		return false
	}
	switch n.Kind {
	case yaml.SequenceNode:
		w.buf = append(w.buf, '[')
		for i, item := range n.Content {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if !w.value(item, yamlfield.Index(path, i), depth+1) {
				return false
			}
		}
		w.buf = append(w.buf, ']')
		return true
	case yaml.MappingNode:
		prs, _ := w.p.Pairs(n, path)
		w.buf = append(w.buf, '{')
		for i, pr := range prs {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = append(w.buf, jsonString(pr.Key.Value)...)
			w.buf = append(w.buf, ':')
			if !w.value(pr.Val, w.p.Join(path, pr.Key.Value), depth+1) {
				return false
			}
		}
		w.buf = append(w.buf, '}')
		return true
	case yaml.ScalarNode:
		return w.scalar(n, raw, path)
	}
	w.p.Errorf(raw, path, "expected a value, got %s", w.p.Describe(n))
	return false
}

func (w *jsonWriter) scalar(n, raw *yaml.Node, path string) bool {
	switch n.ShortTag() {
	case "!!str", "!!timestamp":
		w.buf = append(w.buf, jsonString(n.Value)...)
		return true
	case "!!null":
		w.buf = append(w.buf, "null"...)
		return true
	case "!!bool":
		var v bool
		if yamlfield.DecodeScalar(n, &v) {
			w.buf = strconv.AppendBool(w.buf, v)
			return true
		}
	case "!!int":
		var v int64
		if yamlfield.DecodeScalar(n, &v) {
			w.buf = strconv.AppendInt(w.buf, v, 10)
			return true
		}
		var u uint64
		if yamlfield.DecodeScalar(n, &u) {
			w.buf = strconv.AppendUint(w.buf, u, 10)
			return true
		}
		w.p.Errorf(raw, path, "integer %s is out of range (beyond 64 bits)", w.p.Describe(n))
		return false
	case "!!float":
		var v float64
		if yamlfield.DecodeScalar(n, &v) && !math.IsNaN(v) && !math.IsInf(v, 0) {
			w.buf = append(w.buf, formatFloat(v)...)
			return true
		}
		w.p.Errorf(raw, path, "expected a finite number (JSON has no NaN or infinity), got %s", w.p.Describe(n))
		return false
	}
	w.p.Errorf(raw, path, "expected a string, number, boolean, null, list or mapping, got %s", w.p.Describe(n))
	return false
}
