package lifecycle

// Failures. A task that exits with an error is done and failed: the live
// master retries no failure (only preemptions reschedule a task), and a
// job with a failed task ends failed once all its tasks have ended
// (Job.Over). The simulator has no failure of its own; a scenario
// scripts them (a job's fails, which the what-if export writes for the
// tasks that failed live), and the simulator applies them with Fail.

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
	j.Failed++
	j.Done++
	o := Outcome{Applied: true, Job: ji}
	if t.Replacing && t.Drain >= 0 {
		o.Slots = c.drained(t.Drain, TaskKilled) // as Exit
	}
	o.Slots += c.freed(j, j.release(&c.Tasks, ti, TaskFailed))
	c.endIfOver(now, ji, &o)
	return o
}

// endIfOver finishes job ji at now when every task has ended (Job.Over),
// freeing its draining moves first, and says so in o.
func (c *Cluster) endIfOver(now int64, ji int32, o *Outcome) {
	if o.State, o.Over = c.Jobs[ji].Over(); o.Over {
		c.freedRecs = c.dropMoves(c.freedRecs[:0], ji)
		o.Freed = c.freedRecs
		c.Finish(ji, o.State, now)
	}
}
