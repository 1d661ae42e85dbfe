package lifecycle

// What an attempt's end does to its task, decided once for both drivers:
// the master builds an Ending from its parts and records where an
// agent's reports end an attempt (master/agents.go finish) or where it
// ends one on no agent's word (endAttempt: a lost node or agent, a
// start no agent answered, a kill on a node that is gone), and the
// Cluster from its task record and job where an outcome event ends one
// (Observe, Fail, a node's loss); each applies the Verdict to its own
// records (the master's transitions and their reasons, the Cluster's
// Job.end). The rules Decide combines stay in rules.go and fail.go
// (StartFailed, Restartable, LostRequeues, ExitRequeues), so that a
// lost task's note (the master's lostview.go) reads the same answer.

// EndKind is how an attempt ended, as its driver saw it.
type EndKind uint8

const (
	// EndCompleted: its work was done (the master: every part exited
	// completed; the Cluster: EventEnded short of its time limit).
	EndCompleted EndKind = iota + 1
	// EndStopped: it was stopped from outside before its work was done
	// (a searcher stopping a trial, EventStopped); the master stops one
	// by a kill that ends it completed (Ending.KillTo).
	EndStopped
	// EndLimited: it reached its time limit (EventEnded with
	// Task.Limited); the master ends one by a kill (checkTimeLimits).
	EndLimited
	// EndFailed: it exited with an error (a part failed; Cluster.Fail).
	EndFailed
	// EndStartFailed: it could not start (EventStartFailed; a part
	// failed while starting, the master's noStart).
	EndStartFailed
	// EndPreempted: its checkpoint landed after a preemption, a move or
	// resize (Ending.Replacing), or its agent's shutdown.
	EndPreempted
	// EndLost: its node or agent was lost, or no agent answered its
	// start (Ending.Ran false: EventStartLost, and a start whose parts
	// all still start); EventAttemptLost, a node's loss.
	EndLost
	// EndKilled: a kill ended it: on no agent's word (its node is gone:
	// the master's killHeld), or, in the Cluster, a user's kill, whose
	// end its driver reported (EventKillEnded). (An agent reports a part its kill
	// reached as killed, which the master counts as EndFailed; one that
	// exited 0 on its own first as completed.)
	EndKilled
)

// Ending is what Decide needs to know of an attempt that ended: how
// (Kind) and what of its task and job decides what follows.
type Ending struct {
	Kind EndKind
	// Killing: the task was being killed (the killing state: the
	// master's, and the Cluster's, killing.go). An
	// attempt that exited then ends its task in KillTo ("" is killed:
	// failed when a part failed or could not start, completed when a
	// searcher stopped it); one lost ends it killed. A kill that the
	// attempt outran (Kind EndCompleted: every part exited completed on
	// its own before the kill reached it), a searcher's stop, a user's
	// kill or a time limit's, is no kill: the attempt ends completed, as
	// it would have unkilled, as Slurm keeps a job that completed before
	// its cancel arrived.
	Killing bool
	KillTo  TaskState
	// Replacing: a move or resize re-placed the task, whose checkpoint
	// has now landed (the master's next placement, Task.Replacing);
	// AnyDown: a node of its new placement is down since (Restartable).
	Replacing, AnyDown bool
	// Preemptible is the task's job's preemptibility, Ran whether the
	// attempt ran (an agent reported a part running; the Cluster: not
	// Task.Unanswered), for a lost one (LostRequeues).
	Preemptible, Ran bool
	// The job's exit actions (ExitRequeues) and the times the task was
	// rescheduled so far.
	FailOnPreempt       bool
	MaxRetries, Retries int32
}

// Verdict is what an attempt's end does to its task.
type Verdict struct {
	// Attempt is the state the attempt ends in, as the master stores it.
	// (The simulator records a move's landing as its attempt going on.)
	Attempt AttemptState
	// Task is the state the end leaves the task in: completed, failed or
	// killed, for good; queued, a lost attempt's task that waits again;
	// preempted, after which it goes at once to Then.
	Task TaskState
	// Then follows a preempted Task: queued, it waits again; failed, its
	// job's exit actions fail it; starting, it restarts on the placement
	// a move or resize reserved. "" after any other Task.
	Then TaskState
	// ByExit: the job's exit actions failed a task that would have
	// waited again (the master names them in its reason).
	ByExit bool
	// Unplaced: a re-placed task waits again, or fails by its exit
	// actions, as after a preemption, rather than restart where a node
	// is down.
	Unplaced bool
}

// Final is the state the task is left in once Then, if any, follows.
func (v Verdict) Final() TaskState {
	if v.Then != "" {
		return v.Then
	}
	return v.Task
}

// Waits reports whether the task waits to be rescheduled.
func (v Verdict) Waits() bool { return v.Final() == TaskQueued }

// Restarts reports whether the task restarts on its reserved placement.
func (v Verdict) Restarts() bool { return v.Then == TaskStarting }

// Decide is what the attempt's end does to its task. A task being killed
// ends as its kill said (but for a kill that its attempt outran:
// completed, Killing); a completed, stopped or limited attempt ends it
// completed, completed and killed; a failed one failed, one that could
// not start as StartFailed says; a preempted one restarts on its
// reserved placement when Restartable, else waits again by its job's
// exit actions (ExitRequeues) or fails; a lost one waits again so when
// LostRequeues lets it, else fails.
func (e Ending) Decide() Verdict {
	if e.Killing || e.Kind == EndKilled {
		return e.killed()
	}
	switch e.Kind {
	case EndCompleted:
		return Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}
	case EndStopped:
		// As the master's stop: a kill that ends the task completed.
		return Verdict{Attempt: AttemptKilled, Task: TaskCompleted}
	case EndLimited:
		return Verdict{Attempt: AttemptKilled, Task: TaskKilled}
	case EndStartFailed:
		return Verdict{Attempt: AttemptFailed, Task: StartFailed()}
	case EndPreempted:
		v := Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskStarting}
		if e.Replacing && Restartable(e.AnyDown) {
			return v
		}
		v.Unplaced = e.Replacing
		v.Then, v.ByExit = e.requeue()
		return v
	case EndLost:
		v := Verdict{Attempt: AttemptLost, Task: TaskFailed}
		if LostRequeues(e.Preemptible, e.Ran) {
			v.Task, v.ByExit = e.requeue()
		}
		return v
	}
	return Verdict{Attempt: AttemptFailed, Task: TaskFailed} // EndFailed
}

// killed is the verdict on an attempt that a kill ended: a lost one's
// task ends killed, its attempt lost; one a kill ended (EndKilled) ends
// killed, and its attempt; one that exited ends as its kill said, but
// for a kill that it outran (Killing).
func (e Ending) killed() Verdict {
	switch e.Kind {
	case EndLost:
		return Verdict{Attempt: AttemptLost, Task: TaskKilled}
	case EndKilled:
		return Verdict{Attempt: AttemptKilled, Task: TaskKilled}
	case EndCompleted:
		// A kill frees GPUs and stops work that would go on; an attempt
		// whose work was done had nothing left to stop.
		return Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}
	}
	v := Verdict{Attempt: AttemptKilled, Task: e.KillTo}
	if v.Task == "" {
		v.Task = TaskKilled
	}
	if v.Task == TaskFailed {
		v.Attempt = AttemptFailed
	}
	return v
}

// requeue is the state of a task that would wait again: queued, or
// failed by its job's exit actions (byExit).
func (e Ending) requeue() (TaskState, bool) {
	if ExitRequeues(e.FailOnPreempt, e.MaxRetries, e.Retries) {
		return TaskQueued, false
	}
	return TaskFailed, true
}
