package lifecycle

// TaskRecord is what both drivers keep of a task for its scheduling, one
// type that the Cluster's Task and the master's task (master/state.go,
// mtask) embed: where the task is (State), how many times it was
// requeued (Retries), the kill under way (Stop) and the move or resize
// in flight (Replacement). Its State changes by one transition, Enter,
// which both drivers call, and which carries the rules that run when it
// changes, so that they cannot drift: a requeue is counted, a move or
// resize in flight is let go of once its task leaves preempting, and a
// kill under way is over once its task leaves killing.
//
// An attempt's facts (Attempt) are not in it: the master keeps them in
// its open attempt (mattempt), which comes and goes with the attempt
// and outlives it for its logs (mtask.closed), while its task lives on
// between attempts; the Cluster's Task is itself one attempt's record
// and embeds both.
//
// Retries counts the same thing in both drivers, the task's requeues
// after a preemption or a lost attempt or start (not a move's or
// resize's restart), which its job's exit actions cap (Ending.Retries,
// ExitRequeues), but the records live differently. The master's task
// lives across its attempts, and Enter counts each requeue as the task
// enters queued (a restarted master counts them again from its event
// log). The Cluster's record is one attempt's: it is launched with the
// count its job's waiting entry carries (Resumed.Retries, one more than
// the requeued record's, Job.end), and keeps that count when it retires
// (Tasks.Retire), preempted after a preemption (the master's preempted
// → queued is its next launch's from: graph.go) or queued after a loss,
// where Enter counted the requeue on it.
type TaskRecord struct {
	// State is where the task is. Enter changes it (the master's store
	// row keeps the same state: setTask sets both).
	State TaskState
	// Retries is the task's requeues so far (see above).
	Retries int32
	// Stop is the kill under way (stop.go).
	Stop
	// Replacement is the move or resize in flight (replacement.go).
	Replacement
}

// Entered is what Enter did that its driver acts on.
type Entered struct {
	// From is the state the task left (to itself where it stayed).
	From TaskState
	// Requeued: the task entered queued, waiting again after a
	// preemption, a lost attempt or start, or its owner's requeue;
	// Retries counted it.
	Requeued bool
	// Unreserved: the task left preempting with a move or resize in
	// flight, which is over (landed or abandoned); the driver lets go of
	// what it reserved (the master's next GPUs).
	Unreserved bool
}

// Enter moves the task to state to, running the rules of a change of
// state: entering queued from another state counts a requeue (Retries);
// leaving preempting lets go of a move or resize in flight
// (Replacement.Unreserve); any state but killing ends the kill under
// way, if any (Stop.Leave). It returns what of that the driver acts on.
// Enter checks no edge (TaskEdge): the master's store refuses a
// transition off the graph, and tests watch each driver's changes
// against it (the Cluster's WatchStates, the master's state watch).
//
// A Cluster record re-placed by a move or resize stays running (the
// graph's mapping, graph.go), so leaving preempting never lets go of its
// Replacement: its landing does (Tasks.Resume), or a launch that reuses
// it, and a retired record keeps it as history.
func (r *TaskRecord) Enter(to TaskState) Entered {
	e := Entered{From: r.State}
	r.State = to
	if e.From != to && to == TaskQueued {
		r.Retries++
		e.Requeued = true
	}
	if e.From == TaskPreempting && to != TaskPreempting {
		e.Unreserved = r.Replacement.Unreserve()
	}
	if to != TaskKilling {
		r.Stop.Leave(to)
	}
	return e
}
