package jobfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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
	if raw == nil || isNull(raw) {
		return nil
	}
	prs, ok := p.pairs(raw, "hyperparameters")
	if !ok || len(prs) == 0 {
		return nil
	}
	out := make(map[string]Hyperparameter, len(prs))
	for _, pr := range prs {
		name := pr.key.Value
		path := join("hyperparameters", name)
		if name == "" || len(name) > maxNameBytes {
			p.errorf(pr.key, path, "expected a hyperparameter name of 1 to %d bytes", maxNameBytes)
			continue
		}
		if h, ok := p.hyperparameter(pr.val, path); ok {
			out[name] = h
		}
	}
	return out
}

func (p *parser) hyperparameter(raw *yaml.Node, path string) (Hyperparameter, bool) {
	n := resolve(raw)
	if n == nil || n.Kind != yaml.MappingNode {
		v, ok := p.jsonValue(raw, path)
		return Hyperparameter{Type: HPConst, Val: v}, ok
	}
	f, ok := p.fields(raw, path)
	if !ok {
		return Hyperparameter{}, false
	}
	if f.node("type") == nil {
		p.errorf(raw, path, "expected a value, or a mapping with type (one of %s); write {type: const, val: {...}} to give a mapping as one value", oneOf(hpTypes))
		return Hyperparameter{}, false
	}
	var h Hyperparameter
	before := p.count
	if !field(f, "type", &h.Type, enum("hyperparameter type", hpTypes...)) {
		return h, false // the other fields depend on the type
	}
	defer f.done()
	switch h.Type {
	case HPConst:
		if f.required("val") {
			h.Val, _ = p.jsonValue(f.lookup("val"), join(path, "val"))
		}
	case HPCategorical:
		if !f.required("vals") {
			break
		}
		vn := f.lookup("vals")
		items := resolve(vn)
		if items == nil || items.Kind != yaml.SequenceNode || len(items.Content) == 0 {
			f.errorf("vals", "expected a non-empty list of values, got %s", describe(items))
			break
		}
		for i, item := range items.Content {
			v, _ := p.jsonValue(item, index(join(path, "vals"), i))
			h.Vals = append(h.Vals, v)
		}
	case HPInt:
		r := int64In(-maxSafeInt, maxSafeInt, fmt.Sprintf("an integer from %d to %d", -maxSafeInt, maxSafeInt))
		var lo, hi int64
		okLo := f.required("minval") && field(f, "minval", &lo, r)
		okHi := f.required("maxval") && field(f, "maxval", &hi, r)
		h.Minval, h.Maxval = float64(lo), float64(hi)
		if okLo && okHi && lo >= hi {
			f.errorf("maxval", "expected maxval > minval (%d), got %d", lo, hi)
		}
	case HPDouble, HPLog:
		okLo := f.required("minval") && field(f, "minval", &h.Minval, number)
		okHi := f.required("maxval") && field(f, "maxval", &h.Maxval, number)
		if okLo && okHi && h.Minval >= h.Maxval {
			f.errorf("maxval", "expected maxval > minval (%s), got %s", formatFloat(h.Minval), formatFloat(h.Maxval))
		} else if okLo && okHi && math.IsInf(h.Maxval-h.Minval, 0) {
			f.errorf("maxval", "the range from minval to maxval is too wide for a float64")
		}
		if h.Type == HPLog {
			h.Base = 10
			if field(f, "base", &h.Base, positiveNumber) && h.Base == 1 {
				f.errorf("base", "expected a base > 0 other than 1, got 1")
			}
			if okLo && okHi && p.count == before {
				for _, e := range []float64{h.Minval, h.Maxval} {
					if v := math.Pow(h.Base, e); v == 0 || math.IsInf(v, 0) {
						f.errorf("maxval", "%s ** %s is outside the range of a float64", formatFloat(h.Base), formatFloat(e))
						break
					}
				}
			}
		}
	}
	if h.Type == HPInt || h.Type == HPDouble || h.Type == HPLog {
		field(f, "count", &h.Count, intIn(1, MaxTrials))
	}
	return h, p.count == before
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
		w.p.errorAt(w.line, w.path, nil, "the value is larger than %d bytes as JSON", MaxHyperparametersBytes)
		return false
	}
	return true
}

