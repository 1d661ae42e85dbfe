package scenario

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// jobList parses the jobs section: a list of jobs, or a {trace: FILE}
// mapping naming a trace that supplies them instead.
func (p *parser) jobList(raw *yaml.Node) ([]Job, *TraceRef) {
	p.jobNamesKnown = true
	if raw == nil {
		return nil, nil
	}
	n := yamlfield.Resolve(raw)
	switch {
	case n != nil && n.Kind == yaml.MappingNode && isJobMapping(n):
		// The "- " of the first job was forgotten: say so once, rather
		// than that the trace is missing and each job field unknown.
		p.Errorf(raw, "jobs", "expected a list of jobs (- name: ...) or a mapping {trace: FILE, format: ...}")
		p.jobNamesKnown = false
		return nil, nil
	case n != nil && n.Kind == yaml.MappingNode && isJobsByName(n):
		p.Errorf(raw, "jobs", "expected a list of jobs, got jobs keyed by name: write each as a list item, - name: %s, with its fields under it",
			n.Content[0].Value)
		p.jobNamesKnown = false
		return nil, nil
	case n != nil && n.Kind == yaml.MappingNode:
		return nil, p.trace(raw)
	case n != nil && n.Kind == yaml.SequenceNode:
	case n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		return nil, nil
	default:
		p.Errorf(raw, "jobs", "expected a list of jobs or a {trace: FILE} mapping, got %s", p.Describe(n))
		p.jobNamesKnown = false
		return nil, nil
	}
	out := make([]Job, 0, len(n.Content))
	for i, item := range n.Content {
		out = append(out, p.job(item, i))
	}
	return out, nil
}

// traceKeys are the fields of the {trace: FILE} mapping.
var traceKeys = []string{"trace", "format"}

// jobKeys are the fields of a job, in the order job asks for them (a test
// keeps them in step).
var jobKeys = []string{"name", "kind", "submit", "pool", "tasks", "max_concurrent", "slots", "duration", "time_limit",
	"priority", "priority_class", "weight", "preemptible", "interactive", "project", "user", "gpu", "checkpoint_every",
	"on_preempt", "max_retries", "qos", "licenses", "account", "nice", "topology", "allow_infeasible", "keep_qos", "held", "after_pass", "first_pass",
	"min_slots", "max_slots", "searcher", "step_time", "trials", "curve", "runs", "fails", "start_fails", "start_lost", "lost", "stops", "agent_preempted", "checkpoints", "late_exits", "slow_kills", "ends_after_pass"}

// isJobMapping says whether a jobs mapping is a job written without its
// "- ": it has a job's field and none of the trace mapping's.
func isJobMapping(n *yaml.Node) bool {
	job := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if slices.Contains(traceKeys, k) {
			return false
		}
		job = job || slices.Contains(jobKeys, k)
	}
	return job
}

// isJobsByName reports whether mapping n holds jobs keyed by their names
// ({a: {slots: 2}, b: {...}}): no trace key, and every value a mapping
// with a job field.
func isJobsByName(n *yaml.Node) bool {
	if len(n.Content) == 0 {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		v := yamlfield.Resolve(n.Content[i+1])
		if slices.Contains(traceKeys, n.Content[i].Value) || v == nil || v.Kind != yaml.MappingNode || !isJobMapping(v) {
			return false
		}
	}
	return true
}

func (p *parser) trace(raw *yaml.Node) *TraceRef {
	t := &TraceRef{Line: raw.Line}
	f, ok := p.Fields(raw, "jobs")
	if !ok {
		return nil
	}
	if f.Required("trace") {
		yamlfield.Field(f, "trace", &t.Path, name)
	}
	yamlfield.Field(f, "format", &t.Format, yamlfield.Enum("trace format", traceFormats...))
	f.Done()
	return t
}

