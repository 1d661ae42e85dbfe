package jobfile

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
)

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
	if !grid && s.Name != SearchRandom && !s.Adaptive() {
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
			return 0, &planError{msg: fmt.Sprintf("%s search needs max_trials from 1 to %d", s.Name, MaxTrials)}
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
