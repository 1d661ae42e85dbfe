package sim

import (
	"fmt"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// FromScenario turns a parsed scenario with inline jobs into an Input.
// Scenarios whose jobs come from a trace are opened with the trace package
// by the caller, which passes the resulting Source in jobs; otherwise jobs
// is nil.
//
// Pools that share nodes (shares_nodes_with) become one scheduling pool
// under the quota policy, the one that owns the nodes, in which each of
// them is a project named after it with its quota: jobs report their pool
// by that project.
func FromScenario(sc *scenario.Scenario, jobs Source) (*Input, error) {
	in := &Input{Pools: poolsFromScenario(sc), Projects: projectsFromScenario(sc), Accounts: accountsFromScenario(sc),
		Decay: sc.Decay.Sched(), Epoch: sc.Epoch, LostNodeGrace: sc.LostNodeGrace}
	licIdx, qosIdx := map[string]int{}, map[string]int{}
	if len(sc.Licenses) > 0 {
		in.Licenses = spec.SchedLicenses(sc.Licenses)
	}
	for i, l := range sc.Licenses {
		licIdx[l.Name] = i
	}
	if len(sc.QOS) > 0 {
		in.QOS = spec.SchedQOS(sc.QOS)
	}
	for i, q := range sc.QOS {
		qosIdx[q.Name] = i
	}
	poolIdx := poolIndex(sc)
	if sc.Trace != nil && jobs == nil {
		return nil, fmt.Errorf("%s: jobs come from trace %s, which was not opened", sc.Name, sc.Trace.Path)
	}
	var specs []JobSpec // the file's jobs, checked once the events are in
	if jobs == nil {
		quota, osmo := map[string]bool{}, map[string]bool{}
		for _, p := range sc.Pools {
			quota[p.Name] = p.Policy == scenario.PolicyQuota
			osmo[p.Name] = p.Quota >= 0
		}
		specs = make([]JobSpec, 0, len(sc.Jobs))
		for _, j := range sc.Jobs {
			spec := specFromScenario(j, poolIdx[j.Pool], quota[j.Pool])
			spec.Class = classRule(j, quota[j.Pool], osmo[j.Pool])
			spec.QOS = qosIdx[j.QOS] // 0, the first listed, when the job names none
			for _, l := range sc.Licenses {
				if n := j.Licenses[l.Name]; n > 0 {
					spec.Licenses = append(spec.Licenses, sched.LicenseUse{License: licIdx[l.Name], Count: n})
				}
			}
			specs = append(specs, spec)
		}
		jobs = NewSliceSource(specs)
	}
	in.Jobs = jobs
	events, err := eventsFromScenario(sc)
	if err != nil {
		return nil, err
	}
	in.Events = events
	if specs != nil {
		if err := checkFeasible(in, specs); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Name, err)
		}
	}
	return in, nil
}

// eventKinds maps a scenario's event kinds to the simulator's.
var eventKinds = map[scenario.EventKind]EventKind{
	scenario.EventKill: EventKill, scenario.EventSetPriority: EventSetPriority, scenario.EventSetWeight: EventSetWeight,
	scenario.EventNodeDown: EventNodeDown, scenario.EventNodeUp: EventNodeUp, scenario.EventDrain: EventNodeDrain,
	scenario.EventResume: EventNodeResume, scenario.EventNodeDelete: EventNodeDelete, scenario.EventNodeReshape: EventNodeReshape,
	scenario.EventSetTimeLimit: EventSetTimeLimit, scenario.EventSetQOS: EventSetQOS, scenario.EventSetNice: EventSetNice,
	scenario.EventHold: EventHold, scenario.EventRelease: EventRelease, scenario.EventRequeue: EventRequeue,
}