// jobFlags records which of a job's fields the file gave, for the checks
// that need the job's pool.
type jobFlags struct {
	pool, preemptible, interactive, project     bool
	checkpoint, onPreempt, maxRetries, priority bool
	class, nice, topology                       bool
}

func (p *parser) job(raw *yaml.Node, i int) Job {
	j := Job{
		Line:       raw.Line,
		Kind:       KindCommand,
		Pool:       p.firstPool(),
		Tasks:      1,
		Slots:      1,
		Duration:   -1,
		Priority:   DefaultPriority,
		Weight:     DefaultWeight,
		OnPreempt:  OnPreemptReschedule,
		MaxRetries: -1,
	}
	path := fmt.Sprintf("jobs[%d]", i)
	f, ok := p.Fields(raw, path)
	if !ok {
		p.jobNamesKnown = false
		return j
	}
	if f.Required("name") && yamlfield.Field(f, "name", &j.Name, name) {
		if first, dup := p.jobLines[j.Name]; dup {
			f.Errorf("name", "duplicate job name %s (first at line %d)", yamlfield.Quote(j.Name), first)
		} else {
			p.jobLines[j.Name] = raw.Line
			p.jobOrder = append(p.jobOrder, j.Name)
		}
		f.Path = path + " " + yamlfield.Quote(j.Name)
	} else {
		p.jobNamesKnown = false
	}
	var fl jobFlags
	yamlfield.Field(f, "kind", &j.Kind, yamlfield.Enum("kind", kinds...))
	yamlfield.Field(f, "submit", &j.Submit, yamlfield.Duration)
	fl.pool = yamlfield.Field(f, "pool", &j.Pool, name)
	yamlfield.Field(f, "tasks", &j.Tasks, yamlfield.IntAtLeast(1))
	j.MaxConcurrent = j.Tasks
	yamlfield.Field(f, "max_concurrent", &j.MaxConcurrent, yamlfield.IntAtLeast(1))
	yamlfield.Field(f, "slots", &j.Slots, yamlfield.IntAtLeast(0))
	yamlfield.Field(f, "duration", &j.Duration, yamlfield.Duration)
	yamlfield.Field(f, "time_limit", &j.TimeLimit, yamlfield.PositiveDuration)
	p.priority(f, &j, &fl)
	yamlfield.Field(f, "weight", &j.Weight, yamlfield.PositiveNumber)
	fl.preemptible = yamlfield.Field(f, "preemptible", &j.Preemptible, yamlfield.Boolean)
	fl.interactive = yamlfield.Field(f, "interactive", &j.Interactive, yamlfield.Boolean)
	fl.project = yamlfield.Field(f, "project", &j.Project, name)
	yamlfield.Field(f, "user", &j.User, name)
	yamlfield.Field(f, "gpu", &j.GPU, name)
	fl.checkpoint = yamlfield.Field(f, "checkpoint_every", &j.CheckpointEvery, yamlfield.PositiveDuration)
	fl.onPreempt, fl.maxRetries = spec.ExitActionFields(f, &j.OnPreempt, &j.MaxRetries)
	yamlfield.Field(f, "qos", &j.QOS, name)
	yamlfield.Field(f, "licenses", &j.Licenses, licenseMap)
	yamlfield.Field(f, "account", &j.Account, name)
	fl.nice = yamlfield.Field(f, "nice", &j.Nice, yamlfield.IntIn(-MaxNice, MaxNice))
	fl.topology = yamlfield.Field(f, "topology", &j.Topology, yamlfield.Enum("topology", topologies...))
	yamlfield.Field(f, "allow_infeasible", &j.AllowInfeasible, yamlfield.Boolean)
	yamlfield.Field(f, "keep_qos", &j.KeepQOS, yamlfield.Boolean)
	yamlfield.Field(f, "held", &j.Held, yamlfield.Boolean)
	yamlfield.Field(f, "after_pass", &j.AfterPass, yamlfield.Boolean)
	if yamlfield.Field(f, "first_pass", &j.FirstPass, yamlfield.Duration) && j.FirstPass < j.Submit {
		f.Errorf("first_pass", "%ds comes before the job's submit (%ds): the scheduler cannot consider a job before it is submitted", j.FirstPass, j.Submit)
	}
	p.elastic(f, &j)
	searchParser{p.Parser}.search(f, &j)
	scriptParser{p.Parser}.all(f, &j)
	f.Done()
	p.resolveJob(f, &j, &fl)
	if j.Name != "" {
		p.jobPools[j.Name], p.jobSubmits[j.Name] = j.Pool, j.Arrival()
	}
	return j
}

