package scenario

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// Searcher is an experiment's adaptive searcher, with the fields and
// defaults of a job file's asha and adaptive_asha searchers. The
// simulator drives it through package searcher, as the master does, so
// that its decisions can be tested with known metric curves.
type Searcher struct {
	Name            string // SearcherASHA or SearcherAdaptiveASHA
	Metric          string
	SmallerIsBetter bool
	MaxLength       int64 // steps
	Divisor         float64
	NumRungs        int
	Brackets        int
	MaxTrials       int
	Line            int
}

// Searcher names: the adaptive searchers of job files. Grid and random
// searches need no searcher here: they are plain tasks.
const (
	SearcherASHA         = string(jobfile.SearchASHA)
	SearcherAdaptiveASHA = string(jobfile.SearchAdaptiveASHA)
)

var searcherNames = []string{SearcherASHA, SearcherAdaptiveASHA}

// Config is the searcher's configuration for package searcher.
func (s *Searcher) Config() searcher.Config {
	return searcher.Config{Metric: s.Metric, SmallerIsBetter: s.SmallerIsBetter, MaxLength: s.MaxLength,
		Divisor: s.Divisor, NumRungs: s.NumRungs, MaxTrials: s.MaxTrials, Brackets: s.Brackets}
}

// Point is one metric report of a trial: its value at a step.
type Point struct {
	Step  int64
	Value float64
}

// searchParser reads an experiment's searcher and its trials' curves.
type searchParser struct{ *spec.Parser }

// search reads an experiment's searcher and its trials' metric curves
// (step_time, and trials or curve). With a searcher the job's tasks are
// its trials and its duration max_length × step_time, so the file gives
// neither.
func (p searchParser) search(f *yamlfield.Fields, j *Job) {
	node := f.Lookup("searcher")
	stepOK := yamlfield.Field(f, "step_time", &j.StepTime, yamlfield.PositiveDuration)
	trials, curve := f.Lookup("trials"), f.Lookup("curve")
	if node == nil {
		for _, k := range []string{"step_time", "trials", "curve"} {
			if f.Node(k) != nil {
				f.Errorf(k, "only an experiment with a searcher (asha or adaptive_asha) takes %s", k)
			}
		}
		return
	}
	if j.Kind != KindExperiment {
		f.Errorf("searcher", "only experiments have a searcher (add kind: experiment)")
		return
	}
	for _, k := range []string{"tasks", "duration"} {
		if f.Node(k) != nil {
			f.Errorf(k, "a job with a searcher has searcher.max_trials trials of max_length × step_time each; leave %s out", k)
		}
	}
	if !f.Required("step_time") {
		stepOK = false
	}
	s := p.searcher(node, p.Join(f.Path, "searcher"))
	if s == nil {
		return
	}
	j.Searcher, j.Tasks = s, s.MaxTrials
	if f.Node("max_concurrent") == nil {
		j.MaxConcurrent = s.MaxTrials
	}
	if stepOK {
		if j.StepTime > math.MaxInt64/int64(time1s)/s.MaxLength {
			f.Errorf("step_time", "max_length (%d) × step_time is too long a run", s.MaxLength)
		} else {
			j.Duration = s.MaxLength * j.StepTime
		}
	}
	switch {
	case trials != nil && curve != nil:
		f.Errorf("curve", "give the trials' metric as trials (one curve each) or as curve (a formula), not both")
	case trials != nil:
		j.Curves = p.trialCurves(trials, p.Join(f.Path, "trials"), s)
	case curve != nil:
		j.Curves = p.formulaCurves(curve, p.Join(f.Path, "curve"), s)
	default:
		p.ErrorAt(f.Line, f.Path, nil, "missing the trials' metric: give trials (a list of {metric: [[step, value], ...]}) or curve ({start, limit, rate})")
	}
}

// time1s keeps a step's seconds convertible to time.Duration, as every
// duration of the file is.
const time1s = 1_000_000_000

