package master

import (
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// nodeStates is what the export knows of each node of the file as it
// reads the node history in order (exportNodeEvents): whether it is down,
// and whether the replay has it drained, by an admin or for its agent's
// leave (leaving). An agent that leaves (allot agent --on-exit kill)
// says goodbye, stops its tasks, which may take up to its exit grace,
// and says its last; from the goodbye (store.NodeLeaving) to its
// registration the master places nothing on the node, as on a drained
// one, so the replay drains it then and resumes it when it is back.
// Without the drain, the replay had the slots of the tasks that ended
// before the node left free meanwhile, and started waiting work there.
type nodeStates struct {
	down, drained, leaving map[string]bool
}

// events are the scenario events of node event e, at at: none, one, or
// a return and the end of a leave's drain.
func (ns *nodeStates) events(e store.NodeEvent, at int64) []scenario.Event {
	ev := func(k scenario.EventKind) scenario.Event { return scenario.Event{At: at, Kind: k, Node: e.Node} }
	name := e.Node
	switch {
	case e.To == store.NodeDrained:
		was := ns.drained[name]
		ns.drained[name], ns.leaving[name] = true, false
		if was {
			return nil // drained for its agent's leave: the admin's drain goes on from it
		}
		return []scenario.Event{ev(scenario.EventDrain)}
	case e.To == store.NodeSchedulable:
		ns.drained[name], ns.leaving[name] = false, false
		return []scenario.Event{ev(scenario.EventResume)}
	case e.To == store.NodeLeaving && !ns.down[name] && !ns.drained[name]:
		ns.drained[name], ns.leaving[name] = true, true
		return []scenario.Event{ev(scenario.EventDrain)}
	case e.To == store.NodeDeleted:
		// Even a node down already leaves the fair-share capacity
		// (lifecycle.InFairShareCapacity) and its drain.
		ns.down[name], ns.drained[name], ns.leaving[name] = true, false, false
		return []scenario.Event{ev(scenario.EventNodeDelete)}
	case (e.To == store.NodeLost || e.To == store.NodeLeft) && !ns.down[name]:
		ns.down[name] = true
		return []scenario.Event{ev(scenario.EventNodeDown)}
	case e.To == store.NodeUp && ns.down[name]:
		ns.down[name] = false
		out := []scenario.Event{ev(scenario.EventNodeUp)}
		if ns.leaving[name] {
			// Registered again: its agent's leave is over.
			ns.drained[name], ns.leaving[name] = false, false
			out = append(out, ev(scenario.EventResume))
		}
		return out
	}
	return nil
}
