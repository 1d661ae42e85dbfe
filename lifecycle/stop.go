package lifecycle

import "cmp"

// Stop is the record of a stop under way, which both drivers keep of a
// task whose attempt a kill is ending: from the kill's request (a
// user's kill of its job, its time limit, a gang's failed part, a
// searcher's stop of a trial) until its attempt ends and the task
// leaves killing. Both drivers' task records embed it (TaskRecord: the
// Cluster's Task, the master's mtask). How each driver learns
// of the end stays its own: the master from its agents' reports (or a
// lost node), the Cluster by its driver's EventKillEnded (killing.go:
// the simulator's at once, or Task.KillAfter later).
//
// The decisions on it are its methods, which both drivers call, so that
// they cannot drift: Kill for a kill (the master's killTask, a job's
// kill and a restart's restoreTask; the Cluster's Tasks.Kill) and
// LimitKill for a time limit's, the first of which decides how the
// task ends; Killing and AtLimit whenever a rule asks whether one is
// under way and whose; Ends for the facts Ending.Decide weighs at the
// end (killing, and to what); Leave once the task leaves killing
// (TaskRecord.Enter: the master's setTask, the Cluster's Tasks.set),
// after which TimedOut says whether its time limit's kill ended it;
// Clear at a launch. Reason, Cause, AgentApplied and TrialStopped are for what
// only the master knows (what its end's transition says, and an agent
// that applied the limit itself); Promise and Limited for what only the
// Cluster promises (that the end it gives an attempt, Task.Due, is its
// time limit's: the master kills at a limit by its clock instead,
// checkTimeLimits).
type Stop struct {
	// to is the state the kill ends the task in: killed, failed for a
	// gang whose part failed, completed for a searcher's stop.
	to TaskState
	// cause is the kill's cause in the driver's words (the master's
	// store.Cause, which the kill's end keeps too); the Cluster, which
	// records no causes, leaves it "".
	cause string
	// reason, for a time limit's kill, is the reason its end takes
	// instead of the kill's: an agent reported that it had applied the
	// limit itself, before the master's late kill (AgentApplied).
	reason string
	// on: a kill is under way; limit: it is the time limit's.
	on, limit bool
	// timedOut: the last kill under way was the time limit's, and it
	// ended the task killed (Leave); a launch clears it.
	timedOut bool
	// due: the end the Cluster promised the attempt (Task.Due) is its
	// time limit's kill (Promise).
	due bool
}

// Kill notes that the task was asked to stop by a kill for cause ("" for
// none), which ends it in state to, and reports whether it took: a kill
// under way already is kept, so that the first kill decides how the task
// ends, as the master's killTask leaves a killing task alone and the
// Cluster's Kill a killing record. A user's kill of a job whose task its
// time limit is killing leaves the task ending by its limit.
func (s *Stop) Kill(to TaskState, cause string) bool {
	if s.on {
		return false
	}
	s.to, s.cause, s.reason, s.on, s.limit = to, cause, "", true, false
	return true
}

// LimitKill notes that the task was asked to stop by its time limit's
// kill (cause: the driver's word for it), which ends it killed, and
// reports whether it took (Kill: not while another kill is under way).
func (s *Stop) LimitKill(cause string) bool {
	if !s.Kill(TaskKilled, cause) {
		return false
	}
	s.limit = true
	return true
}

// Killing reports whether a kill is under way: the task is killing
// until its attempt ends.
func (s *Stop) Killing() bool { return s.on }

// AtLimit reports whether the kill under way is the time limit's: its
// end is timed out whatever kill comes meanwhile, and the master keeps
// telling the agents its deadline (an agent that applied the limit
// itself says so only to a master that listed it).
func (s *Stop) AtLimit() bool { return s.on && s.limit }

// AgentApplied notes that an agent reported it had applied the time limit
// itself, in words reason: a time limit's kill under way ends with that
// reason rather than the kill's (the master killed late, its store
// unavailable or itself down). Any other kill keeps its own.
func (s *Stop) AgentApplied(reason string) {
	if s.AtLimit() {
		s.reason = reason
	}
}

// Ends fills in what Ending.Decide weighs of the stop when the attempt
// ends: whether a kill was under way, and the state it ends the task in.
func (s *Stop) Ends(e *Ending) { e.Killing, e.KillTo = s.on, s.to }

// Reason is the reason the kill's end takes, given kill, the reason of
// the transition that asked for it: the agent's where it applied the
// time limit itself (AgentApplied), else kill's.
func (s *Stop) Reason(kill string) string { return cmp.Or(s.reason, kill) }

// Cause is the kill's cause, which its end keeps ("" for none, and for
// a kill a restarted master found under way: it does not know its cause).
func (s *Stop) Cause() string { return s.cause }

// Leave notes that the task left killing for state to (or moved to to
// with no kill under way): the kill under way, if any, is over, and
// TimedOut says from now whether the time limit's kill ended it killed.
func (s *Stop) Leave(to TaskState) {
	*s = Stop{timedOut: to == TaskKilled && s.on && s.limit, due: s.due}
}

// TimedOut reports whether the task's last kill was its time limit's and
// ended it killed: what a job's reason counts (the master's killedReason)
// and what the Cluster's outcome says (Outcome.TimedOut).
func (s *Stop) TimedOut() bool { return s.timedOut }

// Clear forgets the stop, under way or past, for a new attempt: a
// launch clears it.
func (s *Stop) Clear() { *s = Stop{} }

// TrialStopped takes the kill under way, which ends its task killed, as
// the searcher's stop of its trial, which ends it completed (EndStopped:
// the master's stopTrial kills for completed), and reports whether it
// did. A restarted master finds a trial's task killing for a cause it
// does not know (restoreTask kills it again to end killed) and learns
// from its searcher's metrics that it stopped the trial.
func (s *Stop) TrialStopped() bool {
	if !s.on || s.to != TaskKilled {
		return false
	}
	s.to = TaskCompleted
	return true
}

// Promise notes whether the end the Cluster promises the attempt
// (Task.Due) is its time limit's kill, at each promise (a launch, a
// landing, a change of the limit): EventEnded then leaves it killing by
// LimitKill, to end timed out at its kill's end.
func (s *Stop) Promise(atLimit bool) { s.due = atLimit }

// Limited reports whether the end promised (Promise) is the time
// limit's.
func (s *Stop) Limited() bool { return s.due }
