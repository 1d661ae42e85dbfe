package lifecycle

import "github.com/allot-sched/allot/sched"

// KeepReservations carries each job's reserved start from plan into jobs,
// the snapshot's jobs the plan was made from, for the next pass: the
// core keeps nothing between passes, and conservative backfilling
// compresses the schedule it is handed rather than rebuild it. A job the
// plan starts has no reservation left; a job that can never start (or
// whose start is unknown) is reserved at 0, "none".
func KeepReservations(jobs []sched.Job, plan *sched.Plan) {
	for _, pe := range plan.Pending {
		at := pe.At
		if at < 0 || at == sched.Never {
			at = 0
		}
		j := &jobs[pe.Job]
		j.Reserved = at
		// Where the reservation is, on pools that reserve per node; the
		// plan's slices are the core's, so they are copied.
		j.ReservedNodes = append(j.ReservedNodes[:0], pe.Nodes...)
	}
	for _, st := range plan.Starts {
		jobs[st.Job].Reserved = 0
		jobs[st.Job].ReservedNodes = jobs[st.Job].ReservedNodes[:0]
	}
}
