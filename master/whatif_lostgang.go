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

// leftTook is, for each attempt of job j (atts) whose parts on nodes
// still up were asked to checkpoint at its loss (savedOnLoss), how long
// those parts took to end, in whole seconds from the window's start, by
// the event the master stored when the last of them ended
// (store.NoteLeftEnded): the simulator holds their slots, and the task,
// so long (lifecycle's Tasks.Leave); a master restarted meanwhile
// records it too (lostgangend.go). An attempt without that event (one
// stored before the event was, or whose parts still run at the window's
// end) lands at its loss, as the simulator freed them before.
func (h *historyEvents) leftTook(j store.Job, atts []store.Attempt, since time.Time) map[attemptKey]int64 {
	var out map[attemptKey]int64
	sec := func(t time.Time) int64 { return int64(t.Sub(since) / time.Second) }
	for _, a := range atts {
		if !h.savedOnLoss(j, atts, a) {
			continue
		}
		if out == nil {
			out = map[attemptKey]int64{}
		}
		k := attemptKey{a.JobID, a.Index, a.Number}
		out[k] = 0
		if at, ok := h.leftEnded[k]; ok {
			out[k] = max(sec(at)-sec(a.EndedAt), 0)
		}
	}
	return out
}
