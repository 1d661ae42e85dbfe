package master

import (
	"time"

	"github.com/allot-sched/allot/scenario"
)

// A user's kill in the export. The simulator observes an instant's
// scripted events (a kill among them) before its passes; a live master
// takes a kill as it comes, so a pass earlier in the kill's second may
// have started the very job killed (or another) before the kill: replayed
// in the same second before any pass, the job was never started. Such a
// kill, preceded within its second by a pass that decided something (a
// task's transition to starting or preempting, historyEvents.decisions),
// is exported with after_pass: the replay settles the instant first, as
// the live master did. A decision at the very time of the kill came after
// it, as for a node event (afterPassAt).

// killEvent is the kill event of the job exported as name, killed by a
// user at at (the job's end: the master ends it as the kill comes).
func killEvent(name string, at time.Time, decisions []time.Time, since time.Time) scenario.Event {
	from := since.Add(at.Sub(since).Truncate(time.Second))
	e := scenario.Event{At: int64(at.Sub(since).Seconds()), Kind: scenario.EventKill, Job: name}
	for _, d := range decisions {
		if !d.Before(from) && d.Before(at) {
			e.AfterPass = true
			break
		}
	}
	return e
}
