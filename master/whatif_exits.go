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

// Kills that take their time. A kill (a user's, or a time limit's) moves
// an active task to killing and sends its agents a kill command; the
// master holds the task's GPUs, and charges them, until the agents report
// the attempt's end, which a silent node delays. The simulator's kill
// frees at once, so a job waiting for those GPUs would start earlier in
// the replay. So the export writes each attempt a kill ended a whole
// second or more after it, with how long after (in the whole seconds
// from the window's start that the decision log dates both in), as the
// job's slow_kills (scenario.SlowKill), and the simulator holds such an
// attempt's slots, killing, until then (lifecycle.Task.KillAfter); a job
// a user killed still ends at the kill, as the master ends it.
//
// A time limit's kill counts from the second the replay's limit makes
// it in (limitSecond), not the master's: a master that killed late (its
// timer a moment past the second's end, a store outage, a restart) held
// the task's GPUs from there until the kill's end, running then killing,
// and the replay holds them, killing, as long.

// slowKills are the slow kills of a job's attempts atts: each that a
// kill ended, killed, a whole second or more after the kill (in the
// whole seconds from since), by its number as the simulator counts
// attempts. A searcher's stop is left out (the simulator's stop ends the
// attempt at once), and so is an attempt lost or failed while being
// killed (its node lost, or a part failed: not the kill's end), or
// continued by a move (its old placement ends preempted). One still
// being killed when exported (at now: still open) took longer than until
// the export, a second more at least, as an open checkpoint does
// (checkpointTime): the replay ends it, and starts what waits for its
// slots, after the decisions allot history check compares; unless its
// kill is a failed start's (a gang's other parts), which start_fails
// replays.
func (h *historyEvents) slowKills(j store.Job, atts []store.Attempt, since, now time.Time) []scenario.SlowKill {
	sec := func(t time.Time) int64 { return int64(t.Sub(since) / time.Second) }
	var out []scenario.SlowKill
	for _, a := range atts {
		k := attemptKey{a.JobID, a.Index, a.Number}
		at, killed := h.killing[k]
		if !killed || !a.Open() && a.EndState != store.AttemptKilled || h.stopped[k] || a.Open() && h.startKilled[k] {
			continue
		}
		end := a.EndedAt
		if a.Open() {
			end = now.Add(time.Second)
		}
		from := sec(at)
		if h.limitKilled[k] {
			from = min(from, h.limitSecond(j, atts, a, sec))
		}
		if after := sec(end) - from; after > 0 {
			out = append(out, scenario.SlowKill{Task: a.Index, Attempt: h.simAttempt(atts, a), After: after})
		}
	}
	return out
}

// limitSecond is the second in which the replay's time limit of job j
// ends attempt a (counted by sec): its first start's second plus the
// limit (a move or resize continues the attempt, first), or the second
// it last started, where a move's checkpoint ran past the limit
// (lifecycle.Task.Due's rule, and the master's deadline), or the second
// of the change that lowered the limit below what it had run already
// (set_time_limit ends it then, as the master killed it at the change).
func (h *historyEvents) limitSecond(j store.Job, atts []store.Attempt, a store.Attempt, sec func(time.Time) int64) int64 {
	at := max(sec(h.first(atts, a))+int64(j.TimeLimit/time.Second), sec(a.StartedAt))
	for _, c := range h.changes[j.ID] {
		if c.toLimit != nil && (a.Open() || !c.at.After(a.EndedAt)) {
			at = max(at, sec(c.at))
		}
	}
	return at
}
