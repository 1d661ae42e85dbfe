package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// AttemptState is how a task attempt ended, in the words OSMO uses for
// workflow states: the result's public names (its JSON), older than the
// shared vocabulary. What they mean is lifecycle.AttemptState's: each end
// state's name is given by attemptNames, the one mapping from that
// vocabulary, which tells a time limit from other kills. RUNNING and
// PREEMPTING are not end states but attempts still open when the run
// stopped, named by their task's state.
type AttemptState string

// Attempt states.
const (
	// AttemptRunning and AttemptPreempting are attempts still holding
	// slots when the run stopped; the second was asked to stop.
	AttemptRunning    AttemptState = "RUNNING"
	AttemptPreempting AttemptState = "PREEMPTING"
	AttemptCompleted  AttemptState = "COMPLETED"
	// AttemptPreempted: a preemption stopped the attempt; by its job's
	// exit actions the task was then rescheduled or failed.
	AttemptPreempted AttemptState = "FAILED_PREEMPTED"
	// AttemptTimeLimit: the attempt ran out its time limit and was killed.
	AttemptTimeLimit AttemptState = "FAILED_EXEC_TIMEOUT"
	// AttemptCanceled: a kill event ended the attempt, or its trial's
	// searcher (or a scripted stop) stopped it, as the master kills a
	// trial it stops.
	AttemptCanceled AttemptState = "FAILED_CANCELED"
	// AttemptFailed: the task exited with an error (JobSpec.Fails), or
	// its attempt could not start (JobSpec.StartFails).
	AttemptFailed AttemptState = "FAILED"
	// AttemptLost: its node was lost (a node_down event); by its job's
	// rules the task was then rescheduled or failed.
	AttemptLost AttemptState = "FAILED_NODE_LOST"
)

// attemptNames maps the shared attempt end states to the result's names:
// the only place the two vocabularies meet. Killed is two names, as OSMO
// tells a time limit (FAILED_EXEC_TIMEOUT) from a cancellation.
var attemptNames = [...]struct {
	end       lifecycle.AttemptState
	timeLimit bool // killed by its time limit
	name      AttemptState
}{
	{lifecycle.AttemptCompleted, false, AttemptCompleted},
	{lifecycle.AttemptFailed, false, AttemptFailed},
	{lifecycle.AttemptKilled, false, AttemptCanceled},
	{lifecycle.AttemptKilled, true, AttemptTimeLimit},
	{lifecycle.AttemptPreempted, false, AttemptPreempted},
	{lifecycle.AttemptLost, false, AttemptLost},
}

// attemptName is the result's name of end state end; timeLimit says
// whether a kill was the attempt's time limit.
func attemptName(end lifecycle.AttemptState, timeLimit bool) AttemptState {
	timeLimit = timeLimit && end == lifecycle.AttemptKilled
	for _, n := range attemptNames {
		if n.end == end && n.timeLimit == timeLimit {
			return n.name
		}
	}
	panic("sim: attempt end state " + string(end) + " has no name") // attemptNames covers lifecycle.AttemptStates
}

// End is the shared end state that s names and whether it was a time
// limit; ok is false for RUNNING, PREEMPTING and unknown names.
func (s AttemptState) End() (end lifecycle.AttemptState, timeLimit, ok bool) {
	for _, n := range attemptNames {
		if n.name == s {
			return n.end, n.timeLimit, true
		}
	}
	return "", false, false
}

// Attempt is one run of one task on slots, from its start until it let go
// of them.
type Attempt struct {
	// Task numbers the job's tasks from 0 in the order they first start;
	// a rescheduled task keeps its number.
	Task  int          `json:"task"`
	Start int64        `json:"start"`
	End   *int64       `json:"end"`
	State AttemptState `json:"state"`
	// LostWork is the run time since the task's last checkpoint, which a
	// preemption threw away (with checkpoint_every).
	LostWork int64 `json:"lost_work,omitempty"`
	// Nodes is where the attempt started: one entry per node, a gang
	// several. Moves lists later re-placements of the same attempt (a
	// consolidation move or an elastic resize); after each, the slots it
	// left drain for the pool's checkpoint cost. With these, per-node
	// invariants (never more slots in use than a node has, nothing on a
	// drained node) can be checked from outside.
	Nodes []AttemptNode `json:"nodes,omitempty"`
	Moves []AttemptMove `json:"moves,omitempty"`
	// asked says the attempt was asked to checkpoint (a preemption), at
	// askedAt: Decisions writes the request for one that then ended
	// otherwise (its node lost first, or held through the loss until
	// the grace ran out), as the master's log does.
	asked   bool
	askedAt int64
	// replaced says a pass asked to re-place the attempt (a move or
	// resize), last at replacedAt: an attempt preempted with no request
	// of its own (its last re-placement never happened, or requeued it
	// at its landing) was preempted by that request, which Decisions
	// dates it by.
	replaced   bool
	replacedAt int64
	// inFlight says its last re-placement has not landed: an attempt
	// that ends so (killed, lost, failed) never ran there, and Decisions
	// writes no move or resize for it, as the master's log writes one
	// only for the attempt that continues on the placement it reserved.
	inFlight bool
	// byAgent says its agent preempted it as it shut down
	// (JobSpec.AgentPreempted): no pass asked, and Decisions writes no
	// preemption request.
	byAgent bool
	// requeued says a requeue event asked it to checkpoint
	// (EventRequeue): no pass asked, and Decisions writes no preemption
	// request, as the master's log does not (store.CauseRequeued).
	requeued bool
}

