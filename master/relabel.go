package master

import (
	"maps"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// A node rule of the configuration may give a node labels over its
// agent's (lifecycle.NodeLabels), and a reload, or a master started on a
// changed configuration, may change them with no registration: what a
// gang that needs one switch can use changes then. The node history has
// the agent's labels at each registration only, so such a change is
// recorded as a reload's move is (store.MoveNodes, From
// store.NodeReconfigured To store.NodeRelabeled), with the pool and the
// labels in effect, and a move alike: a label change as two events of
// one instant, the labels in effect until then and those from then on,
// so that the history says which rule each registration was read under
// (ruleBefore) whatever came before; a move alone as one, its labels
// being both. The what-if export reads each node's labels at every
// instant from these (whatif_reshaped.go): a registration's agent labels
// under the rule of the next relabeled event of its node, or under the
// rules in force now where none came later.

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
// changes later.
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

// nodeRules reads the node history evs for the rules over each node's
// agent labels: ruleBefore, by event index, the rule that an event
// carrying agent labels (a registration, a deletion, a move recorded
// before labels were) was read under: that of the next relabeled event
// of its node, where there is one (known); and last, by node, the rule
// of its last relabeled event, the one in effect since, where there is
// one.
func nodeRules(evs []store.NodeEvent) (ruleBefore map[int]map[string]string, known map[int]bool, last map[string]map[string]string) {
	own := map[string]map[string]string{} // node → its agent's labels so far
	at := make([]map[string]string, len(evs))
	last = map[string]map[string]string{}
	for i, e := range evs {
		switch {
		case e.Shape != nil && e.To == store.NodeRelabeled:
			at[i] = ruleOver(e.Shape.Labels, own[e.Node])
			last[e.Node] = at[i]
		case e.Shape != nil:
			own[e.Node] = e.Shape.Labels
		case e.Deleted != nil:
			own[e.Node] = e.Deleted.Labels
		}
	}
	ruleBefore, known = map[int]map[string]string{}, map[int]bool{}
	next, seen := map[string]map[string]string{}, map[string]bool{}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		switch {
		case e.Shape != nil && e.To == store.NodeRelabeled:
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
