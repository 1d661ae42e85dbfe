package master

import (
	"time"

	"github.com/allot-sched/allot/scenario"
)

// Holds and releases in the export. The store records each as an event
// of the job that keeps its state (store.HoldJob, JobChange.ToHeld),
// which the export reads back with the other changes (jobChangeOf). A
// job submitted held (the hold stored with the job, at its submission
// time) is exported held (scenario.Job.Held), so that no pass of the
// replay sees it unheld; every other hold and release is a hold or
// release event at its second, marked after_pass where a pass decided
// something earlier in that second, as a kill is (killEvent): the live
// master took it as it came, after that pass.

// exportHolds marks sj held when it was submitted held and returns its
// other holds and releases as scenario events, times counted from
// since, with the live time of each (liveOrder).
func exportHolds(sj *scenario.Job, submitted time.Time, changes []jobChange, decisions []time.Time,
	since time.Time) ([]scenario.Event, []time.Time) {
	var evs []scenario.Event
	var times []time.Time
	for i, c := range changes {
		if c.held == nil || c.byRequeue {
			continue // a requeue's hold is the requeue's (exportRequeues)
		}
		if i == 0 && *c.held && c.at.Equal(submitted) {
			sj.Held = true
			continue
		}
		kind := scenario.EventRelease
		if *c.held {
			kind = scenario.EventHold
		}
		e := scenario.Event{At: int64(c.at.Sub(since) / time.Second), Kind: kind, Job: sj.Name,
			AfterPass: decidedBefore(c.at, decisions, since)}
		evs = append(evs, e)
		times = append(times, c.at)
	}
	return evs, times
}

// decidedBefore reports whether a pass decided something (decisions)
// in at's second before at: the live master took a change at at after
// that pass. A decision at at itself came after the change.
func decidedBefore(at time.Time, decisions []time.Time, since time.Time) bool {
	from := since.Add(at.Sub(since).Truncate(time.Second))
	for _, d := range decisions {
		if !d.Before(from) && d.Before(at) {
			return true
		}
	}
	return false
}
