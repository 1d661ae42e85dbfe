package jobfile

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// finish walks the root mapping and returns the Job, or every error found.
func (p *parser) finish(root *yaml.Node) (*Job, error) {
	j := p.job(root)
	if err := p.err(); err != nil {
		return nil, err
	}
	return j, nil
}

func (p *parser) job(root *yaml.Node) *Job {
	j := &Job{Kind: KindCommand}
	f, ok := p.fields(root, "")
	if !ok {
		return j
	}
	if f.required("name") {
		field(f, "name", &j.Name, name)
	}
	// The kind decides defaults elsewhere, so it is read first. Without a
	// kind, hyperparameters or a searcher make the job an experiment.
	kindKnown := true
	if f.has("kind") {
		kindKnown = field(f, "kind", &j.Kind, enum("kind", Kinds...))
	} else if f.node("hyperparameters") != nil || f.node("searcher") != nil {
		j.Kind = KindExperiment
	}
	if field(f, "description", &j.Description, text) && len(j.Description) > MaxDescriptionBytes {
		f.errorf("description", "expected at most %d bytes, got %d", MaxDescriptionBytes, len(j.Description))
	}
	field(f, "project", &j.Project, name)
	field(f, "pool", &j.Pool, name)
	if f.required("entrypoint") {
		field(f, "entrypoint", &j.Entrypoint, entrypoint)
	}
	field(f, "environment", &j.Environment, environment)
	j.Resources = p.resources(f.lookup("resources"), j.Kind)

	hpNode, searcherNode := f.lookup("hyperparameters"), f.lookup("searcher")
	switch {
	case j.Kind == KindExperiment:
		before := p.count
		j.Hyperparameters = p.hyperparameters(hpNode)
		s := p.searcher(searcherNode, f.keyLine("searcher"))
		if p.count == before {
			p.expandCheck(j.Hyperparameters, s, hpNode, f.keyLine("hyperparameters"), f.keyLine("searcher"))
		}
		j.Searcher = s
	case kindKnown:
		for i, n := range []*yaml.Node{hpNode, searcherNode} {
			if key := []string{"hyperparameters", "searcher"}[i]; n != nil {
				f.errorf(key, "only experiments take %s, and this job's kind is %s (leave kind out, or set kind: experiment)", key, j.Kind)
			}
		}
	}
	f.done()
	return j
}

// entrypoint accepts a non-empty shell command line.
func entrypoint(p *parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := text(p, raw, path)
	switch {
	case !ok:
		return "", false
	case strings.TrimSpace(s) == "":
		p.errorf(raw, path, "expected a shell command line, got %s", quote(s))
	case strings.IndexByte(s, 0) >= 0:
		p.errorf(raw, path, "expected a command line without NUL bytes")
	case len(s) > MaxEntrypointBytes:
		p.errorf(raw, path, "expected at most %d bytes, got %d", MaxEntrypointBytes, len(s))
	default:
		return s, true
	}
	return "", false
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// environment accepts a mapping of variable names to values. Values are
// taken as written, so FLAG: true is the string "true"; null is rejected
// because it is more often a forgotten value than an empty one. An empty
// mapping is nil.
func environment(p *parser, raw *yaml.Node, path string) (map[string]string, bool) {
	if isNull(raw) {
		return nil, true
	}
	prs, ok := p.pairs(raw, path)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(prs))
	size := 0
	for _, pr := range prs {
		k := pr.key.Value
		kpath := join(path, k)
		switch {
		case !envName.MatchString(k):
			p.errorf(pr.key, kpath, "expected a variable name (letters, digits and _, not starting with a digit)")
			ok = false
			continue
		case reservedEnv(k):
			p.errorf(pr.key, kpath, "the agent sets %s itself; ALLOT_*, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER are reserved", k)
			ok = false
			continue
		}
		n, sok := scalar(pr.val, "!!str", "!!int", "!!float", "!!bool", "!!timestamp")
		if !sok {
			hint := ""
			if isNull(n) {
				hint = ` (write "" for an empty value)`
			}
			p.errorf(pr.val, kpath, "expected a string, got %s%s", describe(n), hint)
			ok = false
			continue
		}
		if strings.IndexByte(n.Value, 0) >= 0 {
			p.errorf(pr.val, kpath, "expected a value without NUL bytes")
			ok = false
			continue
		}
		size += len(k) + len(n.Value) + 2
		out[k] = n.Value
	}
	if size > MaxEnvironmentBytes {
		p.errorf(raw, path, "the environment takes %d bytes, more than the limit of %d", size, MaxEnvironmentBytes)
		ok = false
	}
	if !ok {
		return nil, false
	}
	if len(out) == 0 {
		return nil, true
	}
	return out, true
}