func (w *jsonWriter) value(raw *yaml.Node, path string, depth int) bool {
	if !w.fits() {
		return false
	}
	if depth > maxValueDepth {
		w.p.errorAt(w.line, w.path, nil, "the value nests deeper than %d levels", maxValueDepth)
		return false
	}
	n := resolve(raw)
	if n == nil {
		w.p.errorf(raw, path, "expected a value, got an unresolvable alias")
		return false
	}
	switch n.Kind {
	case yaml.SequenceNode:
		w.buf = append(w.buf, '[')
		for i, item := range n.Content {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if !w.value(item, index(path, i), depth+1) {
				return false
			}
		}
		w.buf = append(w.buf, ']')
		return true
	case yaml.MappingNode:
		prs, _ := w.p.pairs(n, path)
		w.buf = append(w.buf, '{')
		for i, pr := range prs {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = append(w.buf, jsonString(pr.key.Value)...)
			w.buf = append(w.buf, ':')
			if !w.value(pr.val, join(path, pr.key.Value), depth+1) {
				return false
			}
		}
		w.buf = append(w.buf, '}')
		return true
	case yaml.ScalarNode:
		return w.scalar(n, raw, path)
	}
	w.p.errorf(raw, path, "expected a value, got %s", describe(n))
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
		if decodeScalar(n, &v) {
			w.buf = strconv.AppendBool(w.buf, v)
			return true
		}
	case "!!int":
		var v int64
		if decodeScalar(n, &v) {
			w.buf = strconv.AppendInt(w.buf, v, 10)
			return true
		}
		var u uint64
		if decodeScalar(n, &u) {
			w.buf = strconv.AppendUint(w.buf, u, 10)
			return true
		}
		w.p.errorf(raw, path, "integer %s is out of range (beyond 64 bits)", describe(n))
		return false
	case "!!float":
		var v float64
		if decodeScalar(n, &v) && !math.IsNaN(v) && !math.IsInf(v, 0) {
			w.buf = append(w.buf, formatFloat(v)...)
			return true
		}
		w.p.errorf(raw, path, "expected a finite number (JSON has no NaN or infinity), got %s", describe(n))
		return false
	}
	w.p.errorf(raw, path, "expected a string, number, boolean, null, list or mapping, got %s", describe(n))
	return false
}

// planError is an expansion error, about one hyperparameter when name is
// set.
type planError struct{ name, msg string }

func (e *planError) Error() string {
	if e.name == "" {
		return "jobfile: " + e.msg
	}
	return fmt.Sprintf("jobfile: hyperparameters.%s: %s", e.name, e.msg)
}