// eventsFromScenario converts the scenario's scripted events, in order.
func eventsFromScenario(sc *scenario.Scenario) ([]Event, error) {
	var out []Event
	for _, e := range sc.Events {
		kind, ok := eventKinds[e.Kind]
		if !ok {
			return nil, fmt.Errorf("%s:%d: unknown event kind %q", sc.Name, e.Line, e.Kind)
		}
		ev := Event{Kind: kind, At: e.At, Job: e.Job, Priority: e.Priority, Weight: e.Weight, TimeLimit: e.TimeLimit, Nice: e.Nice,
			Hold: e.Hold, Node: e.Node, AfterPass: e.AfterPass, Before: e.Before, Where: fmt.Sprintf("%s:%d", sc.Name, e.Line)}
		if kind == EventSetQOS {
			ev.QOS = slices.IndexFunc(sc.QOS, func(q scenario.QOS) bool { return q.Name == e.QOS })
			if ev.QOS < 0 {
				return nil, fmt.Errorf("%s:%d: set_qos: unknown QOS %q", sc.Name, e.Line, e.QOS)
			}
		}
		if kind == EventNodeReshape {
			// Built as the node was (scenarioNode); reshape gives it the
			// node's pool (or Pool) and zero-slot limit.
			sh := scenarioNode(e.Node, 0, 0, e.Shape)
			ev.Shape, ev.Pool = &sh, e.Pool
		}
		out = append(out, ev)
	}
	return out, nil
}

// poolIndex maps each scenario pool to its scheduling pool: its own, or
// for a pool that shares nodes, the pool that owns them.
func poolIndex(sc *scenario.Scenario) map[string]int {
	own := map[string]int{}
	for _, p := range sc.Pools {
		if p.SharesNodesWith == "" {
			own[p.Name] = len(own)
		}
	}
	idx := make(map[string]int, len(sc.Pools))
	for _, p := range sc.Pools {
		if p.SharesNodesWith == "" {
			idx[p.Name] = own[p.Name]
		} else {
			idx[p.Name] = own[p.SharesNodesWith]
		}
	}
	return idx
}

// poolsFromScenario converts the scenario's pools with nodes of their own.
func poolsFromScenario(sc *scenario.Scenario) []Pool {
	pools := make([]Pool, 0, len(sc.Pools))
	for _, p := range sc.Pools {
		if p.SharesNodesWith != "" {
			continue
		}
		i := len(pools)
		sp := Pool{Pool: p.Pool.Sched(), CheckpointCost: p.CheckpointCost, ZeroSlotLimit: p.ZeroSlotLimit}
		sp.Serial = p.Serial
		for j := range p.Nodes {
			sp.Nodes = append(sp.Nodes, scenarioNode(p.Nodes[j].Name, i, p.ZeroSlotLimit, &p.Nodes[j]))
		}
		pools = append(pools, sp)
	}
	return pools
}

// scenarioNode is scenario node n, named name, in pool, made as the
// master makes a node that registers so (lifecycle.NodeFacts: its
// switch from its labels, its pool's zero-slot limit, zero).
func scenarioNode(name string, pool, zero int, n *scenario.Node) sched.Node {
	f := lifecycle.NodeFacts{Name: name, Pool: pool, Slots: n.Slots, GPU: n.GPU, Labels: n.Labels, ZeroSlotLimit: zero}
	return f.Node()
}

// projectsFromScenario lists the scenario's projects in file order, then
// one project for each pool with a quota of its own. Over-quota weights
// of pools are their quotas, as for projects.
func projectsFromScenario(sc *scenario.Scenario) []Project {
	var out []Project
	for _, p := range spec.SchedProjects(sc.Projects) {
		out = append(out, Project{Project: p})
	}
	for _, p := range sc.Pools {
		if p.Quota >= 0 {
			out = append(out, Project{Project: sched.Project{Name: p.Name, Parent: -1, Quota: p.Quota,
				OverQuotaWeight: float64(p.Quota)}, Pool: true})
		}
	}
	return out
}

// accountsFromScenario lists the scenario's accounts, user leaves
// included, in its order.
func accountsFromScenario(sc *scenario.Scenario) []sched.Account {
	idx := make(map[string]int, len(sc.Accounts))
	for i, a := range sc.Accounts {
		idx[a.Name] = i
	}
	var out []sched.Account
	for _, a := range sc.Accounts {
		parent := -1
		if a.Parent != "" {
			parent = idx[a.Parent]
		}
		out = append(out, sched.Account{Name: a.Name, Parent: parent, Shares: a.Shares, Usage: a.Usage})
	}
	return out
}

