package master

import (
	"time"

	"github.com/allot-sched/allot/sched"
)

// The core's Schedule runs without mu (settling.Build releases it,
// settling.Scheduled takes it again), so that agent syncs, kills and the
// other handlers do not wait for the CPU-heavy part of a pass. Passes are
// serialised by planner.passMu, taken before mu: only the pass writes the
// snapshot, the planner's view, the roster whose entries are the
// snapshot's jobs (roster.go: handlers only note the jobs they admitted
// or changed, which the next build applies; the carried reservations
// wait for it too) and the fair-share accounts (rebuilt and filled by the
// pass only), and the handlers that hold mu meanwhile only read them
// (explain, sshare, the forecast's copy). Every map and slice the
// snapshot holds is either the planner's own (the entries' reserved
// nodes: the roster's) or never changed in place: node labels are
// replaced whole by a registration, the configuration is swapped whole by
// a reload.
//
// When the pass takes mu again the mirror may have changed under the
// plan. The applier re-checks every effect against the mirror (apply.go,
// moves.go) and the store's compare-and-set checks it again; what the
// snapshot does not say, builtFacts keeps from the build, so that the
// applier can tell what changed since: the configuration (a plan built
// under another generation is void; a reload waits for the settling in
// flight, as node events do, so this is a guard), each job (a changed or departed job is neither started nor
// has its tasks preempted, moved or resized), each allocation's attempt
// (one that ended or was replaced is not preempted), each node (one that
// was deleted, registered again, or began to drain takes no new
// placement).

// builtFacts is the state of the mirror a pass's snapshot was built from,
// as far as the applier re-checks it (stale.go). It is the planner's,
// written by the build only and read by the applier, both with passMu
// and mu held.
type builtFacts struct {
	// gen is the master's configuration generation (Master.cfgGen).
	gen int
	// atts is, per snapshot allocation, the attempt it stands for.
	atts []*mattempt
	// nodes is, per snapshot node, its registrations and whether it was
	// draining.
	nodes []builtNode
}

type builtNode struct {
	regs     int
	draining bool
}

// passUnlocked, when set, is called by each pass with mu released, once
// the core's Schedule has returned its plan and before the pass takes mu
// again: tests change the mirror there as a concurrent handler would, or
// hold the pass there. passReleased, when set, is called as the pass
// releases mu, before Schedule: a benchmark times the two apart.
// nodeEventWaits, when set, is called by a node event's handler just
// before it waits for the settling in flight (betweenSettlings): a test
// that holds a pass knows the handler reached it.
var (
	passUnlocked   func(plan *sched.Plan)
	passReleased   func()
	nodeEventWaits func()
)

// build builds the pass's snapshot at now (buildSnapshot) and notes what
// the applier re-checks (builtFacts). Callers hold passMu and mu.
func (pl *planner) build(now time.Time) {
	pl.buildSnapshot(now)
	pl.built.note(pl.m.cfgGen, &pl.view)
}

// note records the facts of a snapshot just built from the mirror at
// configuration generation gen, reusing the slices of the last pass.
func (b *builtFacts) note(gen int, v *snapView) {
	b.gen = gen
	b.atts = b.atts[:0]
	for _, r := range v.allocs {
		b.atts = append(b.atts, r.t.att)
	}
	b.nodes = b.nodes[:0]
	for _, n := range v.nodes {
		b.nodes = append(b.nodes, builtNode{regs: n.regs, draining: n.draining()})
	}
}

// stale reports whether the configuration changed since the build (gen
// is the master's generation now): the plan's pools, projects and
// entries are another configuration's, and none of it is applied (the
// change asked for another pass). A reload waits for the settling in
// flight (reload.go), so this is a guard only.
func (b *builtFacts) stale(gen int) bool { return gen != b.gen }

// unchanged reports whether job j is still as the build saw it: in the
// mirror, and not changed since (a PATCH of its priority, class or weight
// resets its entry, mjob.entryGen). The plan's starts of a changed job and
// its preemptions, moves and resizes are skipped: the next pass, which
// the change kicked, plans them again.
func (b *builtFacts) unchanged(j *mjob) bool {
	return !j.gone && j.entryGen == b.gen
}

// attempt reports whether task t of allocation a still runs the attempt
// allocation a stood for.
func (b *builtFacts) attempt(a int, t *mtask) bool {
	return a < len(b.atts) && t.att == b.atts[a]
}

// placeable reports whether snapshot node i may take a new placement now:
// it is still the mirror's (not deleted), up, has not registered again
// since the build (its GPUs, labels or pool may differ), and is not
// draining unless it already was.
func (pl *planner) placeable(i int32) bool {
	n := pl.view.nodes[i]
	if int(i) >= len(pl.built.nodes) || pl.m.nodes[n.rec.Name] != n {
		return false
	}
	b := pl.built.nodes[i]
	return n.up() && n.regs == b.regs && (!n.draining() || b.draining)
}