// priority reads priority and priority_class, which must agree: a class
// alone sets its canonical number, and a number must lie in a class given
// with it.
func (p *parser) priority(f *yamlfield.Fields, j *Job, fl *jobFlags) {
	fl.priority = yamlfield.Field(f, "priority", &j.Priority, yamlfield.IntIn(MinPriority, MaxPriority))
	var class string
	fl.class = f.Node("priority_class") != nil
	if yamlfield.Field(f, "priority_class", &class, priorityClass) {
		switch {
		case !f.Has("priority"):
			j.Priority = classPriority(class)
		case fl.priority && classOf(j.Priority) != class:
			f.Errorf("priority_class", "%s covers priorities %s, but priority is %d (give one or the other)", class, classBand(class), j.Priority)
		}
	}
	j.PriorityClass = classOf(j.Priority)
}

// elastic reads min_slots and max_slots. An elastic job's task asks for
// max_slots (which is its slots: give one or the other) and may shrink
// to min_slots; max_slots alone, without a minimum, would not make the job
// elastic.
func (p *parser) elastic(f *yamlfield.Fields, j *Job) {
	minOK := yamlfield.Field(f, "min_slots", &j.MinSlots, yamlfield.IntAtLeast(1))
	maxOK := yamlfield.Field(f, "max_slots", &j.MaxSlots, yamlfield.IntAtLeast(1))
	if !minOK || (f.Node("max_slots") != nil && !maxOK) {
		if maxOK && f.Node("min_slots") == nil {
			f.Errorf("max_slots", "max_slots makes a job elastic only with min_slots, the size its tasks may shrink to; give min_slots too, or give slots")
		}
		j.MinSlots, j.MaxSlots = 0, 0
		return
	}
	if maxOK {
		if f.Node("slots") != nil && j.Slots != j.MaxSlots {
			f.Errorf("max_slots", "slots %d and max_slots %d both give the size a task asks for; give one", j.Slots, j.MaxSlots)
		}
		j.Slots = j.MaxSlots
	}
	if j.MinSlots > j.Slots {
		f.Errorf("min_slots", "min_slots %d is more than the %d slots a task asks for", j.MinSlots, j.Slots)
		j.MinSlots = 0
	}
	j.MaxSlots = j.Slots
}

// resolveJob sets the defaults that depend on the job's pool and checks
// the job against its pool and project.
func (p *parser) resolveJob(f *yamlfield.Fields, j *Job, fl *jobFlags) {
	info := p.pools[j.Pool]
	osmo := info != nil && info.quota >= 0
	low := j.PriorityClass == ClassLow
	if !fl.preemptible {
		// In a pool with its own quota (OSMO) only LOW work is preemptible;
		// elsewhere experiments are too.
		j.Preemptible = low || DefaultPreemptible(j.Kind, osmo)
	}
	switch {
	case low && !j.Preemptible:
		f.Errorf("preemptible", "LOW-class work (priority 60-99) is always preemptible")
		j.Preemptible = true
	case osmo && fl.preemptible && j.Preemptible && !low:
		f.Errorf("preemptible", "in pool %s, which has a quota of its own, only LOW-class work is preemptible (priority_class: LOW)", yamlfield.Quote(j.Pool))
	}
	if !fl.interactive {
		j.Interactive = DefaultInteractive(j.Kind, j.Preemptible)
	} else if j.Interactive && j.Preemptible {
		f.Errorf("interactive", "interactive work is never preempted, but this job is preemptible (LOW class, or preemptible: true)")
	}
	p.checkJobPool(f, j, fl.pool)
	p.checkJobResources(f, j, info)
	if info == nil {
		return
	}
	if !fl.onPreempt {
		j.OnPreempt = info.onPreempt
	}
	if !fl.maxRetries {
		j.MaxRetries = info.maxRetries
	}
	p.checkPreemptFields(f, j, fl)
	p.checkJobQuota(f, j, fl, info)
	p.checkJobMultifactor(f, j, fl, info)
	p.checkTopology(f, j, fl, info)
}