// sortedNames returns the hyperparameter names in byte order.
func sortedNames(hps map[string]Hyperparameter) []string {
	names := make([]string, 0, len(hps))
	for k := range hps {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// check returns what is wrong with a hand-built hyperparameter, or "".
// Parse never builds one that fails it.
func (h Hyperparameter) check() string {
	switch h.Type {
	case HPConst:
		if !json.Valid(h.Val) {
			return "val is not valid JSON"
		}
	case HPCategorical:
		if len(h.Vals) == 0 {
			return "vals is empty"
		}
		for _, v := range h.Vals {
			if !json.Valid(v) {
				return "vals holds invalid JSON"
			}
		}
	case HPInt, HPDouble, HPLog:
		if !(h.Minval < h.Maxval) || math.IsInf(h.Maxval-h.Minval, 0) {
			return "expected finite minval < maxval"
		}
		if h.Type == HPInt && (h.Minval != math.Trunc(h.Minval) || h.Maxval != math.Trunc(h.Maxval) ||
			h.Minval < -maxSafeInt || h.Maxval > maxSafeInt) {
			return "int bounds must be integers within ±2^53"
		}
		if h.Type == HPLog && (!(h.Base > 0) || h.Base == 1 || math.IsInf(h.Base, 0)) {
			return "log base must be > 0 and not 1"
		}
		if h.Count < 0 || h.Count > MaxTrials {
			return fmt.Sprintf("count must be from 1 to %d", MaxTrials)
		}
	default:
		return fmt.Sprintf("unknown type %q", h.Type)
	}
	return ""
}

// gridValues returns the grid points of h in ascending (or file) order:
// int: count evenly spaced integers from minval to maxval, rounded (all of
// them when count exceeds the range); double: count evenly spaced values,
// both ends included; log: base raised to count evenly spaced exponents.
// count 1 gives minval (or base ** minval).
func gridValues(h Hyperparameter) []json.RawMessage {
	switch h.Type {
	case HPConst:
		return []json.RawMessage{h.Val}
	case HPCategorical:
		return h.Vals
	}
	c := h.Count
	if h.Type == HPInt {
		c = int(min(int64(c), int64(h.Maxval-h.Minval)+1))
	}
	out := make([]json.RawMessage, 0, c)
	for i := range c {
		x := h.Minval
		if c > 1 {
			x = h.Minval + float64(i)*(h.Maxval-h.Minval)/float64(c-1)
		}
		if i == c-1 && c > 1 {
			x = h.Maxval
		}
		var s string
		switch h.Type {
		case HPInt:
			s = strconv.FormatInt(int64(math.Round(x)), 10)
		case HPDouble:
			s = formatFloat(x)
		case HPLog:
			s = formatFloat(math.Pow(h.Base, x))
		}
		if len(out) > 0 && string(out[len(out)-1]) == s {
			continue
		}
		out = append(out, json.RawMessage(s))
	}
	return out
}

// maxValueBytes bounds the JSON size of one value of h.
func maxValueBytes(h Hyperparameter, grid bool) int {
	var vals []json.RawMessage
	switch {
	case h.Type == HPConst || h.Type == HPCategorical:
		vals = gridValues(h)
	case h.Type == HPInt:
		return max(len(strconv.FormatInt(int64(h.Minval), 10)), len(strconv.FormatInt(int64(h.Maxval), 10)))
	case grid:
		vals = gridValues(h)
	default:
		return 24 // the longest shortest-form float64
	}
	m := 0
	for _, v := range vals {
		m = max(m, len(v))
	}
	return m
}

// plan checks that hps and s make a valid expansion within the limits, and
// returns the number of trials.
func plan(hps map[string]Hyperparameter, s Searcher) (int, error) {
	names := sortedNames(hps)
	grid := s.Name == SearchGrid
	if !grid && s.Name != SearchRandom {
		return 0, &planError{msg: fmt.Sprintf("unknown searcher %q", s.Name)}
	}
	for _, name := range names {
		h := hps[name]
		if msg := h.check(); msg != "" {
			return 0, &planError{name: name, msg: msg}
		}
		if grid && (h.Type == HPInt || h.Type == HPDouble || h.Type == HPLog) && h.Count == 0 {
			return 0, &planError{name: name, msg: fmt.Sprintf(
				"grid search needs count, the number of grid points of this %s hyperparameter (random search samples without it)", h.Type)}
		}
	}
	var n int
	if grid {
		n = 1
		for _, name := range names {
			n = satMul(n, len(gridValues(hps[name])))
		}
		if s.MaxTrials > 0 {
			n = min(n, s.MaxTrials)
		}
		if n > MaxTrials {
			return 0, &planError{msg: fmt.Sprintf(
				"the grid has %s points, more than the limit of %d trials (lower the counts, or cap it with searcher.max_trials)", gridSize(n), MaxTrials)}
		}
	} else {
		n = s.MaxTrials
		if n < 1 || n > MaxTrials {
			return 0, &planError{msg: fmt.Sprintf("random search needs max_trials from 1 to %d", MaxTrials)}
		}
	}
	size := 2
	for _, name := range names {
		size += len(jsonString(name)) + 2 + maxValueBytes(hps[name], grid)
	}
	if size > MaxHyperparametersBytes {
		return 0, &planError{msg: fmt.Sprintf(
			"one trial's hyperparameters may take %d bytes as JSON, more than the limit of %d", size, MaxHyperparametersBytes)}
	}
	if satMul(size, n) > MaxExpansionBytes {
		return 0, &planError{msg: fmt.Sprintf(
			"%d trials of up to %d bytes of hyperparameters each exceed the limit of %d bytes in all", n, size, MaxExpansionBytes)}
	}
	return n, nil
}

func gridSize(n int) string {
	if n == math.MaxInt {
		return "more than 2^63"
	}
	return strconv.Itoa(n)
}

// satMul multiplies non-negative ints, saturating at math.MaxInt.
func satMul(a, b int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return math.MaxInt
	}
	return int(lo)
}

// expand makes the trials. Grid: the cartesian product of every
// hyperparameter's grid values, names in byte order with the last name
// varying fastest, cut to s.MaxTrials when that is set. Random:
// s.MaxTrials trials, each drawing its values in name order from a PCG
// generator seeded with s.Seed.
func expand(hps map[string]Hyperparameter, s Searcher) ([]Task, error) {
	n, err := plan(hps, s)
	if err != nil {
		return nil, err
	}
	names := sortedNames(hps)
	keys := make([][]byte, len(names))
	for i, name := range names {
		keys[i] = jsonString(name)
	}
	tasks := make([]Task, n)
	vals := make([]json.RawMessage, len(names))
	if s.Name == SearchGrid {
		grids := make([][]json.RawMessage, len(names))
		for i, name := range names {
			grids[i] = gridValues(hps[name])
		}
		idx := make([]int, len(names))
		for t := range n {
			for i := range names {
				vals[i] = grids[i][idx[i]]
			}
			tasks[t] = Task{Index: t, Hyperparameters: object(keys, vals)}
			for i := len(idx) - 1; i >= 0; i-- {
				if idx[i]++; idx[i] < len(grids[i]) {
					break
				}
				idx[i] = 0
			}
		}
		return tasks, nil
	}
	r := newSampler(s.Seed)
	for t := range n {
		for i, name := range names {
			vals[i] = r.sample(hps[name])
		}
		tasks[t] = Task{Index: t, Hyperparameters: object(keys, vals)}
	}
	return tasks, nil
}

// object writes a JSON object of keys (already JSON strings) and values.
func object(keys [][]byte, vals []json.RawMessage) json.RawMessage {
	size := 2
	for i := range keys {
		size += len(keys[i]) + len(vals[i]) + 2
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, keys[i]...)
		b = append(b, ':')
		b = append(b, vals[i]...)
	}
	return append(b, '}')
}

