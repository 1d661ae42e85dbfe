package master

import (
	"time"

	"github.com/allot-sched/allot/store"
)

// savedOnLoss says whether attempt a of job j, ended lost by the loss of
// one of its nodes, had its parts on nodes that stayed up asked to
// checkpoint (agents.stopLeft, lifecycle.CheckpointsOnLoss: its job is
// preemptible, it ran, a node of its placement was not lost), so that
// it kept its work up to the loss, as the simulator's node_down keeps it
// by the same rule (lifecycle.Tasks.Lose). The store does not record the
// request, which the master keeps in memory (strays); these facts say
// when it was made. An attempt its agent did not run (notRun) or whose
// start no agent answered (startLost, startCaughtByLoss) was not.
func (h *historyEvents) savedOnLoss(j store.Job, atts []store.Attempt, a store.Attempt) bool {
	k := attemptKey{a.JobID, a.Index, a.Number}
	if a.EndState != store.AttemptLost || !j.Preemptible || h.notRun[k] || h.startLost[k] || h.startCaughtByLoss(atts, a) {
		return false
	}
	for _, p := range a.Placement {
		if !h.lostBetween(p.Node, a.StartedAt, a.EndedAt) {
			return true
		}
	}
	return false
}

// lostBetween says whether node was lost from from to until, both
// included.
func (h *historyEvents) lostBetween(node string, from, until time.Time) bool {
	for _, at := range h.nodeLosses[node] {
		if !at.Before(from) && !at.After(until) {
			return true
		}
	}
	return false
}
