package master

import (
	"time"

	"github.com/allot-sched/allot/agent"
)

// When an attempt's usage ends. An agent that cannot reach the master
// when its task exits reports the exit once it is back, with the time
// the process exited (api.Report.At): the master frees the attempt's
// GPUs when it hears of it, and the scheduler, the event log and the
// what-if export take the attempt to end then (store.Attempt.EndedAt),
// but its user is charged until the exit (store.Attempt.ExitedAt): the
// last usage record of the attempt ends there (finish, exitOf). An
// attempt ended on no agent's word (lost, or killed while its node is
// down) is charged until the master ended it, as nothing says it ran
// less.
//
// The periodic usage records (flushUsage) would otherwise run past such
// an exit while the agent is silent, and one cannot take back part of a
// record already charged. So an open attempt is recorded only up to the
// last time one of its agents said a part of it runs (mattempt.heardTo,
// set by heardRunning from each sync's and registration's running
// list), which is never after its exit; the records catch up with the
// clock when the agent is heard again, or end at the exit when it
// reports one. A snapshot's fair share and `allot usage` still count an
// open attempt up to now (openUsage, usageOf), as it holds its GPUs
// while the master waits; once the exit is heard they count it up to
// the exit.
//
// An agent's clock may be off: a part's exit is taken between the
// attempt's start and the time the master heard of it (partExit), and
// the attempt's exit no earlier than the end of its last record (exitOf),
// which its agent's word put before the exit; so the records of an
// attempt cover its start to its exit, exactly once, whatever the clocks.

// heardRunning reports whether the master expects attempt id to run on
// node (runsOn), as an agent's running list names it at at, and notes
// then that the attempt ran until at.
func (ag *agents) heardRunning(id agent.TaskID, node string, at time.Time) bool {
	if !ag.lookup(id).runsOn(node) {
		return false
	}
	if ag.lookup(id).part(node).exitSaid {
		return true // it exited: a running word is older news
	}
	if a := ag.lookup(id).att; at.After(a.heardTo) {
		a.heardTo = at
	}
	return true
}

// partExit is when a part of attempt a exited, by its agent's report
// (reported; zero when it gave none), of which the master heard at
// heard: within [a.started, heard].
func partExit(a *mattempt, reported, heard time.Time) time.Time {
	switch {
	case reported.IsZero() || reported.After(heard):
		return heard
	case reported.Before(a.started):
		return a.started
	}
	return reported
}

// exitOf is when attempt a, whose every part exited by its agent's
// report, exited, as the master hears of its last part's exit at heard:
// its parts' last exit, or the end of its last usage record if that is
// later (an agent whose clock runs behind); never after heard (the
// master's clock set back, which the store would refuse).
func exitOf(a *mattempt, heard time.Time) time.Time {
	last := a.usedTo
	for _, p := range a.parts {
		if p.exitedAt.After(last) {
			last = p.exitedAt
		}
	}
	if last.After(heard) {
		return heard
	}
	return last
}