// searcher reads the searcher mapping; nil when it has errors, so that the
// curves are not checked against a configuration that is not known.
func (p searchParser) searcher(raw *yaml.Node, path string) *Searcher {
	s := &Searcher{Line: raw.Line, SmallerIsBetter: true, Divisor: jobfile.DefaultDivisor, NumRungs: jobfile.DefaultNumRungs}
	f, ok := p.Fields(raw, path)
	if !ok {
		return nil
	}
	before := p.Count()
	if f.Required("name") {
		yamlfield.Field(f, "name", &s.Name, searcherName)
	}
	if f.Required("metric") {
		yamlfield.Field(f, "metric", &s.Metric, name)
	}
	yamlfield.Field(f, "smaller_is_better", &s.SmallerIsBetter, yamlfield.Boolean)
	if f.Required("max_length") {
		yamlfield.Field(f, "max_length", &s.MaxLength, yamlfield.Int64In(1, 1<<53, "a number of steps >= 1"))
	}
	yamlfield.Field(f, "divisor", &s.Divisor, yamlfield.PositiveNumber)
	yamlfield.Field(f, "num_rungs", &s.NumRungs, yamlfield.IntIn(1, 20))
	if f.Required("max_trials") {
		yamlfield.Field(f, "max_trials", &s.MaxTrials, yamlfield.IntIn(1, jobfile.MaxTrials))
	}
	s.Brackets = 1
	if s.Name == SearcherAdaptiveASHA {
		s.Brackets = max(min((s.NumRungs+1)/2, s.MaxTrials), 1)
	}
	if yamlfield.Field(f, "brackets", &s.Brackets, yamlfield.IntIn(1, 20)) && s.Name == SearcherASHA && s.Brackets != 1 {
		f.Errorf("brackets", "only adaptive_asha runs several brackets; asha runs one (use adaptive_asha, or leave brackets out)")
	}
	if f.Node("max_concurrent_trials") != nil {
		f.Lookup("max_concurrent_trials")
		f.Errorf("max_concurrent_trials", "in a scenario the job's max_concurrent bounds the trials running at once; give that instead")
	}
	f.Done()
	if p.Count() != before {
		return nil
	}
	if err := s.Config().Validate(); err != nil {
		key, _, _ := strings.Cut(err.Error(), ":")
		if f.Node(key) != nil {
			f.Errorf(key, "%v", err)
		} else {
			p.ErrorAt(s.Line, path, nil, "%v", err)
		}
		return nil
	}
	return s
}

// searcherName accepts asha or adaptive_asha, and says what to do instead
// of the searchers that do not adapt.
func searcherName(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	switch {
	case !ok:
		return "", false
	case s == string(jobfile.SearchGrid) || s == string(jobfile.SearchRandom):
		p.Errorf(raw, path, "a %s search stops no trial early, so the simulator runs it as plain tasks: leave the searcher out and give tasks and duration", s)
		return "", false
	case !slices.Contains(searcherNames, s):
		p.Errorf(raw, path, "unknown searcher %s%s (expected one of %s)", yamlfield.Quote(s), yamlfield.Suggest(s, searcherNames), yamlfield.OneOf(searcherNames))
		return "", false
	}
	return s, true
}

// trialCurves reads trials: exactly max_trials entries, each the metric
// reports of one trial, by trial index.
func (p searchParser) trialCurves(raw *yaml.Node, path string, s *Searcher) [][]Point {
	items, ok := p.List(raw, path, "trials, each {metric: [[step, value], ...]}")
	if !ok {
		return nil
	}
	if len(items) != s.MaxTrials {
		p.Errorf(raw, path, "%d trials, but searcher.max_trials is %d: give one curve per trial", len(items), s.MaxTrials)
		return nil
	}
	out := make([][]Point, len(items))
	for i, item := range items {
		ipath := yamlfield.Index(path, i)
		f, ok := p.Fields(item, ipath)
		if !ok {
			continue
		}
		if f.Required("metric") {
			out[i] = p.points(f.Lookup("metric"), p.Join(ipath, "metric"), s)
		}
		f.Done()
	}
	return out
}