// sizeKey is the field that gave the size a task asks for: max_slots
// when the job gives it instead of slots.
func sizeKey(f *yamlfield.Fields) string {
	if f.Node("slots") == nil && f.Node("max_slots") != nil {
		return "max_slots"
	}
	return "slots"
}

// checkPreemptFields rejects checkpoint_every on a job that can never be
// preempted or resized. Checkpoints matter in every pool, for a
// preemptible task may be moved (consolidation) and an elastic one
// resized, and both restart from the last checkpoint. Exit actions are
// taken on every job, in every pool, preemptible or not: a lost attempt
// that waits again (lost, start_lost) and an agent's preemption
// (agent_preempted) count as retries as a preemption does, and so does
// the live owner's allot job requeue.
func (p *parser) checkPreemptFields(f *yamlfield.Fields, j *Job, fl *jobFlags) {
	if fl.checkpoint && !j.Preemptible && j.MinSlots == 0 {
		f.Errorf("checkpoint_every", "this job is neither preemptible nor elastic, so checkpoint_every would never apply")
	}
}

// checkJobPool checks that the job's pool exists and that one task fits in
// it, on nodes of its GPU type if it names one. When a pool has errors its
// size is unknown, so the fit check waits.
func (p *parser) checkJobPool(f *yamlfield.Fields, j *Job, poolSet bool) {
	info := p.pools[j.Pool]
	if info == nil {
		if poolSet && p.PoolsKnown {
			names := p.PoolOrder
			f.Errorf("pool", "unknown pool %s%s (pools: %s)", yamlfield.Quote(j.Pool), yamlfield.Suggest(j.Pool, names), yamlfield.OneOf(names))
		}
		return
	}
	if !info.clean {
		return
	}
	if j.Slots > info.capacity {
		f.Errorf(sizeKey(f), "a task needs %d slots, but pool %s has only %d in all", j.Slots, yamlfield.Quote(j.Pool), info.capacity)
		return
	}
	if j.GPU == "" {
		return
	}
	have, ok := info.gpus[j.GPU]
	switch {
	case !ok:
		types := make([]string, 0, len(info.gpus))
		for g := range info.gpus {
			if g != "" {
				types = append(types, g)
			}
		}
		slices.Sort(types)
		if len(types) == 0 {
			f.Errorf("gpu", "pool %s has no node of GPU type %s: its nodes give no gpu", yamlfield.Quote(j.Pool), yamlfield.Quote(j.GPU))
			return
		}
		f.Errorf("gpu", "pool %s has no node of GPU type %s%s (types: %s)", yamlfield.Quote(j.Pool), yamlfield.Quote(j.GPU),
			yamlfield.Suggest(j.GPU, types), yamlfield.OneOf(types))
	case j.Slots > have:
		f.Errorf(sizeKey(f), "a task needs %d slots, but pool %s has only %d of GPU type %s", j.Slots, yamlfield.Quote(j.Pool), have, yamlfield.Quote(j.GPU))
	}
}

