package lifecycle

import (
	"fmt"

	"github.com/allot-sched/allot/sched"
)

// A Driver is the state a plan's effects apply to, as Settle sees it:
// the Cluster's own records (Cluster.Step) or the master's store-backed
// mirror (its planner). Settle holds what the two share (the passes, the
// reservations carried between them, Decide's order, which effects are
// skipped, when the instant is settled); the Driver builds each pass's
// snapshot from its state and applies the effects to it. Each knows its
// own instant: the Cluster the one Step was given, the master the one its
// settling read as it began, read again only past a handler's change
// made while the core planned (master/loop.go).
type Driver interface {
	// Idle reports, before a pass, that a pass could change nothing
	// now, so that the passes so far settled the instant (the Cluster's
	// full-cluster shortcut, shortcuts.go; the master never is).
	Idle() bool
	// Build readies the snapshot of a pass and returns it, with the task
	// each of its allocations stands for, which Decide names the effects
	// by (nil: the allocation's index names it).
	Build() (snap *sched.Snapshot, tasks []int32)
	// Scheduled sees the core's plan of the snapshot, or its error,
	// before anything of it is carried or applied; the error it returns
	// (nil if none) ends Settle.
	Scheduled(plan *sched.Plan, err error) error
	// Carry keeps the plan's reservations for the next pass's snapshot,
	// by the rule Reservations gives.
	Carry(plan *sched.Plan)
	// Replacing reports whether a move or resize of task is under way
	// (Replannable); OnDrained whether task has a part on a drained
	// node. Both are asked of the state the pass's snapshot was built
	// from, before any effect of its plan is applied (the master asks its
	// mirror once the core has planned: the build's, but for what its
	// handlers changed while the core ran without the master's lock).
	Replacing(task int32) bool
	OnDrained(task int32) bool
	// Apply applies effects, in order, and returns how many starts and
	// how many preemptions, moves and resizes it applied. plan is the
	// plan they were decided from. An error ends Settle: the Cluster's
	// when its driver did not store them (Persister), none applied.
	Apply(plan *sched.Plan, effects []Effect) (starts, changes int, err error)
	// Again reports, after a pass was applied, that another must follow
	// whatever it changed (the Cluster's FIFO window, which saw no
	// blocked job, widens: shortcuts.go).
	Again() bool
	// OneShot is Settled's oneShot after the pass just applied (OneShot).
	OneShot() bool
}

// Settler runs the passes of an instant (Settle). Its zero value is
// ready; it keeps the effects' slice from call to call.
type Settler struct {
	// MaxPasses bounds the passes of one Settle; one that has not settled
	// by then fails. 0 means 1000.
	MaxPasses int
	effects   []Effect
}

// Settle runs passes of sc over d until they settle (Settled, with d's
// OneShot), and returns how many it ran. Each pass builds d's snapshot,
// schedules it, carries its reservations (d.Carry) when carry says so
// or an earlier pass ran, turns the plan into effects in Decide's
// order, and has d apply them but those that apply to nothing: a
// preemption, move or resize of a task being re-placed (Replannable:
// the core plans it again once it has resumed) and a preemption of a
// task on a drained node (its slots there would not come back, nodes.go),
// neither of which counts as a change. carry is false for the master's
// idle tick, whose first pass carries nothing, so that conservative
// backfilling compresses its schedule on events only, as the simulator
// does (it settles after events only).
//
// The skips are asked before any effect of the plan is applied. The core
// names an allocation in at most one item of a plan (sched's property
// tests), and applying an effect changes only its own task's record, so
// asking in between, as the Cluster once did, gives the same answers.
func (s *Settler) Settle(d Driver, sc *sched.Scheduler, carry bool) (passes int, err error) {
	limit := s.MaxPasses
	if limit <= 0 {
		limit = 1000
	}
	for {
		if d.Idle() {
			return passes, nil
		}
		if passes == limit {
			return passes, fmt.Errorf("scheduling did not settle after %d passes", passes)
		}
		passes++
		snap, tasks := d.Build()
		plan, err := sc.Schedule(snap)
		if err = d.Scheduled(plan, err); err != nil {
			return passes, err
		}
		if carry {
			d.Carry(plan)
		}
		// Anything that changed makes the next pass an event's, whatever
		// began this one.
		carry = true
		s.effects = Decide(s.effects[:0], plan, tasks)
		starts, changes, err := d.Apply(plan, applicable(d, s.effects))
		if err != nil {
			return passes, err
		}
		if d.Again() {
			continue
		}
		// A FIFO or backfill pool schedules once per event, as the
		// textbook algorithms do: FIFO and EASY plans are maximal, so a
		// confirming pass would change nothing, and conservative
		// backfilling compresses its reservations once per event, as
		// Mu'alem and Feitelson do; a second compression could in
		// principle move a reservation earlier, but on the traces a
		// confirming pass changes nothing for any of the three
		// (sim's TestConfirmingPassChangesNothing forces it on).
		if Settled(starts, changes, d.OneShot()) {
			return passes, nil
		}
	}
}

// applicable drops from effects, in place, those Settle does not apply.
func applicable(d Driver, effects []Effect) []Effect {
	n := 0
	for i := range effects {
		e := &effects[i]
		if e.Op != OpStart && !Replannable(d.Replacing(e.Task)) {
			continue // the core plans it again once it has resumed
		}
		if e.Op == OpPreempt && d.OnDrained(e.Task) {
			continue // its slots there would not come back (capDrained)
		}
		if n != i {
			effects[n] = *e
		}
		n++
	}
	return effects[:n]
}
