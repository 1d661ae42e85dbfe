package master

import (
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Exits heard of late. An agent that could not reach the master when a
// task exited reports the exit once it is back, with the time the
// process exited: the master charges the attempt's usage until then
// (store.Attempt.ExitedAt, usageexit.go) but ends the attempt, and frees
// its GPUs, when it heard of it (EndedAt), which is when the export ends
// it too. The simulator charges an account for the slots its jobs hold,
// so without more the replay's fair share would count the agent's
// outage against the account, and a multifactor pass that ranked two
// jobs by less than that could differ. So the export writes each such
// attempt, with how long before its end it exited, as the job's
// late_exits (scenario.LateExit), and the simulator takes that charge
// back when the attempt ends, its slots held until then
// (lifecycle.Task.ExitBefore).

// lateExits are the late exits of a job's attempts atts: each closed
// attempt that exited a whole second or more before it ended (a report
// within the second is the ordinary lag of an agent's sync, and a
// scenario counts whole seconds), by its number as the simulator counts
// attempts. The old placement of a move or resize is left out (the
// simulator continues that attempt on the new one, and charges its
// exit there), and so is a start that failed (the simulator fails it at
// its start, and it held its slots no longer).
func (h *historyEvents) lateExits(atts []store.Attempt) []scenario.LateExit {
	var out []scenario.LateExit
	for _, a := range atts {
		if a.Open() || a.ExitedAt.IsZero() || !a.ExitedAt.Before(a.EndedAt) {
			continue
		}
		before := int64(a.EndedAt.Sub(a.ExitedAt) / time.Second)
		k := attemptKey{a.JobID, a.Index, a.Number}
		if _, failed := h.startFailure(atts, a); before <= 0 || failed || h.moved[k] {
			continue
		}
		out = append(out, scenario.LateExit{Task: a.Index, Attempt: h.simAttempt(atts, a), Before: before})
	}
	return out
}