// priorityClass accepts HIGH, NORMAL or LOW in any case.
func priorityClass(p *parser, raw *yaml.Node, path string) (PriorityClass, bool) {
	n, ok := scalar(raw, "!!str")
	if ok {
		for _, c := range classes {
			if strings.EqualFold(n.Value, string(c)) {
				return c, true
			}
		}
		opts := make([]string, len(classes))
		for i, c := range classes {
			opts[i] = string(c)
		}
		p.errorf(raw, path, "unknown priority class %s%s (expected one of %s)", quote(n.Value), suggest(strings.ToUpper(n.Value), opts), oneOf(classes))
		return "", false
	}
	p.errorf(raw, path, "expected one of %s, got %s", oneOf(classes), describe(n))
	return "", false
}

func (p *parser) resources(raw *yaml.Node, kind Kind) (r Resources) {
	r = Resources{Slots: 1, Priority: DefaultPriority, Weight: DefaultWeight, Preemptible: kind == KindExperiment}
	defer func() { r.PriorityClass = ClassOf(r.Priority) }()
	if raw == nil || isNull(raw) {
		return r
	}
	f, ok := p.fields(raw, "resources")
	if !ok {
		return r
	}
	defer f.done()
	slotsOK := field(f, "slots", &r.Slots, intAtLeast(0))
	prioOK := field(f, "priority", &r.Priority, intIn(MinPriority, MaxPriority))
	var class PriorityClass
	if field(f, "priority_class", &class, priorityClass) {
		switch {
		case !f.has("priority"):
			r.Priority = class.Priority()
		case prioOK && ClassOf(r.Priority) != class:
			f.errorf("priority_class", "%s covers priorities %s, but priority is %d (give one or the other)", class, class.band(), r.Priority)
		}
	}
	field(f, "weight", &r.Weight, positiveNumber)
	if field(f, "max_slots", &r.MaxSlots, intAtLeast(1)) && slotsOK && r.Slots > r.MaxSlots {
		f.errorf("max_slots", "max_slots %d is less than the %d slots of one task", r.MaxSlots, r.Slots)
	}
	preemptSet := field(f, "preemptible", &r.Preemptible, boolean)
	if ClassOf(r.Priority) == ClassLow {
		if preemptSet && !r.Preemptible {
			f.errorf("preemptible", "LOW-class work (priority 60-99) is always preemptible")
		}
		r.Preemptible = true
	}
	field(f, "time_limit", &r.TimeLimit, positiveDuration)
	return r
}

func (p *parser) searcher(raw *yaml.Node, line int) *Searcher {
	s := &Searcher{Name: SearchGrid}
	if raw == nil || isNull(raw) {
		return s
	}
	f, ok := p.fields(raw, "searcher")
	if !ok {
		return s
	}
	nameOK := field(f, "name", &s.Name, enum("searcher", searchers...))
	field(f, "max_trials", &s.MaxTrials, intIn(1, MaxTrials))
	field(f, "max_concurrent_trials", &s.MaxConcurrentTrials, intAtLeast(1))
	field(f, "seed", &s.Seed, int64In(0, 1<<63-1, "an integer >= 0"))
	if nameOK && s.Name == SearchRandom && !f.has("max_trials") {
		p.errorAt(line, "searcher", nil, "random search needs max_trials (1 to %d)", MaxTrials)
	}
	f.done()
	return s
}

// expandCheck runs the expansion once, so that a grid too large for the
// limits is reported now rather than when the master creates the tasks,
// and fills in the searcher's defaults from its outcome.
// hpLine and searcherLine are the lines of those keys, or of the top
// mapping when absent.
func (p *parser) expandCheck(hps map[string]Hyperparameter, s *Searcher, hpNode *yaml.Node, hpLine, searcherLine int) {
	n, err := plan(hps, *s)
	if err != nil {
		line, path, msg := hpLine, "hyperparameters", strings.TrimPrefix(err.Error(), "jobfile: ")
		if pe, ok := err.(*planError); ok {
			msg = pe.msg
			if pe.name != "" && hpNode != nil {
				for _, pr := range mustPairs(hpNode) {
					if pr.key.Value == pe.name {
						line, path = pr.val.Line, join("hyperparameters", pe.name)
					}
				}
			}
		}
		if hpNode == nil {
			line, path = searcherLine, "searcher"
		}
		p.errorAt(line, path, nil, "%s", msg)
		return
	}
	s.MaxTrials = n
	if s.MaxConcurrentTrials == 0 {
		s.MaxConcurrentTrials = n
	}
}

// mustPairs lists a mapping's own and merged entries without reporting
// anything; it is for finding lines after a clean parse.
func mustPairs(n *yaml.Node) []pair {
	q := &parser{}
	prs, _ := q.pairs(n, "")
	return prs
}
