package lifecycle

import (
	"slices"

	"github.com/allot-sched/allot/sched"
)

// KeepReservations carries each job's reserved start from plan into jobs,
// the snapshot's jobs the plan was made from, for the next pass: the
// core keeps nothing between passes, and conservative backfilling
// compresses the schedule it is handed rather than rebuild it. A job the
// plan starts has no reservation left; a job that can never start (or
// whose start is unknown) is reserved at 0, "none". An entry that
// changes gets a new Rev.
func (c *Cluster) KeepReservations(jobs []sched.Job, plan *sched.Plan) {
	Reservations(plan, func(ji int, at int64, nodes []sched.NodeSlots) {
		j := &jobs[ji]
		if j.Reserved == at && slices.Equal(j.ReservedNodes, nodes) {
			return
		}
		j.Reserved = at
		j.ReservedNodes = append(j.ReservedNodes[:0], nodes...)
		c.revise(j)
	})
}
