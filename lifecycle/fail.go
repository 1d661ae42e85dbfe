package lifecycle

// Failures. A task that exits with an error is done and failed: the live
// master retries no failure (only preemptions reschedule a task), and a
// job with a failed task ends failed once all its tasks have ended
// (Job.Over). The simulator has no failure of its own; a scenario
// scripts them (a job's fails, which the what-if export writes for the
// tasks that failed live), and the simulator applies them with Fail.
//
// A start that fails (the agent could not run the attempt at all) is an
// outcome of the start effect, EventStartFailed, after which the task
// ends as StartFailed says; a scenario scripts them too (a job's
// start_fails), and the simulator sends the event at the instant of the
// start, after the instant's passes, as the master hears of it from
// the agent after the pass that started the task.

// Fail ends running task ti failed at now, as a task that exits with an
// error does, and finishes its job if that was its last task. It returns
// what Observe returns for an ended task; Applied is false when ti holds
// no slots as a running task (it was retired, or is the draining part of
// a move). The driver checks the version it promised the failure for
// (Tasks.Current) first, as for any outcome.
func (c *Cluster) Fail(now int64, ti int32) Outcome {
	t := c.Tasks.At(ti)
	if t.Moving || !t.State.Active() {
		return Outcome{Job: -1}
	}
	ji := t.Job
	j := &c.Jobs[ji]
	o := Outcome{Applied: true, Job: ji}
	o.Slots = c.dropDrain(c.Tasks.Abandoned(ti)).Slots // as Exit
	v := j.ending(t, EndFailed).Decide()
	o.Attempt = v.Attempt
	o.Slots += c.closeAttempt(now, ti, v)
	c.endIfOver(now, ji, &o)
	return o
}

// StartFailed is the state that follows an attempt that could not start
// (its agent could not run it: no such working directory, a GPU not on
// the node, a pod the API server refused): the task fails, as a task
// that exits with an error does, and is never rescheduled, whatever its
// job's exit actions and preemptibility say. Those are for the cluster
// taking slots back (a preemption, a lost node); a start fails for a
// cause of the task's own, and another start would fail alike. It fails
// too when it was asked to checkpoint before the report came, as a
// failed part fails its task live; a kill asked before the report ends
// it as the kill said (the driver's record). The job's other tasks run
// on, and the job ends failed once every task has ended (Job.Over). An
// attempt whose agent never answers is not one: it is lost, and its
// task waits again (the master's loseAttempt). The master ends a failed
// start by this rule (master/agents.go) and the Cluster an
// EventStartFailed, both through Ending.Decide of EndStartFailed
// (outcome.go), so that a live run and its replay agree.
func StartFailed() TaskState { return TaskFailed }

// endIfOver finishes job ji at now when every task has ended (Job.Over),
// freeing its draining moves first, and says so in o.
func (c *Cluster) endIfOver(now int64, ji int32, o *Outcome) {
	if o.State, o.Over = c.Jobs[ji].Over(); o.Over {
		c.freedRecs = c.dropMoves(c.freedRecs[:0], ji)
		o.Freed = c.freedRecs
		c.Finish(ji, o.State, now)
	}
}
