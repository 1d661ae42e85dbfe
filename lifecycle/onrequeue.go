package lifecycle

import "github.com/allot-sched/allot/sched"

// A requeue (allot job requeue; Slurm's scontrol requeue) asks each of a
// job's running tasks to checkpoint and stop as a preemption asks
// (Tasks.Preempt: its progress saved as a checkpoint saves it), and the
// task, once its checkpoint has landed (EventLanded), waits again by its
// job's exit actions, as after a preemption. No pass decided it: it
// counts against no preemption budget and not in the job's Preempts.
// With hold the job is held at once (OnHold: its entry waits for
// nothing until EventRelease), whatever its tasks hold: suspend and
// resume. Both drivers follow these rules: the master's requeue
// (master/api_requeue.go) persists each task preempting with cause
// requeued and sends its agents the preempt command with its pool's
// grace; the simulator promises each landing after its checkpoint cost.
//
// Neither requeues a task whose job's exit actions would fail it rather
// than requeue it (RequeueRefused), nor a job with a task being moved or
// resized: the event is not applied then, as the master refuses it.

// RequeueRefused reports whether a requeue of a task, rescheduled
// retries times so far, is refused: its job's exit actions would fail
// it at its next stop (ExitRequeues).
func RequeueRefused(failOnPreempt bool, maxRetries, retries int32) bool {
	return !ExitRequeues(failOnPreempt, maxRetries, retries)
}

// requeue applies EventRequeue to job e.Job at now (Observe): its running
// tasks are asked to checkpoint (Outcome.Requeued lists them, for the
// driver to promise their landings), and with e.Hold the job is held. A
// requeue of an ended job, of one with a task being moved or resized,
// or of one a task of which its exit actions would fail, is not
// applied; nor is one with nothing to requeue or hold.
func (c *Cluster) requeue(now int64, e Event) Outcome {
	if e.Job < 0 || int(e.Job) >= len(c.Jobs) || c.Jobs[e.Job].State.Terminal() {
		return Outcome{Job: -1}
	}
	j := &c.Jobs[e.Job]
	c.requeued = c.requeued[:0]
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		if t.Job != e.Job || !t.State.Active() {
			continue
		}
		if t.Moving || t.Replacing() {
			return Outcome{Job: -1}
		}
		if t.State != TaskRunning {
			continue // preempting or killing already
		}
		if RequeueRefused(j.FailOnPreempt, j.MaxRetries, t.Retries) {
			return Outcome{Job: -1}
		}
		c.requeued = append(c.requeued, ti)
	}
	hold := e.Hold && !j.OnHold
	if len(c.requeued) == 0 && !hold {
		return Outcome{Job: -1}
	}
	o := Outcome{Applied: true, Job: e.Job, Requeued: c.requeued}
	for _, ti := range c.requeued {
		o.LostWork += c.Tasks.Preempt(ti, now, j.Shape) * int64(sched.Slots(c.Tasks.At(ti).Nodes))
	}
	if hold {
		j.OnHold = true
		c.waiting(e.Job)
	}
	c.step.wake()
	return o
}