// points reads one trial's reports: [step, value] pairs with steps
// rising from 0 to max_length. A trial reports each point when its
// training reaches that step.
func (p searchParser) points(raw *yaml.Node, path string, s *Searcher) []Point {
	items, ok := p.List(raw, path, "[step, value] pairs")
	if !ok {
		return nil
	}
	out := make([]Point, 0, len(items))
	for k, item := range items {
		ipath := yamlfield.Index(path, k)
		pair := yamlfield.Resolve(item)
		if pair != nil && pair.Kind == yaml.SequenceNode && len(pair.Content) != 2 {
			p.Errorf(item, ipath, "expected a [step, value] pair, got a list of %d", len(pair.Content))
			continue
		}
		if pair == nil || pair.Kind != yaml.SequenceNode {
			p.Errorf(item, ipath, "expected a [step, value] pair, got %s", p.Describe(pair))
			continue
		}
		step, sok := yamlfield.Int64In(0, s.MaxLength, "a step from 0 to max_length ("+strconv.FormatInt(s.MaxLength, 10)+")")(p.Parser.Parser, pair.Content[0], ipath)
		v, vok := yamlfield.Number(p.Parser.Parser, pair.Content[1], ipath)
		if !sok || !vok {
			continue
		}
		if n := len(out); n > 0 && step <= out[n-1].Step {
			p.Errorf(item, ipath, "step %d comes after step %d: steps must rise", step, out[n-1].Step)
			continue
		}
		out = append(out, Point{Step: step, Value: v})
	}
	return out
}

// formulaCurves reads curve: {start, limit, rate}. Trial i's metric at
// step x is limit_i + (start − limit_i)·e^(−rate_i·x): it moves from start
// toward its limit (down for a loss, up for an accuracy) at its rate.
// limit and rate are one number for every trial or a list of max_trials
// numbers. Each trial reports at every rung length of the search, the
// only steps where the searcher judges, and values keep 6 significant
// digits, so that results are the same on every machine.
func (p searchParser) formulaCurves(raw *yaml.Node, path string, s *Searcher) [][]Point {
	f, ok := p.Fields(raw, path)
	if !ok {
		return nil
	}
	var start float64
	limits, rates := []float64{0}, []float64{0}
	okAll := f.Required("start") && yamlfield.Field(f, "start", &start, yamlfield.Number)
	okAll = f.Required("limit") && yamlfield.Field(f, "limit", &limits, perTrial(s.MaxTrials, yamlfield.Number)) && okAll
	okAll = f.Required("rate") && yamlfield.Field(f, "rate", &rates, perTrial(s.MaxTrials, yamlfield.PositiveNumber)) && okAll
	f.Done()
	if !okAll {
		return nil
	}
	var steps []int64
	for b := range s.Brackets {
		steps = append(steps, searcher.RungLengths(s.MaxLength, s.Divisor, s.NumRungs-b)...)
	}
	slices.Sort(steps)
	steps = slices.Compact(steps)
	out := make([][]Point, s.MaxTrials)
	for i := range out {
		limit, rate := limits[min(i, len(limits)-1)], rates[min(i, len(rates)-1)]
		for _, x := range steps {
			v := limit + (start-limit)*math.Exp(-rate*float64(x))
			v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
			out[i] = append(out[i], Point{Step: x, Value: v})
		}
	}
	return out
}

// perTrial accepts one value for every trial, or a list of exactly n
// values, one per trial; either way it returns a list (of 1 or n).
func perTrial(n int, each yamlfield.ValueParser[float64]) yamlfield.ValueParser[[]float64] {
	return func(p *yamlfield.Parser, raw *yaml.Node, path string) ([]float64, bool) {
		if r := yamlfield.Resolve(raw); r == nil || r.Kind != yaml.SequenceNode {
			v, ok := each(p, raw, path)
			return []float64{v}, ok
		}
		items, _ := p.List(raw, path, "numbers")
		if len(items) != n {
			p.Errorf(raw, path, "%d values, but searcher.max_trials is %d: give one number for every trial, or one per trial", len(items), n)
			return nil, false
		}
		out := make([]float64, len(items))
		ok := true
		for i, item := range items {
			v, vok := each(p, item, yamlfield.Index(path, i))
			out[i], ok = v, ok && vok
		}
		return out, ok
	}
}