// classRule says what a job is outside the LOW class: what its file says
// explicitly, else the default for its kind (scenario.DefaultPreemptible;
// lifecycle.PreemptibleOutsideLow, the master's rule too). A job filed in
// LOW, preemptible there and so not interactive, is outside LOW as its
// kind and preemptibility there make it (scenario.DefaultInteractive,
// lifecycle.Interactive: the master's rule).
func classRule(j scenario.Job, quota, osmo bool) *ClassRule {
	low := j.PriorityClass == scenario.ClassLow
	pre := lifecycle.PreemptibleOutsideLow(low, j.Preemptible, scenario.DefaultPreemptible(j.Kind, osmo))
	inter := j.Interactive
	if low {
		inter = scenario.DefaultInteractive(j.Kind, pre)
	}
	return &ClassRule{Preemptible: pre, QuotaPool: quota, Interactive: inter}
}

// specFromScenario converts a job; quota says whether its pool is a quota
// pool, where LOW-class work borrows.
func specFromScenario(j scenario.Job, pool int, quota bool) JobSpec {
	d := j.Duration
	if d < 0 {
		d = Unbounded
	}
	spec := JobSpec{
		Name:            j.Name,
		Kind:            sched.Kind(j.Kind),
		Submit:          j.Submit,
		Pool:            pool,
		Tasks:           j.Tasks,
		MaxConcurrent:   j.MaxConcurrent,
		Slots:           j.Slots,
		Duration:        d,
		TimeLimit:       j.TimeLimit,
		Priority:        j.Priority,
		Weight:          j.Weight,
		Preemptible:     j.Preemptible,
		GPU:             j.GPU,
		Project:         j.Project,
		User:            j.User,
		Interactive:     j.Interactive,
		Borrow:          lifecycle.Borrows(j.PriorityClass == scenario.ClassLow, quota),
		CheckpointEvery: j.CheckpointEvery,
		Account:         j.Charged(),
		Nice:            j.Nice,
		Topology:        sched.Topology(j.Topology),
		MinSlots:        j.MinSlots,
		AfterPass:       j.AfterPass,
		FirstPass:       j.FirstPass,
		Held:            j.Held,
	}
	spec.Fails = byTask(j.Fails, func(f scenario.TaskFail) (int, int64) { return f.Task, f.After })
	spec.StartFails = byTask(j.StartFails, func(f scenario.StartFail) (int, int) { return f.Task, f.Attempt })
	spec.StartLost = attemptTimes(j.StartLost)
	spec.Lost = attemptTimes(j.Lost)
	spec.Runs = byTask(j.Runs, func(r scenario.TaskRun) (int, int64) { return r.Task, r.Work })
	spec.Stops = byTask(j.Stops, func(st scenario.TaskStop) (int, int64) { return st.Task, st.After })
	spec.AgentPreempted = attemptTimes(j.AgentPreempted)
	spec.Checkpoints, spec.NthCheckpoints = checkpointTimes(j.Checkpoints)
	spec.LateExits = lateExits(j.LateExits)
	spec.SlowKills = slowKills(j.SlowKills)
	spec.EndsAfterPass = endsAfterPass(j.EndsAfterPass)
	if sr := j.Searcher; sr != nil {
		spec.Search = &SearchSpec{Name: sr.Name, Config: sr.Config(), StepTime: j.StepTime, Curves: make([][]MetricPoint, len(j.Curves))}
		for i, c := range j.Curves {
			for _, p := range c {
				spec.Search.Curves[i] = append(spec.Search.Curves[i], MetricPoint{Step: p.Step, Value: p.Value})
			}
		}
	}
	switch {
	case j.OnPreempt == scenario.OnPreemptFail || j.MaxRetries == 0:
		spec.OnPreempt = PreemptFail
	case j.MaxRetries > 0:
		spec.MaxRetries = j.MaxRetries
	}
	return spec
}

// byTask maps the tasks a script names to what of (each item's task
// and value) gives them; nil for none.
func byTask[T any, V any](items []T, of func(T) (int, V)) map[int]V {
	if len(items) == 0 {
		return nil
	}
	out := make(map[int]V, len(items))
	for _, it := range items {
		task, v := of(it)
		out[task] = v
	}
	return out
}