// sampler draws random values. It uses only PCG's raw output, which math/
// rand/v2 specifies exactly, and its own bounded-integer and float
// conversions, so that a seed gives the same trials in every Go release.
type sampler struct{ src *rand.PCG }

// pcgStream is the PCG increment seed; any fixed value does.
const pcgStream = 0x9e3779b97f4a7c15

func newSampler(seed int64) *sampler {
	return &sampler{src: rand.NewPCG(uint64(seed), pcgStream)}
}

// uintn returns a uniform integer in [0, n), n > 0 (Lemire's method).
func (s *sampler) uintn(n uint64) uint64 {
	hi, lo := bits.Mul64(s.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.src.Uint64(), n)
		}
	}
	return hi
}

// float returns a uniform float64 in [0, 1).
func (s *sampler) float() float64 {
	return float64(s.src.Uint64()>>11) / (1 << 53)
}

func (s *sampler) sample(h Hyperparameter) json.RawMessage {
	switch h.Type {
	case HPConst:
		return h.Val
	case HPCategorical:
		return h.Vals[s.uintn(uint64(len(h.Vals)))]
	case HPInt:
		lo, hi := int64(h.Minval), int64(h.Maxval)
		v := lo + int64(s.uintn(uint64(hi-lo)+1))
		return json.RawMessage(strconv.FormatInt(v, 10))
	case HPDouble:
		return json.RawMessage(formatFloat(h.Minval + s.float()*(h.Maxval-h.Minval)))
	default: // HPLog
		return json.RawMessage(formatFloat(math.Pow(h.Base, h.Minval+s.float()*(h.Maxval-h.Minval))))
	}
}
