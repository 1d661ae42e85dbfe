package master

import (
	"maps"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// A node rule of the configuration may give a node labels over its
// agent's (lifecycle.NodeLabels), and a reload, or a master started on a
// changed configuration, may change them with no registration: what a
// gang that needs one switch can use changes then. Such a change is
// recorded as a reload's move is (store.MoveNodes, From
// store.NodeReconfigured To store.NodeRelabeled), with the pool and the
// labels in effect, and a move alike: a label change as two events of
// one instant, the labels in effect until then and those from then on;
// a move alone as one, its labels being both. Each registration's event
// keeps the labels in effect then beside the agent's (store.Node
// InEffect), so the history has a node's labels in effect at every
// instant: the what-if export reads them (whatif_reshaped.go), and a
// master started on a changed configuration compares the configuration's
// with the last recorded (recordMoves). A registration recorded before
// they were has the agent's only: the export reads them under the rule
// of the next event of its node that says what was in effect
// (nodeRules), or under the rules in force now where none came later.

// relabels appends to moves what a configuration change records for
// node name, in pool wasPool with labels wasLabels in effect before it
// and in pool pool with labels labels after: nothing when neither
// changed; the new pool with its labels when only the pool did; the
// labels before and then the pool and labels after when the labels did.
func relabels(moves []store.NodeMove, name, wasPool string, wasLabels map[string]string, pool string, labels map[string]string) []store.NodeMove {
	switch {
	case !maps.Equal(wasLabels, labels):
		return append(moves, store.NodeMove{Node: name, Pool: wasPool, Labels: wasLabels},
			store.NodeMove{Node: name, Pool: pool, Labels: labels})
	case wasPool != pool:
		return append(moves, store.NodeMove{Node: name, Pool: pool, Labels: labels})
	}
	return moves
}

// ruleOver is the rule that gives labels in effect over own, the agent's
// labels: those of effect that own lacks or has otherwise. A rule's label
// that own has alike is not told apart from own's, and is lost when own
// changes later: it reads registrations recorded without their labels in
// effect only.
func ruleOver(effect, own map[string]string) map[string]string {
	var rule map[string]string
	for k, v := range effect {
		if w, ok := own[k]; !ok || w != v {
			if rule == nil {
				rule = map[string]string{}
			}
			rule[k] = v
		}
	}
	return rule
}

// says reports whether node event e says which labels were in effect:
// a relabeled event's labels, or a registration's recorded with them.
func says(e store.NodeEvent) bool {
	return e.Shape != nil && (e.To == store.NodeRelabeled || e.Shape.InEffect != nil)
}

// effectOf is the labels in effect that event e says (says).
func effectOf(e store.NodeEvent) map[string]string {
	if e.To == store.NodeRelabeled {
		return e.Shape.Labels
	}
	return e.Shape.InEffect
}

// nodeRules reads the node history evs for the rules over each node's
// agent labels where a registration (or a deletion, or a move recorded
// before labels were) kept the agent's labels only: ruleBefore, by event
// index, the rule that such an event was read under: that of the next
// event of its node that says which labels were in effect (says), where
// there is one (known). It returns too, by node, the labels in effect
// that the history last had (last): those of its last event that says,
// or the agent's of a later registration under that event's rule; a
// node with no such event, or deleted since, is left out.
func nodeRules(evs []store.NodeEvent) (ruleBefore map[int]map[string]string, known map[int]bool, last map[string]map[string]string) {
	own := map[string]map[string]string{}  // node → its agent's labels so far
	rule := map[string]map[string]string{} // node → the rule of its last event that says
	at := make([]map[string]string, len(evs))
	last = map[string]map[string]string{}
	for i, e := range evs {
		switch {
		case says(e):
			if e.To != store.NodeRelabeled {
				own[e.Node] = e.Shape.Labels
			}
			at[i] = ruleOver(effectOf(e), own[e.Node])
			rule[e.Node], last[e.Node] = at[i], effectOf(e)
		case e.Shape != nil:
			own[e.Node] = e.Shape.Labels
			if r, ok := rule[e.Node]; ok {
				last[e.Node] = labelsInEffect(e.Shape.Labels, r)
			}
		case e.Deleted != nil:
			own[e.Node] = e.Deleted.Labels
			delete(last, e.Node)
		}
	}
	ruleBefore, known = map[int]map[string]string{}, map[int]bool{}
	next, seen := map[string]map[string]string{}, map[string]bool{}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch {
		case says(e):
			next[e.Node], seen[e.Node] = at[i], true
		case (e.Shape != nil || e.Deleted != nil) && seen[e.Node]:
			ruleBefore[i], known[i] = next[e.Node], true
		}
	}
	return ruleBefore, known, last
}

// labelsInEffect is what agent labels own are under rule.
func labelsInEffect(own, rule map[string]string) map[string]string {
	l := lifecycle.NodeLabels(own, rule)
	if len(l) == 0 {
		return nil
	}
	return l
}
