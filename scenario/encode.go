package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// Marshal writes a scenario in the scenario format, from the same types
// Parse returns, so that Parse reads it back to the same values (lines
// and Name aside): pools with their nodes one by one (a count is not
// kept), projects, licenses, QOS levels, the declared accounts (user
// leaves come back from the jobs that name them, unless the file declared
// them), the decay and epoch where some pool reads accounts, a lost_node_grace
// above 0, jobs and events. It writes a field only where the
// format takes it for the value at hand, so that a scenario that Parse
// accepted is accepted again. A job's searcher is written with its
// trials' curves as points (a formula's too).
func Marshal(s *Scenario) ([]byte, error) {
	top := spec.NewMapping()
	c := s.Cluster
	pools := map[string]*Pool{}
	reads := false // some pool reads accounts, and so the decay
	for i := range c.Pools {
		pl := &c.Pools[i]
		pools[pl.Name] = pl
		reads = reads || pl.Policy == PolicyMultifactor && pl.Multifactor.FairShare > 0 && pl.SharesNodesWith == ""
	}
	if !reads {
		c.Decay = Decay{}
	}
	spec.ClusterNodes(dialect, top, c, poolNode)
	var accounts []*yaml.Node
	for _, a := range s.Accounts {
		if a.User {
			continue
		}
		m := spec.NewMapping()
		m.Set("name", a.Name)
		// A declared user's leaf, ACCOUNT/USER, names its parent.
		m.SetIf(a.Parent != "" && !strings.Contains(a.Name, "/"), "parent", a.Parent)
		m.Set("shares", a.Shares)
		m.SetIf(a.Usage > 0, "usage", a.Usage)
		accounts = append(accounts, m.Node)
	}
	top.SetIf(len(accounts) > 0, "accounts", spec.Seq(accounts))
	top.SetIf(reads && s.Epoch != 0, "epoch", s.Epoch)
	top.SetIf(s.LostNodeGrace > 0, "lost_node_grace", int64(s.LostNodeGrace/time.Second))
	if s.Trace != nil {
		m := spec.NewMapping()
		m.Set("trace", s.Trace.Path)
		m.SetIf(s.Trace.Format != "", "format", s.Trace.Format)
		top.Set("jobs", m.Node)
	} else {
		jobs := make([]*yaml.Node, len(s.Jobs))
		for i := range s.Jobs {
			n, err := jobNode(&s.Jobs[i], pools[s.Jobs[i].Pool])
			if err != nil {
				return nil, err
			}
			jobs[i] = n
		}
		top.Set("jobs", spec.Seq(jobs))
	}
	if len(s.Events) > 0 {
		events := make([]*yaml.Node, len(s.Events))
		for i, e := range s.Events {
			n, err := eventNode(e)
			if err != nil {
				return nil, fmt.Errorf("marshal the scenario: event %d: %w", i, err)
			}
			events[i] = n
		}
		top.Set("events", spec.Seq(events))
	}
	out, err := yaml.Marshal(top.Node)
	if err != nil {
		return nil, fmt.Errorf("marshal the scenario: %w", err)
	}
	return out, nil
}

// eventNode writes an event: its time and its one action.
func eventNode(e Event) (*yaml.Node, error) {
	m := spec.NewMapping()
	m.Set("at", e.At)
	switch e.Kind {
	case EventKill, EventHold, EventRelease:
		m.Set(string(e.Kind), e.Job)
	case EventRequeue:
		m.Set(string(e.Kind), e.Job)
		m.SetIf(e.Hold, "hold", true)
	case EventSetPriority:
		m.Set(string(e.Kind), map[string]any{"job": e.Job, "priority": e.Priority})
	case EventSetWeight:
		m.Set(string(e.Kind), map[string]any{"job": e.Job, "weight": e.Weight})
	case EventSetTimeLimit:
		m.Set(string(e.Kind), map[string]any{"job": e.Job, "time_limit": e.TimeLimit})
	case EventSetQOS:
		m.Set(string(e.Kind), map[string]any{"job": e.Job, "qos": e.QOS})
	case EventSetNice:
		m.Set(string(e.Kind), map[string]any{"job": e.Job, "nice": e.Nice})
	case EventNodeDown, EventNodeUp, EventDrain, EventResume, EventNodeDelete:
		m.Set(string(e.Kind), e.Node)
	case EventNodeReshape:
		if e.Shape == nil {
			return nil, fmt.Errorf("node_reshape of %s without a shape", e.Node)
		}
		nm := spec.NewMapping()
		nm.Set("node", e.Node)
		nm.Set("slots", e.Shape.Slots)
		nm.SetIf(e.Shape.GPU != "", "gpu", e.Shape.GPU)
		nm.SetIf(e.Shape.Labels != nil, "labels", e.Shape.Labels)
		nm.SetIf(e.Pool != "", "pool", e.Pool)
		m.Set(string(e.Kind), nm.Node)
	default:
		return nil, fmt.Errorf("unknown kind %q", e.Kind)
	}
	m.SetIf(e.AfterPass, "after_pass", true)
	m.SetIf(e.Before != "", "before", e.Before)
	return m.Node, nil
}

