package jobfile

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// finish walks the root mapping and returns the Job, or every error found.
func (p *parser) finish(root *yaml.Node) (*Job, error) {
	j := p.job(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return j, nil
}

func (p *parser) job(root *yaml.Node) *Job {
	j := &Job{Kind: KindCommand}
	f, ok := p.Fields(root, "")
	if !ok {
		return j
	}
	// One clear error rather than the missing name and entrypoint and a
	// "did you mean" for pools (trial 2026-11-29g G5).
	if yamlfield.WrongKind(f, yamlfield.JobFile, "allot submit reads a job file: its name, entrypoint and resources (docs/jobfile.md)",
		yamlfield.ScenarioFile, yamlfield.ConfigFile) {
		return j
	}
	if f.Required("name") {
		yamlfield.Field(f, "name", &j.Name, name)
	}
	// The kind decides defaults elsewhere, so it is read first. Without a
	// kind, hyperparameters or a searcher make the job an experiment.
	kindKnown := true
	if f.Has("kind") {
		kindKnown = yamlfield.Field(f, "kind", &j.Kind, yamlfield.Enum("kind", Kinds...))
	} else if f.Node("hyperparameters") != nil || f.Node("searcher") != nil {
		j.Kind = KindExperiment
	}
	if yamlfield.Field(f, "description", &j.Description, yamlfield.Text) && len(j.Description) > MaxDescriptionBytes {
		f.Errorf("description", "expected at most %d bytes, got %d", MaxDescriptionBytes, len(j.Description))
	}
	yamlfield.Field(f, "project", &j.Project, name)
	yamlfield.Field(f, "pool", &j.Pool, name)
	if f.Required("entrypoint") {
		yamlfield.Field(f, "entrypoint", &j.Entrypoint, entrypoint)
	}
	yamlfield.Field(f, "environment", &j.Environment, environment)
	j.Resources = p.resources(f.Lookup("resources"), j.Kind)

	hpNode, searcherNode := f.Lookup("hyperparameters"), f.Lookup("searcher")
	switch {
	case j.Kind == KindExperiment:
		before := p.Count()
		j.Hyperparameters = p.hyperparameters(hpNode)
		s := p.searcher(searcherNode, f.KeyLine("searcher"))
		if p.Count() == before {
			p.expandCheck(j.Hyperparameters, s, hpNode, f.KeyLine("hyperparameters"), f.KeyLine("searcher"))
		}
		j.Searcher = s
	case kindKnown:
		for i, n := range []*yaml.Node{hpNode, searcherNode} {
			if key := []string{"hyperparameters", "searcher"}[i]; n != nil {
				f.Errorf(key, "only experiments take %s, and this job's kind is %s (leave kind out, or set kind: experiment)", key, j.Kind)
			}
		}
	}
	yamlfield.Field(f, "pod_spec", &j.PodSpec, podSpec)
	p.podGPU(f, j.PodSpec, &j.Resources)
	// preemptible: at the top level is a common slip; name where it goes.
	f.Under("resources", resourceFields...)
	f.Done()
	return j
}

// resourceFields are the fields of resources, in the order the resources
// parser reads them and docs/jobfile.md lists them (TestResourceFields).
var resourceFields = []string{"slots", "priority", "priority_class", "weight", "max_slots", "preemptible", "time_limit",
	"min_slots", "gpu", "topology", "licenses", "qos", "nice", "checkpoint_every", "on_preempt", "max_retries"}

// entrypoint accepts a non-empty shell command line.
func entrypoint(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	if raw != nil && raw.Kind == yaml.ScalarNode {
		switch raw.ShortTag() {
		case "!!bool", "!!int", "!!float":
			// true and false are commands too; YAML reads them, and
			// numbers, as other types, so say how to keep the text.
			what := "number"
			if raw.ShortTag() == "!!bool" {
				what = "boolean"
			}
			p.Errorf(raw, path, "expected a shell command line as a string, got %s, which YAML reads as a %s: quote it (entrypoint: %q)",
				raw.Value, what, raw.Value)
			return "", false
		}
	}
	s, ok := yamlfield.Text(p, raw, path)
	switch {
	case !ok:
		return "", false
	case strings.TrimSpace(s) == "":
		p.Errorf(raw, path, "expected a shell command line, got %s", yamlfield.Quote(s))
	case strings.IndexByte(s, 0) >= 0:
		p.Errorf(raw, path, "expected a command line without NUL bytes")
	case len(s) > MaxEntrypointBytes:
		p.Errorf(raw, path, "expected at most %d bytes, got %d", MaxEntrypointBytes, len(s))
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
func environment(p *yamlfield.Parser, raw *yaml.Node, path string) (map[string]string, bool) {
	size := 0
	out, ok := p.StringMap(raw, path, func(pr yamlfield.Pair, kpath string) (string, bool) {
		k := pr.Key.Value
		switch {
		case !envName.MatchString(k):
			p.Errorf(pr.Key, kpath, "expected a variable name (letters, digits and _, not starting with a digit)")
			return "", false
		case reservedEnv(k):
			p.Errorf(pr.Key, kpath, "the agent sets %s itself; ALLOT_*, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER are reserved", k)
			return "", false
		}
		n, sok := yamlfield.Scalar(pr.Val, "!!str", "!!int", "!!float", "!!bool", "!!timestamp")
		if !sok {
			hint := ""
			if yamlfield.IsNull(n) {
				hint = ` (write "" for an empty value)`
			}
			p.Errorf(pr.Val, kpath, "expected a string, got %s%s", p.Describe(n), hint)
			return "", false
		}
		if strings.IndexByte(n.Value, 0) >= 0 {
			p.Errorf(pr.Val, kpath, "expected a value without NUL bytes")
			return "", false
		}
		size += len(k) + len(n.Value) + 2
		return n.Value, true
	})
	if size > MaxEnvironmentBytes {
		p.Errorf(raw, path, "the environment takes %d bytes, more than the limit of %d", size, MaxEnvironmentBytes)
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
func priorityClass(p *yamlfield.Parser, raw *yaml.Node, path string) (PriorityClass, bool) {
	n, ok := yamlfield.Scalar(raw, "!!str")
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
		p.Errorf(raw, path, "unknown priority class %s%s (expected one of %s)", yamlfield.Quote(n.Value), yamlfield.Suggest(strings.ToUpper(n.Value), opts), yamlfield.OneOf(classes))
		return "", false
	}
	p.Errorf(raw, path, "expected one of %s, got %s", yamlfield.OneOf(classes), p.Describe(n))
	return "", false
}

func (p *parser) resources(raw *yaml.Node, kind Kind) (r Resources) {
	r = Resources{Slots: 1, Priority: DefaultPriority, Weight: DefaultWeight, Preemptible: DefaultPreemptible(kind)}
	defer func() { r.PriorityClass = ClassOf(r.Priority) }()
	if raw == nil || yamlfield.IsNull(raw) {
		return r
	}
	f, ok := p.Fields(raw, "resources")
	if !ok {
		return r
	}
	defer f.Done()
	// Slurm's and Kubernetes' words for the GPUs a task asks for.
	for _, key := range []string{"gpus", "gres", "nvidia.com/gpu", "num_gpus"} {
		f.Say(key, "the GPUs a task asks for are slots (slots: 2); gpu names their type (gpu: h100)")
	}
	slotsOK := yamlfield.Field(f, "slots", &r.Slots, yamlfield.IntAtLeast(0))
	if !f.Has("slots") {
		slotsOK = true // the default, 1, is checked against like a given one
	}
	prioOK := yamlfield.Field(f, "priority", &r.Priority, yamlfield.IntIn(MinPriority, MaxPriority))
	var class PriorityClass
	if yamlfield.Field(f, "priority_class", &class, priorityClass) {
		switch {
		case !f.Has("priority"):
			r.Priority = class.Priority()
		case prioOK && ClassOf(r.Priority) != class:
			f.Errorf("priority_class", "%s covers priorities %s, but priority is %d (give one or the other)", class, class.band(), r.Priority)
		}
	}
	yamlfield.Field(f, "weight", &r.Weight, yamlfield.PositiveNumber)
	if yamlfield.Field(f, "max_slots", &r.MaxSlots, yamlfield.IntAtLeast(1)) && slotsOK && r.Slots > r.MaxSlots {
		f.Errorf("max_slots", "max_slots %d is less than the %s of one task", r.MaxSlots, slotWords(r.Slots))
	}
	preemptSet := yamlfield.Field(f, "preemptible", &r.Preemptible, yamlfield.Boolean)
	if ClassOf(r.Priority) == ClassLow {
		if preemptSet && !r.Preemptible {
			f.Errorf("preemptible", "LOW-class work (priority 60-99) is always preemptible")
		}
		r.Preemptible = true
	}
	yamlfield.Field(f, "time_limit", &r.TimeLimit, yamlfield.PositiveDuration)
	p.scheduling(f, &r, slotsOK)
	exitActions(f, &r)
	return r
}

// exitActions reads the job's exit actions, on_preempt and max_retries.
// Any job may give them, preemptible or not: besides a preemption they
// govern a lost attempt that is requeued, an agent's preemption of its
// task (an agent stopping) and the owner's allot job requeue, which the
// master refuses where they would fail the task (docs/jobfile.md).
func exitActions(f *yamlfield.Fields, r *Resources) {
	yamlfield.Field(f, "on_preempt", &r.OnPreempt, yamlfield.Enum("on_preempt", onPreempts...))
	var n int
	if yamlfield.Field(f, "max_retries", &n, yamlfield.IntAtLeast(0)) {
		r.MaxRetries = &n
	}
}

// scheduling reads the resources that steer the scheduler beyond slots
// and priority: elasticity, GPU type, topology, licenses, QOS, nice and
// the checkpoint interval.
func (p *parser) scheduling(f *yamlfield.Fields, r *Resources, slotsOK bool) {
	if yamlfield.Field(f, "min_slots", &r.MinSlots, yamlfield.IntAtLeast(1)) && slotsOK {
		switch {
		case r.Slots == 0:
			f.Errorf("min_slots", "a zero-slot task cannot be elastic; min_slots needs slots >= 1")
			r.MinSlots = 0
		case r.MinSlots > r.Slots:
			f.Errorf("min_slots", "min_slots %d is more than the %s of one task (slots, default 1)", r.MinSlots, slotWords(r.Slots))
		}
	}
	yamlfield.Field(f, "gpu", &r.GPU, gpuType)
	yamlfield.Field(f, "topology", &r.Topology, yamlfield.Enum("topology", topologies...))
	yamlfield.Field(f, "licenses", &r.Licenses, licenses)
	yamlfield.Field(f, "qos", &r.QOS, name)
	yamlfield.Field(f, "nice", &r.Nice, yamlfield.IntIn(0, MaxNice))
	yamlfield.Field(f, "checkpoint_every", &r.CheckpointEvery, yamlfield.PositiveDuration)
}

// licenses accepts a mapping of license names to counts >= 1; null or an
// empty mapping is none.
func licenses(p *yamlfield.Parser, raw *yaml.Node, path string) (map[string]int, bool) {
	if yamlfield.IsNull(raw) {
		return nil, true
	}
	prs, ok := p.Pairs(raw, path)
	if !ok {
		return nil, false
	}
	if len(prs) > MaxLicenses {
		p.Errorf(raw, path, "expected at most %d licenses, got %d", MaxLicenses, len(prs))
		return nil, false
	}
	out := make(map[string]int, len(prs))
	for _, pr := range prs {
		lic, nok := name(p, pr.Key, path)
		if !nok {
			ok = false
			continue
		}
		n, cok := yamlfield.IntAtLeast(1)(p, pr.Val, p.Join(path, lic))
		ok = ok && cok
		out[lic] = n
	}
	if !ok {
		return nil, false
	}
	if len(out) == 0 {
		return nil, true
	}
	return out, true
}

func (p *parser) searcher(raw *yaml.Node, line int) *Searcher {
	s := &Searcher{Name: SearchGrid}
	if raw == nil || yamlfield.IsNull(raw) {
		return s
	}
	f, ok := p.Fields(raw, "searcher")
	if !ok {
		return s
	}
	nameOK := yamlfield.Field(f, "name", &s.Name, yamlfield.Enum("searcher", searchers...))
	yamlfield.Field(f, "max_trials", &s.MaxTrials, yamlfield.IntIn(1, MaxTrials))
	yamlfield.Field(f, "max_concurrent_trials", &s.MaxConcurrentTrials, yamlfield.IntAtLeast(1))
	yamlfield.Field(f, "seed", &s.Seed, yamlfield.Int64In(0, 1<<63-1, "an integer >= 0"))
	if nameOK && s.Name != SearchGrid && !f.Has("max_trials") {
		p.ErrorAt(line, "searcher", nil, "%s search needs max_trials (1 to %d)", s.Name, MaxTrials)
	}
	if nameOK {
		p.adaptive(f, s, line)
	} else {
		// The name's error is the mistake: the fields of the searcher
		// meant (asha's metric, ...) are not also unknown fields.
		f.Known(adaptiveFields...)
	}
	f.Done()
	return s
}

// adaptiveFields are the fields of asha and adaptive_asha only.
var adaptiveFields = []string{"metric", "smaller_is_better", "max_length", "divisor", "num_rungs", "brackets"}

// adaptive reads the fields of the adaptive searchers, fills in their
// defaults and checks them together (searcher.Config.Validate).
func (p *parser) adaptive(f *yamlfield.Fields, s *Searcher, line int) {
	if !s.Adaptive() {
		for _, k := range adaptiveFields {
			if f.Has(k) {
				f.Errorf(k, "only the asha and adaptive_asha searchers take %s, and this one is %s", k, s.Name)
			}
		}
		return
	}
	smaller := true
	s.Divisor, s.NumRungs = DefaultDivisor, DefaultNumRungs
	before := p.Count()
	if f.Required("metric") {
		yamlfield.Field(f, "metric", &s.Metric, yamlfield.Text)
	}
	yamlfield.Field(f, "smaller_is_better", &smaller, yamlfield.Boolean)
	s.SmallerIsBetter = &smaller
	if f.Required("max_length") {
		yamlfield.Field(f, "max_length", &s.MaxLength, yamlfield.Int64In(1, 1<<53, "a number of steps >= 1"))
	}
	yamlfield.Field(f, "divisor", &s.Divisor, yamlfield.PositiveNumber)
	yamlfield.Field(f, "num_rungs", &s.NumRungs, yamlfield.IntIn(1, 20))
	switch {
	case s.Name == SearchASHA:
		s.Brackets = 1
		if yamlfield.Field(f, "brackets", &s.Brackets, yamlfield.IntIn(1, 20)) && s.Brackets != 1 {
			f.Errorf("brackets", "only adaptive_asha runs several brackets; asha runs one (use adaptive_asha, or leave brackets out)")
		}
	default:
		s.Brackets = (s.NumRungs + 1) / 2
		if s.MaxTrials > 0 {
			s.Brackets = min(s.Brackets, s.MaxTrials)
		}
		yamlfield.Field(f, "brackets", &s.Brackets, yamlfield.IntIn(1, 20))
	}
	if p.Count() != before || s.MaxTrials == 0 {
		return
	}
	if err := s.SearchConfig().Validate(); err != nil {
		// Validate names the field it refuses ("divisor: 1, ..."); the
		// error at the field names it already (searcher.divisor).
		key, rest, _ := strings.Cut(err.Error(), ":")
		if f.Has(key) {
			f.Errorf(key, "%s", strings.TrimSpace(rest))
		} else {
			p.ErrorAt(line, "searcher", nil, "%v", err)
		}
	}
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
					if pr.Key.Value == pe.name {
						line, path = pr.Val.Line, p.Join("hyperparameters", pe.name)
					}
				}
			}
		}
		if hpNode == nil {
			line, path = searcherLine, "searcher"
		}
		p.ErrorAt(line, path, nil, "%s", msg)
		return
	}
	s.MaxTrials = n
	if s.MaxConcurrentTrials == 0 {
		s.MaxConcurrentTrials = n
	}
}

// mustPairs lists a mapping's own and merged entries without reporting
// anything; it is for finding lines after a clean parse.
func mustPairs(n *yaml.Node) []yamlfield.Pair {
	prs, _ := yamlfield.New("", format).Pairs(n, "")
	return prs
}

// slotWords is "1 slot" or "N slots".
func slotWords(n int) string {
	if n == 1 {
		return "1 slot"
	}
	return strconv.Itoa(n) + " slots"
}
