package master

import (
	"slices"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// A dry run's settling. The live master settles an instant over several
// passes (lifecycle.Settler.Settle, loop.go), each planning on what the
// one before applied, reservations carried from pass to pass, until one
// changes nothing (or, where every plan is maximal, starts without
// preempting). What the first pass says of a job is not always what the
// settled instant shows: a job that preempts for one task and blocks on
// another lets other jobs backfill in the same pass, so the next finds
// fewer slots free (TestDryRunAsSubmitted); an elastic task that grows
// in a quota pool takes the idle slots a borrowing hint counted on. A
// dry run settles the instant of its submission the same way, with the
// same Settler, so that it answers what the live master would do and
// what explain would then say: drySettling is its Driver. Its state is a copy of the last pass's snapshot with the
// job added, made under mu (newDrySettling); each pass schedules the copy,
// and its effects are applied to the copy as the next build would show
// them, never to the mirror, the store or the agents: a start adds the
// task's allocation and takes one from its job's waiting tasks, a
// preemption marks the allocation preempting (its slots stay held until
// the checkpoint lands, which takes longer than an instant), a move or
// resize splits the allocation into its new placement and what drains
// (lifecycle.Hold.Replaced), and both count against their project's
// preemption budget. Nothing but the passes happens in between: no
// agent answers, no checkpoint lands, no time passes, as none does
// between the passes of a live settling.
//
// What the copy cannot show is what the live applier re-checks against
// the mirror (a node lost or a job killed while the core planned, GPUs
// taken meanwhile): a dry run judges the state of the last pass.

// drySettling is the Driver of a dry run's settle loop over its copy.
type drySettling struct {
	snap sched.Snapshot
	// ji is the dry run's job in snap.
	ji int
	// replacing and onDrained answer Replacing and OnDrained by
	// allocation: what the live settling says of the copied ones
	// (settling.Replacing, OnDrained), and for an allocation a pass adds,
	// what its task is (a moved task is being re-placed, a started one
	// is not).
	replacing, onDrained []bool
	oneShot              bool
	// What the passes did for the job: the preemptions made for it, and
	// the last pass's pending reason and multifactor priority.
	victims []api.DryRunVictim
	// resizes are the shrinks made for it; resized maps the allocations
	// a resize leaves draining, the live ones' and the passes', to the
	// task's resize (cfFacts.resized).
	resizes []api.DryRunResize
	resized map[int]api.SlotChange
	pending *pendingInfo
	mf      float64
	// others counts the other jobs the last pass left waiting in the
	// job's pool: with the job's Turn, its place in the queue.
	others int
}

// newDrySettling copies the last pass's snapshot with job entry e added
// (under a fresh ID: dryRunID), as the build after its submission would
// show it: with the reservations the last plan carried (applyCarried) and
// what the live settling says of each allocation. Callers hold mu.
func newDrySettling(pl *planner, e sched.Job) *drySettling {
	d := &drySettling{snap: copySnapshot(&pl.snap)}
	s := &d.snap
	r := &pl.roster
	for _, c := range r.carried {
		if i := r.Index(c.ri); i >= 0 && i < len(s.Jobs) {
			s.Jobs[i].Reserved, s.Jobs[i].ReservedNodes = c.at, slices.Clone(c.nodes)
		}
	}
	d.resized = resizedAllocs(pl)
	live := settling{pl: pl}
	d.replacing = make([]bool, len(s.Allocs))
	d.onDrained = make([]bool, len(s.Allocs))
	if len(pl.view.allocs) == len(s.Allocs) {
		for a := range s.Allocs {
			d.replacing[a], d.onDrained[a] = live.Replacing(int32(a)), live.OnDrained(int32(a))
		}
	}
	d.oneShot = lifecycle.OneShot(s.Pools, pl.grew || lifecycle.Grows(&e))
	// The copy is scheduled by a Scheduler of its own, which has seen no
	// earlier pass: no Rev or node list of the live passes applies.
	for i := range s.Jobs {
		s.Jobs[i].Rev = 0
	}
	s.NodesVersion = 0
	s.Jobs = append(s.Jobs, e)
	d.ji = len(s.Jobs) - 1
	return d
}

// Idle is never true: like the master, a dry run has no shortcut.
func (d *drySettling) Idle() bool { return false }

// Build returns the copy as the effects so far left it; its allocations
// name themselves.
func (d *drySettling) Build() (*sched.Snapshot, []int32) { return &d.snap, nil }

// Scheduled keeps the plan's pending reason of the job, or passes on the
// core's error, which ends the settling as it ends the live one.
func (d *drySettling) Scheduled(plan *sched.Plan, err error) error {
	if err != nil {
		return err
	}
	d.pending, d.mf, d.others = nil, 0, 0
	pool := d.snap.Jobs[d.ji].Pool
	for _, pe := range plan.Pending {
		if pe.Job != d.ji {
			if d.snap.Jobs[pe.Job].Pool == pool {
				d.others++
			}
			continue
		}
		pi := &pendingInfo{p: pe, now: d.snap.Now, ctx: pendingContextOf(&d.snap, plan, pe, map[borrowKey]int{}, d.resized)}
		if pe.Blocker >= 0 && pe.Blocker < len(d.snap.Jobs) {
			pi.blockerID = d.snap.Jobs[pe.Blocker].ID
		}
		d.pending, d.mf = pi, pe.Priority
	}
	return nil
}

// Carry carries the plan's reservations into the copy's entries, as the
// live build takes them (carriedReservations.keep, applyCarried).
func (d *drySettling) Carry(plan *sched.Plan) {
	lifecycle.Reservations(plan, func(i int, at int64, nodes []sched.NodeSlots) {
		j := &d.snap.Jobs[i]
		j.Reserved, j.ReservedNodes = at, append(j.ReservedNodes[:0], nodes...)
	})
}

// Replacing reports whether allocation a's task is being re-placed.
func (d *drySettling) Replacing(a int32) bool { return d.replacing[a] }

// OnDrained reports whether allocation a's task has a part on a
// draining node.
func (d *drySettling) OnDrained(a int32) bool { return d.onDrained[a] }

// Apply applies the effects to the copy (drySettling's doc says how).
func (d *drySettling) Apply(plan *sched.Plan, effects []lifecycle.Effect) (starts, changes int, err error) {
	s := &d.snap
	for i := range effects {
		switch e := &effects[i]; e.Op {
		case lifecycle.OpPreempt:
			a := int(e.Task)
			if e.For == d.ji {
				d.victims = addVictim(d.victims, s, sched.Preemption{Alloc: a, For: e.For})
			}
			s.Allocs[a].Preempting = true
			d.charge(a)
			changes++
		case lifecycle.OpMove, lifecycle.OpResize:
			d.replace(e)
			changes++
		case lifecycle.OpStart:
			var at lifecycle.Attempt
			at.Launch(s.Now, e.Backfill)
			h := at.Hold(slices.Clone(e.Nodes), false, false)
			s.Allocs = append(s.Allocs, h.Alloc(e.Job, s.Now, 0))
			d.replacing = append(d.replacing, false)
			d.onDrained = append(d.onDrained, false) // no start goes to a drained node
			s.Jobs[e.Job].Waiting--
			starts++
		}
	}
	return starts, changes, nil
}

// replace re-places allocation e.Task on e.Nodes (a move or resize): the
// allocation becomes the new placement and what of the old one it does
// not keep drains, preempting and moving (lifecycle.Hold.Replaced), the
// task being re-placed in both until its checkpoint lands. A move counts
// against the project's preemption budget.
func (d *drySettling) replace(e *lifecycle.Effect) {
	s := &d.snap
	a := int(e.Task)
	if e.Op == lifecycle.OpResize && e.For == d.ji {
		d.resizes = addResize(d.resizes, s, e)
	}
	old := s.Allocs[a]
	var at lifecycle.Attempt // the allocation's attempt: resumed at its last checkpoint
	at.Launch(max(old.Start, old.Checkpoint), old.Backfilled)
	at.Continue(old.Start)
	h := at.Hold(old.Nodes, false, false)
	var r lifecycle.Replacement // what the live driver reserves (apply)
	r.Reserve(e.Op.Replace(), s.Now, 0, "")
	placed, drained := r.Split(&h, slices.Clone(e.Nodes), nil)
	s.Allocs[a] = placed.Alloc(old.Job, s.Now, 0)
	d.replacing[a] = true
	if len(drained.Nodes) > 0 {
		if e.Op == lifecycle.OpResize {
			if d.resized == nil {
				d.resized = map[int]api.SlotChange{}
			}
			d.resized[len(s.Allocs)] = api.SlotChange{From: sched.Slots(old.Nodes), To: sched.Slots(e.Nodes)}
		}
		s.Allocs = append(s.Allocs, drained.Alloc(old.Job, s.Now, 0))
		d.replacing = append(d.replacing, true)
		d.onDrained = append(d.onDrained, d.onDrained[a])
	}
	if e.ChargesBudget() {
		d.charge(a)
	}
}

// charge counts a preemption or move of allocation a's task against its
// project's preemption budget, as the next build would count it
// (preemptedCount).
func (d *drySettling) charge(a int) {
	s := &d.snap
	p := s.Jobs[s.Allocs[a].Job].Project
	if p >= 0 && p < len(s.Projects) && s.Projects[p].PreemptBudget > 0 {
		s.Projects[p].Preempted++
	}
}

// Again is never true: the copy has no FIFO window.
func (d *drySettling) Again() bool { return false }

// OneShot is the live settling's: lifecycle.OneShot of the pools, and
// whether an elastic job was ever seen, this one included.
func (d *drySettling) OneShot() bool { return d.oneShot }

// started reports whether a pass started a task of the job: it holds
// an allocation, which only a start gives it. A start that a later pass
// of the same instant preempted again counts too, as the live master's
// would: the task started, and waits again once its checkpoint lands.
func (d *drySettling) started() bool {
	for i := range d.snap.Allocs {
		if d.snap.Allocs[i].Job == d.ji {
			return true
		}
	}
	return false
}