// poolNode writes a pool: the spec's fields, then the scenario's. A pool
// that shares another's nodes takes its policy and options from there,
// so it writes none of them.
func poolNode(pl Pool) *yaml.Node {
	var m spec.Mapping
	if pl.SharesNodesWith != "" {
		m = spec.NewMapping()
		m.Set("name", pl.Name)
		m.Set("shares_nodes_with", pl.SharesNodesWith)
	} else {
		m = dialect.PoolNode(pl.Pool)
		m.SetIf(pl.Serial, "serial", true)
		m.SetIf(pl.CheckpointCost > 0, "checkpoint_cost", pl.CheckpointCost)
		nodes := make([]*yaml.Node, len(pl.Nodes))
		for i, n := range pl.Nodes {
			nm := spec.NewMapping()
			nm.Set("name", n.Name)
			nm.Set("slots", n.Slots)
			nm.SetIf(n.GPU != "", "gpu", n.GPU)
			nm.SetIf(n.Labels != nil, "labels", n.Labels)
			nodes[i] = nm.Node
		}
		m.Set("nodes", spec.Seq(nodes))
	}
	m.SetIf(pl.Quota >= 0, "quota", pl.Quota)
	m.SetIf(pl.OnPreempt != "" && pl.OnPreempt != OnPreemptReschedule, "on_preempt", pl.OnPreempt)
	m.SetIf(pl.MaxRetries >= 0, "max_retries", pl.MaxRetries)
	return m.Node
}

// jobNode writes a job of pool pl (nil when unknown). Fields whose value
// the parser derives (the default priority and the priority class,
// interactive for the kinds that are, the exit actions of the pool, the
// project of a pool with its own quota) are left out at that value: the format rejects some of them
// given explicitly where they would not apply.
func jobNode(j *Job, pl *Pool) (*yaml.Node, error) {
	m := spec.NewMapping()
	m.Set("name", j.Name)
	m.Set("kind", j.Kind)
	m.Set("submit", j.Submit)
	m.Set("pool", j.Pool)
	// A searcher's trials are the tasks, and its max_length × step_time
	// the duration: the format takes neither from such a job.
	m.SetIf(j.Searcher == nil, "tasks", j.Tasks)
	m.Set("max_concurrent", j.MaxConcurrent)
	m.Set("slots", j.Slots)
	m.SetIf(j.MinSlots > 0, "min_slots", j.MinSlots)
	m.SetIf(j.Duration >= 0 && j.Searcher == nil, "duration", j.Duration)
	m.SetIf(j.TimeLimit > 0, "time_limit", j.TimeLimit)
	m.SetIf(j.Priority != DefaultPriority, "priority", j.Priority) // multifactor pools take none
	m.Set("weight", j.Weight)
	m.Set("preemptible", j.Preemptible)
	m.SetIf(j.Interactive != DefaultInteractive(j.Kind, j.Preemptible), "interactive", j.Interactive)
	osmo := pl != nil && pl.Quota >= 0
	m.SetIf(j.Project != "" && !osmo, "project", j.Project)
	m.SetIf(j.User != "", "user", j.User)
	m.SetIf(j.GPU != "", "gpu", j.GPU)
	m.SetIf(j.CheckpointEvery > 0, "checkpoint_every", j.CheckpointEvery)
	onPreempt, maxRetries := OnPreemptReschedule, -1
	if pl != nil {
		onPreempt, maxRetries = pl.OnPreempt, pl.MaxRetries
	}
	m.SetIf(j.OnPreempt != onPreempt, "on_preempt", j.OnPreempt)
	m.SetIf(j.MaxRetries != maxRetries && j.MaxRetries >= 0, "max_retries", j.MaxRetries)
	m.SetIf(j.QOS != "", "qos", j.QOS)
	if len(j.Licenses) > 0 {
		lic := spec.NewMapping()
		for _, name := range slices.Sorted(maps.Keys(j.Licenses)) {
			lic.Set(name, j.Licenses[name])
		}
		m.Set("licenses", lic.Node)
	}
	m.SetIf(j.Account != "", "account", j.Account)
	m.SetIf(j.Nice != 0, "nice", j.Nice)
	m.SetIf(j.Topology != "", "topology", j.Topology)
	m.SetIf(j.AllowInfeasible, "allow_infeasible", true)
	m.SetIf(j.KeepQOS, "keep_qos", true)
	m.SetIf(j.Held, "held", true)
	m.SetIf(j.AfterPass, "after_pass", true)
	m.SetIf(j.FirstPass > j.Submit, "first_pass", j.FirstPass)
	scriptFields(m, j)
	if j.Searcher != nil {
		searchFields(m, j)
	}
	return m.Node, nil
}