// checkJobQuota checks the job's project: a job in a quota pool needs one
// (a pool with its own quota gives its name), work that must stay within
// quota must fit in it, and no task may be larger than a limit above it.
// A job with allow_infeasible may break the last two, as the live master
// accepts such a job and keeps it waiting (a history export carries it);
// allow_infeasible where they hold, or outside quota pools, would never
// apply.
func (p *parser) checkJobQuota(f *yamlfield.Fields, j *Job, fl *jobFlags, info *poolInfo) {
	key, never, judged := p.quotaVerdict(f, j, fl, info)
	switch {
	case never != "" && !j.AllowInfeasible:
		f.Errorf(key, "%s", never)
	case !j.AllowInfeasible || info.policy == "":
	case info.policy != PolicyQuota:
		f.Errorf("allow_infeasible", "only quota pools refuse work that can never run within quota, and pool %s's policy is %s, so allow_infeasible would never apply",
			yamlfield.Quote(j.Pool), info.policy)
	case judged && never == "":
		f.Errorf("allow_infeasible", "the job's tasks fit its quota and limits, so allow_infeasible would never apply")
	}
}

// quotaVerdict makes checkJobQuota's checks. It reports the other errors
// itself and returns, for a task that can never run within quota or under
// a limit, the field and why; judged says the quota and limits were
// checked (the project is known and its quotas clean).
func (p *parser) quotaVerdict(f *yamlfield.Fields, j *Job, fl *jobFlags, info *poolInfo) (key, never string, judged bool) {
	guaranteed := !j.Preemptible
	if info.quota >= 0 {
		if fl.project {
			f.Errorf("project", "jobs in pool %s count toward the pool's own quota; project applies in quota pools without one", yamlfield.Quote(j.Pool))
			return "", "", false
		}
		j.Project = j.Pool
		if guaranteed && j.minSize() > info.quota {
			return "slots", fmt.Sprintf("a task of %d slots can never run within pool %s's quota of %d, and only LOW-class work may go over it",
				j.minSize(), yamlfield.Quote(j.Pool), info.quota), true
		}
		return "", "", true
	}
	if fl.interactive && info.policy != "" && info.policy != PolicyQuota {
		f.Errorf("interactive", "only quota pools treat interactive work apart, and pool %s's policy is %s", yamlfield.Quote(j.Pool), info.policy)
	}
	if !fl.project {
		if info.policy == PolicyQuota {
			f.Errorf("project", "missing: jobs in quota pool %s need a project", yamlfield.Quote(j.Pool))
		}
		return "", "", false
	}
	if !p.ProjectsKnown {
		return "", "", false
	}
	pr, clean, ok := p.Project(j.Project)
	names := p.ProjectNames()
	switch {
	case !ok && len(names) == 0:
		f.Errorf("project", "unknown project %s: the file has no projects section", yamlfield.Quote(j.Project))
	case !ok:
		f.Errorf("project", "unknown project %s%s (projects: %s)", yamlfield.Quote(j.Project),
			yamlfield.Suggest(j.Project, names), yamlfield.OneOf(names))
	case p.HasChildren(j.Project):
		f.Errorf("project", "project %s has projects under it; jobs go to a project without any", yamlfield.Quote(j.Project))
	case !clean || info.policy != PolicyQuota:
	case guaranteed && j.minSize() > pr.Quota:
		return "slots", fmt.Sprintf("a task of %d slots can never run within project %s's quota of %d, and this job may only run within quota (it is %s)",
			j.minSize(), yamlfield.Quote(j.Project), pr.Quota, guaranteedWhy(j)), true
	default:
		if at, limit := p.LimitBelow(j.Project, j.minSize()); limit > 0 {
			return "slots", fmt.Sprintf("a task of %d slots can never run under project %s's limit of %d", j.minSize(), yamlfield.Quote(at), limit), true
		}
		return "", "", true
	}
	return "", "", false
}

func guaranteedWhy(j *Job) string {
	if j.Interactive {
		return "interactive"
	}
	return "not preemptible"
}
