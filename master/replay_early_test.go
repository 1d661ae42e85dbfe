package master

import (
	"math"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// The replay driver's early exits: a job whose processes exit before
// their exit is reported (rjob.early), as an agent that lost its master
// for a while reports them late.

// exitEarly makes attempt id's processes exit at now, when its job's
// exit comes early (rjob.early) and it still runs: its agents stop
// listing it, and say nothing of it until reportLate.
func (d *replayDriver) exitEarly(id agent.TaskID, a *liveAttempt, now float64) {
	if a.exited || a.asked || a.quiet || a.exitAt > now+1e-9 {
		return
	}
	for _, ag := range d.agents {
		if ag.Forget(id) {
			a.on = append(a.on, ag)
		}
	}
	a.quiet = true
}

// reportLate has the agents of attempt id, whose processes exited early
// (exitEarly), report the exit now, with the time it exited.
func (d *replayDriver) reportLate(id agent.TaskID, a *liveAttempt, outcome agent.Outcome, code int) {
	at := d.t0.Add(time.Duration(math.Round(a.exitAt * 1e9)))
	for _, ag := range a.on {
		c := code
		ag.Inject(api.Report{Task: id, Event: api.EventExited, Outcome: string(outcome), ExitCode: &c, At: at})
	}
}
