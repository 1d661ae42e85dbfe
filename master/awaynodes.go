package master

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// The pending message of a job that only nodes of its pool that are not
// up could hold (trial 2026-11-29a A11). The core sees the nodes that
// are up, so a job that needs a lost node reads as no_nodes, too big for
// the pool, and explain said it "can never run", while the node may come
// back any second. The master knows the pool's nodes that are lost (no
// word from their agents past agent_timeout) or left (their agents shut
// down): it judges the job with them back at their own GPUs
// (sched.FeasibleResumed, as the submit-time check counts them), and
// where they would hold it, the job waits with code nodes_down and a
// message naming them. A deleted node is no node of the master's: a job
// only it could hold can never run, as one too big for every node the
// pool has. Only the code and the words change: the core's reason, and
// every rule that reads it, stay no_nodes.

// CodeNodesDown is the pending code of a job that no node of its pool up
// now could hold, but its nodes that are lost or left could, once back.
const CodeNodesDown = "nodes_down"

// awayNode is a node of a pool that is not up.
type awayNode struct {
	name  string
	state store.NodeState // lost, or left
	since time.Time       // when it went lost or left; zero: before this master started
	// heard is its agent's last contact (mnode.seen, allot nodes' LAST
	// SEEN), not the record's heartbeat, which is the registration's until
	// the store is next written (trial 2026-11-29b B17); zero: unknown.
	heard time.Time
	node  sched.Node // at its own GPUs, in the snapshot's pool
}

// awayView answers, for one pass or one explanation, which nodes not up
// a job waits for: the nodes are listed once, by the snapshot's pool
// index, and each pool with none costs a map lookup per job.
type awayView struct {
	snap   *sched.Snapshot
	byPool map[int][]awayNode
}

// newAwayView lists the nodes not up of the pools snap holds (pools: its
// pool indices by name). Callers hold mu.
func newAwayView(m *Master, pools map[string]int, snap *sched.Snapshot) *awayView {
	v := &awayView{snap: snap}
	for name, n := range m.nodes {
		i, ok := pools[n.pool]
		if n.up() || !ok || i < 0 || i >= len(m.cfg.Pools) {
			continue
		}
		if v.byPool == nil {
			v.byPool = map[int][]awayNode{}
		}
		f := nodeFacts(m.cfg, name, n, i)
		v.byPool[i] = append(v.byPool[i], awayNode{name: name, state: n.rec.State, since: n.lostAt,
			heard: n.seen, node: f.Node()})
	}
	for _, ns := range v.byPool {
		slices.SortFunc(ns, func(a, b awayNode) int { return strings.Compare(a.name, b.name) })
	}
	return v
}

// message is the pending message of job e, which waits for away
// (waitsFor): what the nodes up hold, then which nodes are away since
// when, and what it waits for.
func (v *awayView) message(e *sched.Job, away []awayNode) string {
	return upHoldPhrase(v.snap, e) + "; " + awayPhrase(away) + ": it waits for " + returnPhrase(away) + awayJoin
}

// awayJoin ends both the pending message of a job that waits for nodes
// away and its counterfactual, by which explain's prose tells that the
// second restates the first (restatesPending).
const awayJoin = ", or for another node that can hold its task to join"

// awayCounterfactual is explain's "what would let it start now" of a
// job that waits for away (awayView.waitsFor): not "never".
func awayCounterfactual(away []awayNode) *api.Counterfactual {
	return &api.Counterfactual{Message: "It cannot start on the nodes up now: it waits for " + returnPhrase(away) +
		" (" + awayStates(away) + ")" + awayJoin + "."}
}

// restatesPending reports whether x's counterfactual says again what its
// pending message said, that it waits for nodes away to come back (both
// end in awayJoin): explain's prose then says it once (trial 2026-11-29d
// D14), and the section "What would let it start now" keeps it.
func restatesPending(x api.Explanation) bool {
	return x.Pending != nil && x.WouldStart != nil &&
		strings.Contains(x.Pending.Message, awayJoin) && strings.Contains(x.WouldStart.Message, awayJoin)
}

// upHoldPhrase says what the nodes up of e's pool cannot do for it:
// "no node of pool train up now can hold a task of 8 slots (the nodes up
// hold 4 together)".
func upHoldPhrase(s *sched.Snapshot, e *sched.Job) string {
	pool := "its pool"
	if e.Pool >= 0 && e.Pool < len(s.Pools) {
		pool = "pool " + s.Pools[e.Pool].Name
	}
	need := e.SmallestTask()
	what := plural.Count(need, "slot")
	if e.GPU != "" {
		what = plural.Count(need, e.GPU+" slot")
	}
	m := fmt.Sprintf("no node of %s up now can hold a task of %s", pool, what)
	var ie *sched.InfeasibleError
	err := sched.FeasibleResumed(s, e)
	if errors.As(err, &ie) && ie.Field == "gpu" {
		return fmt.Sprintf("no node of %s up now has GPU type %s", pool, e.GPU)
	}
	if ie == nil || ie.Field != "slots" {
		return m
	}
	total := 0
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool == e.Pool && (e.GPU == "" || n.GPU == e.GPU) {
			total += max(n.Slots, n.OwnSlots) // drained ones resumed, as FeasibleResumed counts them
		}
	}
	if ie.Max == total {
		return m + fmt.Sprintf(" (the nodes up hold %d together)", ie.Max)
	}
	return m + fmt.Sprintf(" (at most %d under one switch)", ie.Max) // topology: required
}

