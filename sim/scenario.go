package sim

import (
	"fmt"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
)

// FromScenario turns a parsed scenario with inline jobs into an Input.
// Scenarios whose jobs come from a trace are opened with the trace package
// by the caller, which passes the resulting Source in jobs; otherwise jobs
// is nil.
func FromScenario(sc *scenario.Scenario, jobs Source) (*Input, error) {
	in := &Input{Pools: poolsFromScenario(sc)}
	poolIdx := map[string]int{}
	for i, p := range sc.Pools {
		poolIdx[p.Name] = i
	}
	if sc.Trace != nil && jobs == nil {
		return nil, fmt.Errorf("%s: jobs come from trace %s, which was not opened", sc.Name, sc.Trace.Path)
	}
	if jobs == nil {
		specs := make([]JobSpec, 0, len(sc.Jobs))
		for _, j := range sc.Jobs {
			specs = append(specs, specFromScenario(j, poolIdx[j.Pool]))
		}
		jobs = NewSliceSource(specs)
	}
	in.Jobs = jobs
	for _, e := range sc.Events {
		ev := Event{At: e.At, Job: e.Job, Priority: e.Priority, Weight: e.Weight}
		switch e.Kind {
		case scenario.EventKill:
			ev.Kind = EventKill
		case scenario.EventSetPriority:
			ev.Kind = EventSetPriority
		case scenario.EventSetWeight:
			ev.Kind = EventSetWeight
		default:
			return nil, fmt.Errorf("%s:%d: unknown event kind %q", sc.Name, e.Line, e.Kind)
		}
		in.Events = append(in.Events, ev)
	}
	return in, nil
}

// poolsFromScenario converts the scenario's pools and nodes.
func poolsFromScenario(sc *scenario.Scenario) []Pool {
	pools := make([]Pool, 0, len(sc.Pools))
	for i, p := range sc.Pools {
		sp := Pool{
			Pool: sched.Pool{
				Name:         p.Name,
				Policy:       sched.Policy(p.Policy),
				Preemption:   p.Preemption,
				Backfill:     p.Backfill,
				Serial:       p.Serial,
				Reservations: sched.Reservations(p.Reservations),
				Placement:    sched.Placement(p.Placement),
			},
			CheckpointCost: p.CheckpointCost,
		}
		for _, n := range p.Nodes {
			sp.Nodes = append(sp.Nodes, sched.Node{
				Name: n.Name, Pool: i, Slots: n.Slots, GPU: n.GPU, Labels: n.Labels,
				ZeroSlotLimit: defaultZeroSlotLimit,
			})
		}
		pools = append(pools, sp)
	}
	return pools
}

func specFromScenario(j scenario.Job, pool int) JobSpec {
	d := j.Duration
	if d < 0 {
		d = Unbounded
	}
	return JobSpec{
		Name:          j.Name,
		Kind:          sched.Kind(j.Kind),
		Submit:        j.Submit,
		Pool:          pool,
		Tasks:         j.Tasks,
		MaxConcurrent: j.MaxConcurrent,
		Slots:         j.Slots,
		Duration:      d,
		TimeLimit:     j.TimeLimit,
		Priority:      j.Priority,
		Weight:        j.Weight,
		Preemptible:   j.Preemptible,
	}
}
