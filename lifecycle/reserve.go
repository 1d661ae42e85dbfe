package lifecycle

import (
	"slices"

	"github.com/allot-sched/allot/sched"
)

// KeepReservations carries each job's reserved start from plan into the
// roster's entries, the snapshot's jobs the plan was made from, for the
// next pass: the core keeps nothing between passes, and conservative
// backfilling compresses the schedule it is handed rather than rebuild
// it. A job the plan starts has no reservation left; a job that can never
// start (or whose start is unknown) is reserved at 0, "none"
// (Reservations). An entry that changes gets a new Rev (Reserve).
func (r *Roster) KeepReservations(plan *sched.Plan) {
	Reservations(plan, func(i int, at int64, nodes []sched.NodeSlots) { r.Reserve(i, at, nodes) })
}

// Reserve carries reservation at, on nodes (copied), into the entry of
// snapshot index i, giving it a new Rev when it changes (Revise), and
// reports whether it did. It is the one way both drivers change an
// entry's reservation: the Cluster as a plan leaves it
// (KeepReservations), the master at the build that follows the plan.
func (r *Roster) Reserve(i int, at int64, nodes []sched.NodeSlots) bool {
	j := &r.jobs[r.off+i]
	if j.Reserved == at && slices.Equal(j.ReservedNodes, nodes) {
		return false
	}
	j.Reserved = at
	j.ReservedNodes = append(j.ReservedNodes[:0], nodes...)
	r.Revise(j)
	return true
}

// KeepReservations carries plan's reservations into the roster's entries
// (Roster.KeepReservations).
func (c *Cluster) KeepReservations(plan *sched.Plan) { c.Roster.KeepReservations(plan) }
