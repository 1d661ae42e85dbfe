package master

import (
	"slices"
	"time"

	"github.com/allot-sched/allot/scenario"
)

// Requeues in the export. The store records a requeue as its tasks'
// transitions to preempting, all at the requeue's instant, with cause
// store.CauseRequeued (api_requeue.go); a requeue with --hold stores the
// job's hold at the same instant (JobChange.ToHeld). The export writes
// each as a requeue event of the job at its second, with hold: true
// where the job was held at that instant, marked after_pass where a
// pass decided something earlier in that second, as a hold is
// (exportHolds). A requeue with --hold that stopped no task (a queued
// job, or one whose tasks were being preempted already) stored only the
// hold, whose reason says it was the requeue's (requeueHoldReason): it
// is exported as that requeue too, not as a hold, since a hold alone
// would be refused where the job's tasks still run (they checkpoint for
// a preemption), and the requeue's is not (lifecycle's requeue holds the
// job whatever its tasks hold). exportHolds leaves every requeue's hold
// to it.

// noteRequeue notes a requeue of job at at: its tasks' transitions, at
// one instant, are one requeue.
func (h *historyEvents) noteRequeue(job int64, at time.Time) {
	if ts := h.requeued[job]; len(ts) > 0 && ts[len(ts)-1].Equal(at) {
		return
	}
	h.requeued[job] = append(h.requeued[job], at)
}

// exportRequeues returns job name's requeues (at, in order) as scenario
// events, times counted from since, with the live time of each
// (liveOrder); changes are the job's, which say whether each requeue
// held the job.
func exportRequeues(name string, at []time.Time, changes []jobChange, decisions []time.Time,
	since time.Time) ([]scenario.Event, []time.Time) {
	at = withHoldsOfRequeues(at, changes)
	var evs []scenario.Event
	for _, t := range at {
		evs = append(evs, scenario.Event{At: int64(t.Sub(since) / time.Second), Kind: scenario.EventRequeue, Job: name,
			Hold: heldAt(changes, t), AfterPass: decidedBefore(t, decisions, since)})
	}
	return evs, at
}

// heldAt reports whether changes hold the job at instant at.
func heldAt(changes []jobChange, at time.Time) bool {
	for _, c := range changes {
		if c.held != nil && *c.held && c.at.Equal(at) {
			return true
		}
	}
	return false
}

// withHoldsOfRequeues adds to requeue instants at those of changes' holds
// made by a requeue that stopped no task (no instant of at), in order.
func withHoldsOfRequeues(at []time.Time, changes []jobChange) []time.Time {
	var more []time.Time
	for _, c := range changes {
		if c.byRequeue && !slices.ContainsFunc(at, c.at.Equal) {
			more = append(more, c.at)
		}
	}
	if len(more) == 0 {
		return at
	}
	out := append(slices.Clone(at), more...)
	slices.SortFunc(out, time.Time.Compare)
	return out
}
