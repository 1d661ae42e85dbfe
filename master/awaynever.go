package master

import (
	"errors"
	"fmt"
	"slices"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

// A job too big for its pool even with the pool's lost or left nodes
// back (A11's leftovers). The core counts the nodes up only, so such a
// job read "the slots of pool train add up to 4" where the lost node's 8
// slots made 12: a user could not tell whether the node's return would
// help. Judged with the nodes back (awayView.judge), the job list and
// explain count their slots, name them, and say that their return would
// not let it start: it can never run in the pool as it is.

// judge is what job e, which the nodes up of its pool cannot hold (its
// reason no_nodes or gpu_type), makes of the pool's nodes not up of its
// GPU type: nodes are those nodes, and never is nil when the job could
// run with them back (it waits for them), else why it could not. Both
// are nil when the nodes up (drained ones resumed) could hold it or no
// node of its type is away.
func (v *awayView) judge(e *sched.Job) (nodes []awayNode, never error) {
	away := v.byPool[e.Pool]
	if len(away) == 0 || sched.FeasibleResumed(v.snap, e) == nil {
		return nil, nil
	}
	back := *v.snap
	back.Nodes = slices.Clip(v.snap.Nodes) // the appends copy: the snapshot stays as it is
	for _, a := range away {
		if e.GPU == "" || a.node.GPU == e.GPU {
			back.Nodes = append(back.Nodes, a.node)
			nodes = append(nodes, a)
		}
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	return nodes, sched.FeasibleResumed(&back, e)
}

// waitsFor is the nodes not up of job e's pool, of its GPU type, that e
// waits for: none when the nodes up (drained ones resumed) could hold a
// task of it, or when it would be too big even with them back.
func (v *awayView) waitsFor(e *sched.Job) []awayNode {
	nodes, never := v.judge(e)
	if never != nil {
		return nil
	}
	return nodes
}

// messages are the pending messages of job e, which the nodes up of its
// pool cannot hold: away when it waits for the pool's nodes not up
// (its code then nodes_down), never when it is too big even with them
// back (its code kept); "" for neither.
func (v *awayView) messages(e *sched.Job) (away, never string) {
	nodes, err := v.judge(e)
	switch {
	case len(nodes) == 0:
		return "", ""
	case err == nil:
		return v.message(e, nodes), ""
	}
	what, ok := countedBack(v.snap, e, nodes, err)
	if !ok {
		return "", ""
	}
	return "", what + ": it can never run in this pool, " + backNames(nodes) + " back or not"
}

// countedBack says why job e cannot run even with nodes back (never,
// judge's): "a task needs 16 slots, but the slots of pool train add up
// to 12 with its node n1 (8 GPUs, lost since 01:37:05) back"; false
// where never is no lack of slots (a license), which the nodes do not
// change.
func countedBack(s *sched.Snapshot, e *sched.Job, nodes []awayNode, never error) (string, bool) {
	var ie *sched.InfeasibleError
	if !errors.As(never, &ie) || ie.Field != "slots" {
		return "", false
	}
	pool := "its pool"
	if e.Pool >= 0 && e.Pool < len(s.Pools) {
		pool = "pool " + s.Pools[e.Pool].Name
	}
	what := "slots"
	if e.GPU != "" {
		what = e.GPU + " slots"
	}
	total := 0
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool == e.Pool && (e.GPU == "" || n.GPU == e.GPU) {
			total += max(n.Slots, n.OwnSlots) // drained ones resumed, as FeasibleResumed counts them
		}
	}
	for _, a := range nodes {
		total += a.node.Slots
	}
	with := " with its " + plural.Noun(len(nodes), "node") + " " + andList(awayItems(nodes)) + " back"
	if ie.Max == total {
		return fmt.Sprintf("a task needs %s, but the %s of %s add up to %d%s", plural.Count(ie.Need, "slot"), what, pool, ie.Max, with), true
	}
	return fmt.Sprintf("a task needs %s under one switch (topology: required), but one switch of %s holds at most %d %s%s",
		plural.Count(ie.Need, "slot"), pool, ie.Max, what, with), true
}

// backNames names away nodes, the first three and how many more: "n1",
// "n1 and n2", "n1, n2, n3 and 2 more".
func backNames(nodes []awayNode) string {
	var names []string
	for i, a := range nodes {
		if i == 3 {
			names = append(names, fmt.Sprintf("%d more", len(nodes)-3))
			break
		}
		names = append(names, a.name)
	}
	return andList(names)
}

// awayNeverCounterfactual is explain's "what would let it start now" of
// job e (labelled name) that cannot run even with nodes back (judge's
// never): it can never run, its nodes' slots counted, nil where never is
// no lack of slots.
func awayNeverCounterfactual(s *sched.Snapshot, e *sched.Job, name string, nodes []awayNode, never error) *api.Counterfactual {
	what, ok := countedBack(s, e, nodes, never)
	if !ok {
		return nil
	}
	whose := backNames(nodes) + "'s return"
	if len(nodes) > 1 {
		whose = "the return of " + backNames(nodes)
	}
	msg := fmt.Sprintf("job %s can never run: %s; %s would not let it start", name, what, whose)
	return &api.Counterfactual{Never: msg, Message: "It cannot start: " + msg + "."}
}
