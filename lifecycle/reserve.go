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
	for _, pe := range plan.Pending {
		at := pe.At
		if at < 0 || at == sched.Never {
			at = 0
		}
		j := &jobs[pe.Job]
		if j.Reserved == at && slices.Equal(j.ReservedNodes, pe.Nodes) {
			continue
		}
		j.Reserved = at
		// Where the reservation is, on pools that reserve per node; the
		// plan's slices are the core's, so they are copied.
		j.ReservedNodes = append(j.ReservedNodes[:0], pe.Nodes...)
		c.revise(j)
	}
	for _, st := range plan.Starts {
		if j := &jobs[st.Job]; j.Reserved != 0 || len(j.ReservedNodes) > 0 {
			j.Reserved, j.ReservedNodes = 0, j.ReservedNodes[:0]
			c.revise(j)
		}
	}
}