// AttemptNode is an attempt's share of one node.
type AttemptNode struct {
	Node  string `json:"node"`
	Slots int    `json:"slots"`
}

// AttemptMove is a running attempt re-placed at At.
type AttemptMove struct {
	At    int64         `json:"at"`
	Nodes []AttemptNode `json:"nodes"`
}

// attemptNodes names a placement's nodes.
func (r *recorder) attemptNodes(ns []sched.NodeSlots) []AttemptNode {
	out := make([]AttemptNode, len(ns))
	for i, x := range ns {
		out[i] = AttemptNode{Node: r.s.c.Snap.Nodes[x.Node].Name, Slots: int(x.Slots)}
	}
	return out
}

// moveAttempt records that task t's attempt now runs on nodes.
func (r *recorder) moveAttempt(t *lifecycle.Task, nodes []sched.NodeSlots) {
	if t.Record >= 0 {
		a := &r.s.jobs[t.Job].attempts[t.Record]
		a.Moves = append(a.Moves, AttemptMove{At: r.s.now, Nodes: r.attemptNodes(nodes)})
		a.replaced, a.replacedAt, a.inFlight = true, r.s.now, true
	}
}

// landedAttempt notes that task t's last re-placement landed: its
// attempt runs on there.
func (r *recorder) landedAttempt(t *lifecycle.Task) {
	if t.Record >= 0 {
		r.s.jobs[t.Job].attempts[t.Record].inFlight = false
	}
}

// unmoveAttempt drops the last re-placement of task t's attempt, which
// never took place (lifecycle.Outcome.Unplaced).
func (r *recorder) unmoveAttempt(t *lifecycle.Task) {
	if t.Record >= 0 {
		a := &r.s.jobs[t.Job].attempts[t.Record]
		a.Moves = a.Moves[:max(len(a.Moves)-1, 0)]
		a.inFlight = false
	}
}

// startAttempt records a new attempt of task t of job j, returning its
// index in the job's attempts, or -1 when attempts are not recorded.
func (r *recorder) startAttempt(j *job, t *lifecycle.Task) int32 {
	if !r.s.opt.Attempts || r.s.opt.OmitJobs {
		return -1
	}
	j.attempts = append(j.attempts, Attempt{Task: int(t.ID), Start: t.Start, State: AttemptRunning,
		Nodes: r.attemptNodes(t.Nodes)})
	return int32(len(j.attempts) - 1)
}

// preemptAttempt marks an attempt that was asked to stop.
func (r *recorder) preemptAttempt(t *lifecycle.Task) {
	if t.Record >= 0 {
		a := &r.s.jobs[t.Job].attempts[t.Record]
		a.State, a.LostWork = AttemptPreempting, t.Lost
		if !a.asked {
			a.asked, a.askedAt = true, r.s.now
		}
	}
}

// loseAttempt closes an attempt whose node was lost, with the work it
// threw away.
func (r *recorder) loseAttempt(t *lifecycle.Task, end lifecycle.AttemptState) {
	if t.Record >= 0 {
		r.s.jobs[t.Job].attempts[t.Record].LostWork = t.Lost
	}
	r.endAttempt(t, end, false)
}

// endAttempt closes an attempt as it lets go of its slots, ended end
// (timeLimit: killed by its time limit).
func (r *recorder) endAttempt(t *lifecycle.Task, end lifecycle.AttemptState, timeLimit bool) {
	if t.Record < 0 {
		return
	}
	a := &r.s.jobs[t.Job].attempts[t.Record]
	at := r.s.now
	a.End, a.State = &at, attemptName(end, timeLimit)
	t.Record = -1
}
