package master

import "time"

// Node events before submissions in the export. The simulator observes
// an instant's scripted events after its submissions; a live master
// takes each event as it comes and runs a pass after it, so a drain,
// resume, loss or return of a node just before a submission in the same
// second may have had its pass before the job was even submitted (a
// resume's pass starting a job waiting for the node, which the
// submitted job, more important, would have taken). Such a node event is
// exported with before, naming the first job of its second submitted
// after it, and the simulator observes it just before that job's
// submission (sim.Event.Before); the job says after_pass where a pass
// that decided something came between them (historyEvents). A node event
// at the very time of a submission is taken as after it, as before this
// was carried: without a pass between them, the order does not matter.

// exportedSub is a job of the export and when the master took its
// submission.
type exportedSub struct {
	name string
	at   time.Time
}

// beforeJob is the export's name of the first job of subs (in the
// export's order) submitted in the second sec of the window after at,
// a node event's time; "" for none.
func beforeJob(subs []exportedSub, at time.Time, since time.Time, sec int64) string {
	for _, s := range subs {
		if int64(s.at.Sub(since)/time.Second) == sec && s.at.After(at) {
			return s.name
		}
	}
	return ""
}
