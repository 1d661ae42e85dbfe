package lifecycle

import "github.com/allot-sched/allot/sched"

// Kills and their ends. Live, a kill (a user's kill of a job, or a
// task's time limit) moves an active task to killing and sends its agent
// a kill command; the master holds the task's GPUs, and counts them in
// its fair share, until the agent reports the attempt's end, which a
// silent node delays by seconds or more. The Cluster does the same: a
// kill leaves every active task it stops killing (Tasks.Kill; Kill, or
// EventEnded at a time limit), its slots held and charged, its
// allocation preempting (Hold, as the master's killing task's), and
// never decides itself that the kill has ended: its driver reports the
// end by EventKillEnded, as the master's agents do, and then the task
// ends killed, as the master's kill's end does (Ending.Decide with
// Killing). The simulator sends it at once, in the same Observe's wake,
// before anything else of the instant (sim's killings), for an attempt
// it gave no KillAfter, and KillAfter later for one it did (its
// slow_kills script). Both kills are the driver's events (EventKill,
// EventEnded), so no kill happens inside Step, and none is left killing
// into a pass unless its driver says it takes its time.
//
// The job follows the shared rules meanwhile, as the master's does: a
// job a user killed has ended killed at once (Finish), but stays on the
// roster, with no task waiting, while a task of it is killing, and the
// driver hears of its end (Outcome.Over) once the last of them has ended;
// a job whose task reached its time limit stays running (LiveJob: the
// task holds slots) until that task's kill has ended, and then ends as
// its tasks put it (EndedJob) or runs on. A user's kill of that job
// meanwhile ends the job killed but leaves the task's kill alone, as the
// master's killTask leaves a killing task: the task still ends by its
// time limit. Which kill is under way, and so how the task ends, is the
// task's Stop, the record the master keeps too (lifecycle/stop.go).

// KillingTask is a task record a kill or time limit left killing
// (Outcome.Killing), and the state it held its slots in before (running
// or preempting), as Freed.From says for a record freed.
type KillingTask struct {
	Task int32
	From TaskState
}

// kills ends the kills; left is what the last Kill or time limit left
// killing (Outcome.Killing), valid until the next.
type kills struct{ left []KillingTask }

// limited leaves task ti, which reached its time limit (EventEnded
// with Limited), killing; the driver sends EventKillEnded, at once or
// KillAfter later. Nothing is freed, but a kill asks for a pass, as a
// user's does.
func (k *kills) limited(c *Cluster, ti int32, o Outcome) Outcome {
	from := c.Tasks.At(ti).State
	c.Jobs[c.Tasks.At(ti).Job].Kill(&c.Tasks, ti, true)
	k.left = append(k.left[:0], KillingTask{Task: ti, From: from})
	o.Killing = k.left
	c.step.wake()
	return o
}

// ended ends the kill of task ti (EventKillEnded, for the version
// Tasks.Kill left) at now: it lets go of its slots and ends killed, its
// time limit's (Outcome.TimedOut) or a user's kill's.
func (k *kills) ended(c *Cluster, now int64, e Event) Outcome {
	if !c.Tasks.Current(e.Task, e.Ver) || c.Tasks.At(e.Task).State != TaskKilling {
		return Outcome{Job: -1}
	}
	t := c.Tasks.At(e.Task)
	// The kill that moved it to killing decides (its Stop keeps the
	// first, as the master's task does): a user's kill before the limit
	// ends it killed though its end was due at the limit (Limited), and
	// a user's kill of its job while its limit's kill is under way
	// (AtLimit) leaves it timed out.
	o := Outcome{Applied: true, Job: t.Job}
	kind := EndKilled
	if t.AtLimit() {
		kind = EndLimited
	}
	var ended bool
	o.Slots, o.Attempt, ended = k.end(c, now, e.Task, kind)
	o.TimedOut = t.TimedOut() // its end retired it (Tasks.Retire: Stop.Leave)
	if ended {
		o.Over, o.State = true, c.Jobs[o.Job].State
	} else if !c.Jobs[o.Job].finished {
		c.endIfOver(now, o.Job, &o)
	}
	return o
}

// end ends killing task ti's attempt at now as the master ends a
// killing task's (Ending.Decide with Killing): killed, its attempt killed,
// or lost where kind is EndLost (its node lost first). It returns the
// slots freed, the attempt's end state, and whether that ended the
// killing of a job that a user killed before, which now leaves the
// roster (Finish). A live job's task ends as Job.end counts it.
func (k *kills) end(c *Cluster, now int64, ti int32, kind EndKind) (slots int, attempt AttemptState, ended bool) {
	t := c.Tasks.At(ti)
	ji := t.Job
	j := &c.Jobs[ji]
	e := j.ending(t, kind)
	t.Ends(&e) // killing, to end killed (Tasks.Kill)
	v := e.Decide()
	if !j.State.Terminal() {
		return c.closeAttempt(now, ti, v), v.Attempt, false
	}
	c.uncharge(now, t, j)
	slots = c.freed(j, j.Release(&c.Tasks, ti))
	if !j.Live(j.JobTasks) { // its last killing task ended
		c.Roster.Finished(ji)
		return slots, v.Attempt, true
	}
	return slots, v.Attempt, false
}

// replaced readies task ti, whose move or resize is in flight, for a
// kill (Tasks.Kill, the caller's next step), as the
// live master's kill of such a task does: its open attempt holds the old
// placement's GPUs, killing, until its agent reports the end, and the
// reservation is let go of at the kill (its Enter leaving preempting:
// Unreserve, then releaseReserved) but for what a resize kept of the old
// placement (KeptOn), which the attempt holds still. So the task holds
// its old placement (Old) again, its move over (Unreserve: the Cluster's
// re-placed task is not preempting, so its Enter to killing does not),
// its draining record, which held the rest of the old placement, retired
// killed. It returns the slots that frees, the reservation beyond what
// the old placement keeps, reported as the draining record's (where
// nothing drained, the task's), freed from preempting.
func (k *kills) replaced(c *Cluster, ti int32) Freed {
	ts := &c.Tasks
	j := &c.Jobs[ts.At(ti).Job]
	f := Freed{Task: ti, From: TaskPreempting}
	reserved, drained := sched.Slots(ts.At(ti).Nodes), 0
	if di := ts.Abandoned(ti); di >= 0 {
		f.Task = di
		drained = j.Drained(ts, di, TaskKilled)
	}
	t := ts.At(ti)
	t.Nodes = append(t.Nodes[:0], t.Old...)
	t.Unreserve() // the Cluster's re-placed task runs on: no Enter from preempting lets go of it
	t.Drain = -1
	old := sched.Slots(t.Nodes)
	j.Held += old - reserved // Drained took the draining part off
	f.Slots = c.freed(j, reserved+drained-old)
	return f
}
