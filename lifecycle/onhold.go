package lifecycle

// A job on hold (allot job hold, allot submit --hold; Slurm's scontrol
// hold) keeps its place: its id, spec and submission time, and so its
// age. No pass considers it until it is released. Both drivers follow
// these rules: the master leaves a held job out of its snapshot with
// pending reason ReasonHeld (master/snapshot.go, snapJob, by
// JobFacts.LeftOut), the Cluster shows it waiting for nothing (Waiting:
// ShownWaiting) so that the core never starts it, and both refuse to
// hold a job that has a task holding slots (CanHold): a hold is not a
// preemption.

// ReasonHeld is the pending reason code of a held job.
const ReasonHeld = "held"

// LeftOut reports whether the job's entry stays out of the pass: it is
// on hold.
func (f *JobFacts) LeftOut() bool { return f.OnHold }

// ShownWaiting is the waiting count a job's snapshot entry shows: none
// while it is on hold, else its waiting tasks.
func ShownWaiting(waiting int, onHold bool) int {
	if onHold {
		return 0
	}
	return waiting
}

// CanHold says whether a job with active tasks holding slots (starting,
// running, checkpointing, being killed) may be held: only one with none.
// It is a yes or no: the master words its refusal itself, offering the
// requeue with a hold first (master/api_hold.go, holdRunningRefusal),
// and the Cluster does not apply the event.
func CanHold(active int) bool { return active == 0 }

// hold applies EventHold or EventRelease to job e.Job (Observe): a hold
// of a job on hold, a release of one not, a hold of one with a task
// holding slots (CanHold) and any change of an ended job are not
// applied.
func (c *Cluster) hold(e Event) Outcome {
	if e.Job < 0 || int(e.Job) >= len(c.Jobs) || c.Jobs[e.Job].State.Terminal() {
		return Outcome{Job: -1}
	}
	j := &c.Jobs[e.Job]
	on := e.Kind == EventHold
	if change, refused := j.HoldChange(on, j.Active); !change || refused {
		return Outcome{Job: -1}
	}
	j.OnHold = on
	c.waiting(e.Job)
	c.step.wake()
	return Outcome{Applied: true, Job: e.Job}
}