// attemptTimes maps the attempts a script names (task and attempt) to
// its seconds; nil for none.
func attemptTimes(ls []scenario.StartLost) map[[2]int]int64 {
	if len(ls) == 0 {
		return nil
	}
	out := make(map[[2]int]int64, len(ls))
	for _, l := range ls {
		out[[2]int{l.Task, l.Attempt}] = l.After
	}
	return out
}

// lateExits maps the attempts of a job's late_exits (task and attempt)
// to how long before their end they exited; nil for none.
func lateExits(les []scenario.LateExit) map[[2]int]int64 {
	if len(les) == 0 {
		return nil
	}
	out := make(map[[2]int]int64, len(les))
	for _, le := range les {
		out[[2]int{le.Task, le.Attempt}] = le.Before
	}
	return out
}

// endsAfterPass is the set of the attempts of a job's ends_after_pass
// (task and attempt); nil for none.
func endsAfterPass(es []scenario.EndAfterPass) map[[2]int]bool {
	if len(es) == 0 {
		return nil
	}
	out := make(map[[2]int]bool, len(es))
	for _, e := range es {
		out[[2]int{e.Task, e.Attempt}] = true
	}
	return out
}

// slowKills maps the attempts of a job's slow_kills (task and attempt)
// to how long their kill takes to end them; nil for none.
func slowKills(sks []scenario.SlowKill) map[[2]int]int64 {
	if len(sks) == 0 {
		return nil
	}
	out := make(map[[2]int]int64, len(sks))
	for _, sk := range sks {
		out[[2]int{sk.Task, sk.Attempt}] = sk.After
	}
	return out
}

// checkFeasible refuses a scenario job that no node of its pool could
// ever run, with the core's own check (sched.Feasible), the one the live
// master makes at submission: a simulation would otherwise keep it waiting
// to the end.
func checkFeasible(in *Input, specs []JobSpec) error {
	s := &sched.Snapshot{Licenses: in.Licenses}
	for _, p := range in.Pools {
		s.Pools = append(s.Pools, p.Pool)
		s.Nodes = append(s.Nodes, p.Nodes...)
	}
	// A node reshaped counts in each of its shapes, as one more node of
	// its pool then: a job may fit only its later one, or only a node
	// moved to its pool.
	n := len(s.Nodes)
	poolNow := map[string]int{}
	for _, e := range in.Events {
		if e.Kind != EventNodeReshape || e.Shape == nil {
			continue
		}
		if i := slices.IndexFunc(s.Nodes[:n], func(nd sched.Node) bool { return nd.Name == e.Node }); i >= 0 {
			if to := slices.IndexFunc(in.Pools, func(p Pool) bool { return p.Name == e.Pool }); to >= 0 {
				poolNow[e.Node] = to
			}
			nd := *e.Shape
			nd.Pool, nd.ZeroSlotLimit = s.Nodes[i].Pool, s.Nodes[i].ZeroSlotLimit
			if to, ok := poolNow[e.Node]; ok && to != nd.Pool {
				nd.Pool, nd.ZeroSlotLimit = to, in.Pools[to].ZeroSlotLimit
			}
			s.Nodes = append(s.Nodes, nd)
		}
	}
	for _, spec := range specs {
		if spec.Slots == 0 {
			continue
		}
		j := sched.Job{ID: spec.Name, Pool: spec.Pool, Slots: spec.Slots, MinSlots: spec.MinSlots, GPU: spec.GPU,
			Topology: spec.Topology, Licenses: spec.Licenses}
		if err := sched.Feasible(s, &j); err != nil {
			return err
		}
	}
	return nil
}

// checkpointTimes maps the attempts that checkpoints name without an nth
// (task and attempt) and those named with one (task, attempt and nth) to
// their seconds; nil for none.
func checkpointTimes(cs []scenario.Checkpoint) (all map[[2]int]int64, nth map[[3]int]int64) {
	for _, c := range cs {
		if c.Nth == 0 {
			if all == nil {
				all = map[[2]int]int64{}
			}
			all[[2]int{c.Task, c.Attempt}] = c.After
			continue
		}
		if nth == nil {
			nth = map[[3]int]int64{}
		}
		nth[[3]int{c.Task, c.Attempt, c.Nth}] = c.After
	}
	return all, nth
}