// awayPhrase names the nodes away with their GPUs and since when: "its
// node n1 (8 GPUs) is lost since 01:37:05 (no word from its agent since
// 01:36:29)", "its nodes n1 (8 GPUs, lost since 01:37:05) and n2 (8
// GPUs, left at 01:38:00) are not up"; three named, then a count.
func awayPhrase(away []awayNode) string {
	if len(away) == 1 {
		a := away[0]
		return fmt.Sprintf("its node %s (%s) %s", a.name, plural.Count(a.node.Slots, "GPU"), awayState(a, true))
	}
	return "its nodes " + andList(awayItems(away)) + " are not up"
}

// awayItems are the nodes away with their GPUs and since when: "n1 (8
// GPUs, lost since 01:37:05)"; three named, then a count.
func awayItems(away []awayNode) []string {
	parts := make([]string, 0, 4)
	for i, a := range away {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(away)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", a.name, plural.Count(a.node.Slots, "GPU"), awayState(a, false)))
	}
	return parts
}

// awayStates is awayState of each node, joined: "n1 lost since
// 01:37:05; n2 left at 01:38:00"; three named, then a count.
func awayStates(away []awayNode) string {
	if len(away) == 1 {
		return awayState(away[0], false)
	}
	var parts []string
	for i, a := range away {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more not up", len(away)-3))
			break
		}
		parts = append(parts, a.name+" "+awayState(a, false))
	}
	return strings.Join(parts, "; ")
}

// awayState says how a node is away: "is lost since 01:37:05 (no word
// from its agent since 01:36:29)" with verb and why, "lost since
// 01:37:05" without; a node that left "left at 01:38:00 (its agent shut
// down)".
func awayState(a awayNode, verb bool) string {
	when := "since before the master started"
	if !a.since.IsZero() {
		when = "since " + a.since.UTC().Format("15:04:05")
	}
	if a.state == store.NodeLeft {
		if !a.since.IsZero() {
			when = "at " + a.since.UTC().Format("15:04:05")
		}
		if verb {
			return "left " + when + " (its agent shut down)"
		}
		return "left " + when
	}
	s := string(a.state) + " " + when
	if !verb {
		return s
	}
	s = "is " + s
	if a.state == store.NodeLost {
		s += " (no word from its agent"
		if !a.heard.IsZero() {
			s += " since " + a.heard.UTC().Format("15:04:05")
		}
		s += ")"
	}
	return s
}

// returnPhrase is what the job waits for: "n1 to come back", "nodes n1
// and n2 to come back", "nodes n1, n2, n3 and 2 more to come back".
func returnPhrase(away []awayNode) string {
	if len(away) == 1 {
		return away[0].name + " to come back"
	}
	return "nodes " + backNames(away) + " to come back"
}

// noNodeUp is the counterfactual of a job whose pool has no node up at
// all but nodes that left or are lost, nil otherwise: no node "can hold
// its task" would read as a job too big for nodes that are only away.
func (f *cfFacts) noNodeUp(e *sched.Job) *api.Counterfactual {
	s := f.s
	if e.Pool < 0 || e.Pool >= len(s.Pools) || slices.ContainsFunc(s.Nodes, func(n sched.Node) bool { return n.Pool == e.Pool }) {
		return nil
	}
	gone := ""
	if f.gone != nil {
		gone = f.gone(s.Pools[e.Pool].Name)
	}
	if gone == "" {
		return nil // a pool no node ever joined: Feasible says so
	}
	return &api.Counterfactual{Message: "It cannot start now: " + noNodeUpMessage(s.Pools[e.Pool].Name, gone) + "."}
}

// unplaceable is the counterfactual of job ji (entry e) when no set of
// the pool's nodes up now could hold it (never, or waiting for a drained
// node's resume or a lost node's return), else nil; drained are the
// pool's drained nodes either way. Drained nodes count at their own
// slots: a job too big for the pool even with them resumed can never
// run, drain or no drain; one that only they could hold waits for a
// resume.
func (f *cfFacts) unplaceable(ji int, e *sched.Job) (drained []string, cf *api.Counterfactual) {
	if cf := f.noNodeUp(e); cf != nil {
		return nil, cf
	}
	drained = f.s.DrainedNodes(e)
	err := sched.FeasibleResumed(f.s, e)
	if err != nil && f.away != nil {
		away, never := f.away(e)
		if len(away) > 0 && never == nil {
			return drained, awayCounterfactual(away) // awaynodes.go: not "never" for a node that may come back
		}
		name := e.ID
		if rec := f.rec(ji); rec != nil {
			name = jobLabel(*rec)
		}
		if cf := awayNeverCounterfactual(f.s, e, name, away, never); len(away) > 0 && cf != nil {
			return drained, cf // awaynever.go: never, the nodes away counted
		}
	}
	if err == nil {
		if err = sched.Feasible(f.s, e); err != nil && len(drained) > 0 {
			return drained, drainedCounterfactual(drained)
		}
	}
	if err != nil {
		// The snapshot's ID is the job's number; name it as the CLI does.
		var ie *sched.InfeasibleError
		if rec := f.rec(ji); errors.As(err, &ie) && rec != nil {
			ie.Name = jobLabel(*rec)
		}
		return drained, &api.Counterfactual{Never: err.Error(), Message: "It cannot start on the nodes up now: " + err.Error() + "."}
	}
	return drained, nil
}
