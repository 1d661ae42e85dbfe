package master

import (
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Ends after a pass (trial 2026-11-29j J1). The simulator takes a
// second's ends before its submissions and passes; a live master runs a
// pass after each event, so an attempt that ended after a pass of its
// second had decided something (job 7 started at 34.167 on n2, as job 5
// still held n1; job 5's task exited at 34.856) freed its slots after
// that decision: replayed end-first, job 7 went to n1. The export writes
// each attempt that ended after a decision of its own second (a task's
// transition to starting or preempting, decidedBefore) as the job's
// ends_after_pass, and the simulator applies that end once the
// instant is settled, then settles again (scenario.EndAfterPass).
//
// Left out are the attempts whose end is none the simulator schedules
// as an end of its own: open ones, failed starts (start_fails), starts
// given up or lost attempts (their agent's sync, start_lost and lost),
// attempts lost with their node, an agent's preemption
// (agent_preempted), and the tasks that moved or resized (the simulator
// continues the attempt on its new placement, and numbers the landing
// and the end alike).

// endsAfterPass are the attempts of atts that ended after a decision
// of their second, by their number as the simulator counts attempts.
func (h *historyEvents) endsAfterPass(atts []store.Attempt, since time.Time) []scenario.EndAfterPass {
	movedTask := map[int]bool{}
	for _, a := range atts {
		if h.moved[attemptKey{a.JobID, a.Index, a.Number}] {
			movedTask[a.Index] = true
		}
	}
	var out []scenario.EndAfterPass
	for _, a := range atts {
		k := attemptKey{a.JobID, a.Index, a.Number}
		switch {
		case a.Open() || a.EndState == store.AttemptLost || movedTask[a.Index]:
			continue
		case h.startFailed[k] || h.startLost[k] || h.notRun[k] || h.partRan[k]:
			continue
		case !h.agentStopped[k].IsZero() || !decidedBefore(a.EndedAt, h.decisions, since):
			continue
		}
		out = append(out, scenario.EndAfterPass{Task: a.Index, Attempt: h.simAttempt(atts, a)})
	}
	return out
}