// scriptFields writes job j's scripted events: its failures, lost
// starts and attempts, own run times, stops, attempts its agent
// preempted, checkpoint times, exits heard of late and kills that took
// their time.
func scriptFields(m spec.Mapping, j *Job) {
	setList(m, "fails", j.Fails, func(f TaskFail) map[string]any { return map[string]any{"task": f.Task, "after": f.After} })
	setList(m, "start_fails", j.StartFails, func(f StartFail) map[string]any {
		sf := map[string]any{"task": f.Task}
		if f.Attempt > 1 {
			sf["attempt"] = f.Attempt
		}
		return sf
	})
	setList(m, "start_lost", j.StartLost, attemptItem)
	setList(m, "lost", j.Lost, attemptItem)
	setList(m, "runs", j.Runs, func(r TaskRun) map[string]any { return map[string]any{"task": r.Task, "work": r.Work} })
	setList(m, "stops", j.Stops, func(st TaskStop) map[string]any { return map[string]any{"task": st.Task, "after": st.After} })
	setList(m, "agent_preempted", j.AgentPreempted, attemptItem)
	setList(m, "checkpoints", j.Checkpoints, checkpointItem)
	setList(m, "late_exits", j.LateExits, lateExitItem)
	setList(m, "slow_kills", j.SlowKills, slowKillItem)
	setList(m, "ends_after_pass", j.EndsAfterPass, endAfterPassItem)
}

// setList writes list key of items, each encoded by item; nothing for
// none.
func setList[T any](m spec.Mapping, key string, items []T, item func(T) map[string]any) {
	if len(items) == 0 {
		return
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = item(it)
	}
	m.Set(key, out)
}

// DefaultPreemptible is whether a job of kind is preemptible outside the
// LOW class when its file does not say: experiments are, except in a pool
// with a quota of its own (osmo), where only LOW work is.
func DefaultPreemptible(kind string, osmo bool) bool {
	return kind == KindExperiment && !osmo
}

// DefaultInteractive is whether a job of kind is interactive when its
// file does not say: the interactive kinds (notebook, shell,
// tensorboard) are, unless the job is preemptible. It is the live
// master's rule (lifecycle.Interactive), so that an exported job replays
// as it ran.
func DefaultInteractive(kind string, preemptible bool) bool {
	return lifecycle.Interactive(sched.Kind(kind), preemptible)
}

// attemptItem encodes an item of a script of attempts (start_lost,
// lost, agent_preempted, checkpoints), an attempt 1 left out.
func attemptItem(l StartLost) map[string]any {
	sl := map[string]any{"task": l.Task, "after": l.After}
	if l.Attempt > 1 {
		sl["attempt"] = l.Attempt
	}
	return sl
}
