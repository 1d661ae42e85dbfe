package master

import (
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// nodeStates is what the export knows of each node of the file as it
// reads the node history in order (exportNodeEvents): whether it is down,
// whether an admin drained it (admin), whether its agent is leaving, and
// whether the replay has it drained (drained), for either. An agent that
// leaves (allot agent --on-exit kill) says goodbye, stops its tasks,
// which may take up to its exit grace, and says its last; from the
// goodbye (store.NodeLeaving) to the leave's end the master places
// nothing on the node, as on a drained one (mnode.draining), so the
// replay drains it then and resumes it when the leave ends, unless an
// admin's drain holds it. The leave ends when the node, gone (left or
// lost), registers again, or when its agent registers again while the
// node is still up (store.NodeStayed). An admin's resume during the
// leave lifts the admin's drain only: the node stays drained until the
// leave ends; an admin's drain during it outlasts it. Without the drain,
// the replay had the slots of the tasks that ended before the node left
// free meanwhile, and started waiting work there.
type nodeStates struct {
	down, admin, leaving, drained map[string]bool
}

// newNodeStates knows of no node: each is up, not drained, not leaving.
func newNodeStates() nodeStates {
	return nodeStates{down: map[string]bool{}, admin: map[string]bool{}, leaving: map[string]bool{}, drained: map[string]bool{}}
}

// events are the scenario events of node event e, at at: none, one, or
// a return and the end of a leave's drain.
func (ns *nodeStates) events(e store.NodeEvent, at int64) []scenario.Event {
	ev := func(k scenario.EventKind) scenario.Event { return scenario.Event{At: at, Kind: k, Node: e.Node} }
	name := e.Node
	switch {
	case e.To == store.NodeDrained:
		ns.admin[name] = true
		return ns.drain(name, ev)
	case e.To == store.NodeSchedulable:
		ns.admin[name] = false
		if ns.leaving[name] {
			return nil // the leave's drain goes on
		}
		ns.drained[name] = false
		return []scenario.Event{ev(scenario.EventResume)}
	case e.To == store.NodeLeaving && !ns.down[name]:
		ns.leaving[name] = true
		return ns.drain(name, ev)
	case e.From == store.NodeLeaving && e.To == store.NodeUp && !ns.down[name]:
		// Its agent registered again while leaving: the leave is over.
		return ns.endLeave(name, ev)
	case e.To == store.NodeDeleted:
		// Even a node down already leaves the fair-share capacity
		// (lifecycle.InFairShareCapacity) and its drain.
		ns.down[name], ns.admin[name], ns.leaving[name], ns.drained[name] = true, false, false, false
		return []scenario.Event{ev(scenario.EventNodeDelete)}
	case (e.To == store.NodeLost || e.To == store.NodeLeft) && !ns.down[name]:
		ns.down[name] = true
		return []scenario.Event{ev(scenario.EventNodeDown)}
	case e.To == store.NodeUp && ns.down[name]:
		ns.down[name] = false
		// Registered again: its agent's leave, if any, is over.
		return append([]scenario.Event{ev(scenario.EventNodeUp)}, ns.endLeave(name, ev)...)
	}
	return nil
}

// drain drains node name in the replay for an admin or a leave, unless
// it is drained already: the other's drain goes on.
func (ns *nodeStates) drain(name string, ev func(scenario.EventKind) scenario.Event) []scenario.Event {
	if ns.drained[name] {
		return nil
	}
	ns.drained[name] = true
	return []scenario.Event{ev(scenario.EventDrain)}
}

// endLeave ends the leave of node name, if it leaves, and resumes it in
// the replay unless an admin's drain holds it.
func (ns *nodeStates) endLeave(name string, ev func(scenario.EventKind) scenario.Event) []scenario.Event {
	if !ns.leaving[name] {
		return nil
	}
	ns.leaving[name] = false
	if ns.admin[name] || !ns.drained[name] {
		return nil
	}
	ns.drained[name] = false
	return []scenario.Event{ev(scenario.EventResume)}
}
