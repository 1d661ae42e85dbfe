package master

import (
	"fmt"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

// zeroSlotCounterfactual is the counterfactual of a zero-slot job (it
// needs no GPU, only a node of its pool up below its zero-slot limit):
// with no such node up but drained ones, it waits for a resume, as the
// pass says (no_nodes); with a node up below its limit, it fits now;
// else the zero-slot task there that ends soonest must end (the core
// preempts none for another), and it names that job, its node and the
// limit, as other counterfactuals name the jobs that must end.
func (f *cfFacts) zeroSlotCounterfactual(e *sched.Job) *api.Counterfactual {
	s := f.s
	// held counts the zero-slot tasks on each node up that could take
	// e's; first is, per node, the one of them that ends soonest.
	held, first := map[int32]int{}, map[int32]int{}
	var nodes []int32
	for i := range s.Nodes {
		if n := &s.Nodes[i]; !n.Drained && n.Pool == e.Pool && (e.GPU == "" || n.GPU == e.GPU) {
			nodes = append(nodes, int32(i))
		}
	}
	if len(nodes) == 0 {
		if drained := s.DrainedNodes(e); len(drained) > 0 {
			return drainedCounterfactual(drained)
		}
		return &api.Counterfactual{Message: "It needs no GPU, but no node of its pool up can take a zero-slot task with its constraints."}
	}
	for ai := range s.Allocs {
		for _, ns := range s.Allocs[ai].Nodes {
			if ns.Slots != 0 {
				continue
			}
			if _, ok := first[ns.Node]; !ok || endOf(s, ai) < endOf(s, first[ns.Node]) {
				first[ns.Node] = ai
			}
			held[ns.Node]++
		}
	}
	best := int32(-1)
	for _, n := range nodes {
		nd := &s.Nodes[n]
		if held[n] < nd.ZeroSlotLimit {
			return &api.Counterfactual{Nodes: []string{nd.Name}, Message: fmt.Sprintf(
				"It needs no GPU, and node %s runs fewer zero-slot tasks than its limit (%d): it would start at once if nothing ranked before it and no rule held it back.",
				nd.Name, nd.ZeroSlotLimit)}
		}
		if _, ok := first[n]; ok && (best < 0 || endOf(s, first[n]) < endOf(s, first[best])) {
			best = n
		}
	}
	if best < 0 {
		return &api.Counterfactual{Message: "It needs no GPU, but the nodes of its pool up take no zero-slot task (a zero-slot limit of 0)."}
	}
	nd, ai := &s.Nodes[best], first[best]
	a := &s.Allocs[ai]
	ref := f.jobRef(a.Job, nil)
	cf := &api.Counterfactual{Nodes: []string{nd.Name}}
	if a.Preempting {
		ref.Preempt = api.PreemptUnderWay
	} else if end := a.End(s.Jobs); end != sched.Never {
		// A limit already run out is overdue, not in the past to wait for.
		at, nb := time.Unix(end, 0).UTC(), time.Unix(max(end, s.Now), 0).UTC()
		ref.EndsAt, cf.NotBefore = &at, &nb
	}
	cf.MustEnd = []api.JobRef{ref}
	limit := plural.Count(nd.ZeroSlotLimit, "zero-slot task")
	cf.Message = fmt.Sprintf("It needs no GPU; every node of its pool up runs its limit of %s (the pool's zero_slot_limit). It could start on %s once %s.",
		limit, nd.Name, mustEndPhrase(cf.MustEnd))
	if ref.EndsAt == nil && ref.Preempt == "" {
		cf.Message = cf.Message[:len(cf.Message)-1] + " (it has no time limit)."
	}
	return cf
}
