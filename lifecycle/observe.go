package lifecycle

import "github.com/allot-sched/allot/sched"

// EventKind names what a driver reports to the Cluster (Observe): an
// outcome of an earlier effect (the simulator's timers, later the
// master's agents), or a change asked from outside (a user, a script).
type EventKind uint8

const (
	// EventEnded: a task's attempt ended as Task.Due promised, its work
	// done, or (Task.Limited) its time limit reached, which leaves it
	// killing (Outcome.Killing) until EventKillEnded (killing.go).
	EventEnded EventKind = iota + 1
	// EventLanded: the checkpoint of a preempted task has landed, and
	// its slots are free; or that of a moved or resized one (Replacing),
	// which restarts on its new placement, the draining part of its old
	// placement free.
	EventLanded
	// EventKill ends Job at once: its waiting tasks are dropped and its
	// active tasks are left killing (Kill, Outcome.Killing), their slots
	// held until the driver's EventKillEnded for each (killing.go).
	EventKill
	// EventPriority sets Job's priority, with the preemptibility,
	// borrowing and interactivity that follow from it by the driver's
	// rule (amend).
	EventPriority
	// EventWeight sets Job's weight (amend).
	EventWeight
	// EventSubmit adds a job: Submission, with Entry, the snapshot entry
	// the driver built from its spec (whose waiting count the Cluster
	// keeps from then on). A job of no tasks ends completed at once.
	EventSubmit
	// EventTick is a wake-up: a timer the driver set (a guard lifting)
	// or any change the Cluster does not see (a scripted event for a job
	// not yet submitted), after which the next Step may not skip the
	// instant as quiet.
	EventTick
	// EventStopped: a running task was stopped from outside before its
	// work was done (a searcher stopping a trial); it ends completed.
	EventStopped
	// EventNodeDown: Node (its index in Snap.Nodes) is lost. It offers
	// no slots until it is back, and the attempts on it end as lost
	// (nodes.go), but for those it holds through the loss
	// (HoldsThroughLoss, with LostNodeGrace).
	EventNodeDown
	// EventNodeUp: Node is back, with the slots it had.
	EventNodeUp
	// EventStartFailed: the attempt that a start effect began on task
	// Task (version Ver, as the start left it) could not start. The task
	// ends as StartFailed says (failed, never rescheduled), its slots
	// freed, and its job ends once every task has ended.
	EventStartFailed
	// EventNodeDrain: Node is drained (an admin's allot node drain): the
	// tasks on it run on, and none starts there, nor is preempted there,
	// until EventNodeResume (nodes.go).
	EventNodeDrain
	// EventNodeResume: Node, drained, takes new tasks again.
	EventNodeResume
	// EventGraceOver: the lost-node grace of Node's loss has run out
	// (the driver sends it LostNodeGrace after EventNodeDown). The tasks
	// the loss held end as lost, if the node is still down since that
	// loss (GraceOver); else it changes nothing.
	EventGraceOver
	// EventStartLost: no agent answered the start of the attempt that a
	// start effect began on task Task (version Ver), and the driver gave
	// it up: the task lets go of its slots and waits again, whatever its
	// preemptibility (StartLost), by its job's exit actions as after a
	// preemption, with the work it had at the start.
	EventStartLost
	// EventAttemptLost: the attempt of task Task (version Ver) ended
	// lost while its nodes stayed up (its agent restarted without it, or
	// reported it does not run it): by the rule of a task on a lost
	// node, it is rolled back to its last checkpoint (Tasks.Lose) and
	// waits again when its job is preemptible, by its exit actions, or
	// fails (Job.Lost). A start never answered is EventStartLost.
	EventAttemptLost
	// EventNodeReshape: Node's agent registered again with another
	// inventory, Shape (reshape.go): the node's own slots, GPU type,
	// labels, switch, pool and zero-slot limit from then on; the tasks
	// on it run on.
	EventNodeReshape
	// EventAgentPreempted: the attempt of task Task (version Ver) was
	// preempted by its agent, which shut down (allot agent --on-exit
	// kill) or whose fence stopped it in a master outage, and its
	// checkpoint has landed: the task keeps what a
	// preemption's checkpoint keeps (Tasks.Preempt) and waits again by
	// its job's exit actions, or fails, as after a preemption (Decide
	// of EndPreempted), though no pass asked for it: it counts against
	// no preemption budget and not in the job's Preempts.
	EventAgentPreempted
	// EventKillEnded: the kill of task Task (version Ver, as the kill
	// left it), which a kill or its time limit left killing
	// (killing.go), has ended its attempt: it lets go of
	// its slots and ends killed; a job a user killed leaves the roster
	// once its last such task has (Outcome.Over), and one whose task
	// reached its time limit ends as its tasks put it, or runs on.
	EventKillEnded
	// EventTimeLimit sets Job's time limit to Limit (0: none) from now
	// on (SetTimeLimit): its running tasks' attempts end at the new
	// limit, counted from their starts, or at once where they are past
	// it already; the driver promises their ends again (Outcome.Retimed).
	EventTimeLimit
	// EventNice sets Job's nice, EventQOS its QOS level, an
	// index into the snapshot's QOS (both by amend): both weigh in multifactor
	// priority, and a QOS decides what may preempt what.
	EventNice
	EventQOS
	// EventHold holds Job (onhold.go): its entry waits for nothing, so
	// that no pass starts it, until EventRelease. A job with a task
	// holding slots is not held (CanHold): the event is not applied, as
	// the master refuses it.
	EventHold
	EventRelease
	// EventRequeue asks Job's running tasks to checkpoint and stop as a
	// preemption does (onrequeue.go), to wait again once their
	// checkpoints land (EventLanded); with Hold the job is held too.
	// A requeue the master refuses (RequeueRefused, a task being moved
	// or resized) is not applied.
	EventRequeue
	// EventLeftLanded: the parts of a lost gang's attempt on nodes still
	// up, held as record Task (version Ver) since the loss
	// (Outcome.Leaving, leaving.go), have ended, their checkpoint
	// landed: their slots are free and the task waits again.
	EventLeftLanded
)

// Event is what Observe takes. An outcome (ended, landed, stopped,
// start failed)
// names version Ver of task record Task: the version the task had when
// the promise was made (Effect's task after Step applied it, or the
// draining record of a re-placement). A change names job record Job and,
// for a priority or weight, the new values. A submission carries the
// job's Submission and Entry.
type Event struct {
	Kind EventKind
	Task int32
	Ver  uint32

	Job         int32
	Priority    int
	Preemptible bool
	Borrow      bool
	Interactive bool
	Weight      float64
	// Limit, Nice and QOS are an EventTimeLimit's, EventNice's and
	// EventQOS's new values.
	Limit int64
	Nice  int
	QOS   int
	// Hold is an EventRequeue's: the job is held too.
	Hold bool

	Submission Submission
	// Entry is read during Observe only; nil is an empty entry.
	Entry *sched.Job

	Node int32
	// Shape is an EventNodeReshape's new shape of Node: its Slots, GPU,
	// Labels, Switch, Pool and ZeroSlotLimit (the rest is not read; the
	// driver gives the node's own pool and limit where it stays); read
	// during Observe only, but Labels, which the node keeps.
	Shape *sched.Node
}

// Outcome is what Observe did with an event.
type Outcome struct {
	// Applied is false when nothing changed: for a stale outcome (the
	// task was re-planned, preempted, moved, resized, killed, or retired
	// since the promise, or the record is a draining placement, which
	// lands with its task), a change to a job that has ended, or a node
	// that was down (up, drained, not drained) already.
	Applied bool
	// Job is the task's job, the job changed or the job submitted (-1
	// for a tick or a node event); Slots the slots the task, the kill or
	// the node's loss freed.
	Job   int32
	Slots int
	// LostWork is the slot-seconds of work a lost attempt threw away
	// (EventAttemptLost), as Freed.LostWork for a node's loss.
	LostWork int64
	// TimedOut: an ended attempt reached its time limit (EventEnded).
	// Drained: the landed checkpoint was a moved or resized task's,
	// which now runs on its new placement (EventLanded; Slots and Freed
	// are its drained old placement, if any drained); else the task was
	// preempted and now waits again or failed, by its job's exit
	// actions.
	TimedOut bool
	Drained  bool
	// Attempt is the state the task's attempt ended in (Verdict.Attempt:
	// the same state the master stores for such an end), for an outcome
	// that ended one; "" where none ended (a moved or resized task's
	// landing continues its attempt on the new placement).
	Attempt AttemptState
	// Unplaced: the landed checkpoint was a re-placed task's, but a node
	// of its new placement was lost since the move or resize, so it was
	// not restarted there and waits again as a preempted task does
	// (Restartable); Freed is the drained part of its old placement.
	Unplaced bool
	// Over says the job ended, in State: every task ended (Job.Over), it
	// was killed, or it was submitted with no tasks. Observe has then
	// finished it (Finish).
	Over  bool
	State JobState
	// Freed lists the other records the event freed, in the running
	// list's order: a kill's (Kill), the draining old placement of a
	// re-placed task whose checkpoint landed, or the draining old
	// placements of moves of a job that ended; for a node going down,
	// every record the loss freed, in the order freed. Valid until the
	// next Observe.
	Freed []Freed
	// Ended lists the jobs a node going down ended (each in its State),
	// finished as Over says. Valid until the next Observe.
	Ended []int32
	// Killing lists the records a kill, or a time limit (EventEnded),
	// left killing, their slots held, with the state each held them in
	// before: the driver sends EventKillEnded for each, at its version,
	// when the kill has ended (the simulator at once, or KillAfter
	// later: Task.KillAfter). A job a
	// user killed has ended (Over), but the driver hears of its end once
	// the last of them has ended (EventKillEnded's Over), or of a task its
	// time limit left killing before, which the kill leaves alone (not
	// listed; Job.Active counts it). Valid until the next Observe.
	Killing []KillingTask
	// Retimed lists the running tasks whose end a time limit's change
	// moved (EventTimeLimit): the driver promises each its end again,
	// Task.Due, or now where that has passed, and drops an end promised
	// before that is not due when it comes (its Due is later: a raised
	// limit). Valid until the next Observe.
	Retimed []int32
	// Requeued lists the running tasks a requeue asked to checkpoint
	// (EventRequeue): the driver promises each its landing (EventLanded,
	// at its new version). Valid until the next Observe.
	Requeued []int32
	// Leaving lists the records a node going down left holding the parts
	// of a lost gang's attempt on nodes still up, asked to checkpoint
	// (leaving.go): the driver promises each its landing
	// (EventLeftLanded, at its version, Ask's). Valid until the next
	// Observe.
	Leaving []int32
}

// Observe applies event e at now. An outcome applies if it still does
// (Tasks.Current): the task exits (Exit), its checkpoint lands (a
// re-placed task resumes on its new placement, its draining record
// freed; else Checkpointed), or its start failed (it ends as StartFailed
// says). A stale
// outcome changes nothing, so a late or repeated report is harmless,
// whoever sends it. A kill, priority or weight applies to a live job and
// asks the next Step for a pass, as a tick does. A submission always
// applies; Outcome.Job is the new job's record. A job whose tasks have
// all ended (Job.Over), that was killed or that has no tasks is
// finished, its draining moves freed first. Task records stay as they
// were until the next Snapshot, for the driver's records.
func (c *Cluster) Observe(now int64, e Event) Outcome {
	switch e.Kind {
	case EventEnded, EventLanded, EventStopped, EventStartFailed, EventStartLost, EventAttemptLost, EventAgentPreempted:
		return c.outcome(now, e)
	case EventKillEnded:
		return c.kills.ended(c, now, e)
	case EventLeftLanded:
		return c.nodes.leftLanded(c, e)
	case EventSubmit:
		ji := c.submit(e.Submission, e.Entry)
		o := Outcome{Applied: true, Job: ji}
		if e.Submission.Tasks == 0 {
			o.Over, o.State = true, JobCompleted
			c.Finish(ji, JobCompleted, now)
		}
		return o
	case EventTick:
		c.step.wake()
		return Outcome{Applied: true, Job: -1}
	case EventNodeDown, EventNodeUp, EventNodeDrain, EventNodeResume, EventGraceOver:
		return c.nodes.event(c, now, e)
	case EventNodeReshape:
		return c.reshapeNode(e)
	case EventHold, EventRelease:
		return c.hold(e)
	case EventRequeue:
		return c.requeue(now, e)
	case EventKill, EventPriority, EventWeight, EventTimeLimit, EventNice, EventQOS:
		if e.Job < 0 || int(e.Job) >= len(c.Jobs) || c.Jobs[e.Job].State.Terminal() {
			return Outcome{Job: -1}
		}
		c.step.wake()
		o := Outcome{Applied: true, Job: e.Job}
		switch e.Kind {
		case EventKill:
			c.freedRecs = c.Kill(c.freedRecs[:0], e.Job)
			o.Freed, o.Killing = c.freedRecs, c.kills.left
			for _, f := range c.freedRecs {
				o.Slots += f.Slots
			}
			o.Over, o.State = true, JobKilled
			c.Finish(e.Job, JobKilled, now)
		case EventPriority:
			c.amend(e.Job, func(en *sched.Job) {
				en.Priority, en.Preemptible, en.Borrow, en.Interactive = e.Priority, e.Preemptible, e.Borrow, e.Interactive
			})
		case EventWeight:
			c.amend(e.Job, func(en *sched.Job) { en.Weight = e.Weight })
		case EventTimeLimit:
			c.retimed = c.SetTimeLimit(c.retimed[:0], e.Job, e.Limit)
			o.Retimed = c.retimed
		case EventNice:
			c.amend(e.Job, func(en *sched.Job) { en.Nice = e.Nice })
		case EventQOS:
			c.amend(e.Job, func(en *sched.Job) { en.QOS = e.QOS })
		}
		return o
	}
	return Outcome{Job: -1}
}

// outcome applies a task's end, stop, failed or lost start, lost
// attempt, its agent's preemption or its landed checkpoint at now
// (Observe). What that does to the task is Decide's verdict, the
// master's too: a re-placed task restarts on its new placement (Landed)
// or is requeued where it ran (requeueReplaced); any other lets go of
// its slots, a draining part of a re-placement with it, and ends, or
// waits again, as the verdict says (Job.end).
func (c *Cluster) outcome(now int64, e Event) Outcome {
	if !c.Tasks.Current(e.Task, e.Ver) {
		return Outcome{Job: -1}
	}
	t := c.Tasks.At(e.Task)
	ji := t.Job
	o := Outcome{Applied: true, Job: ji}
	v := c.ending(e.Kind, t).Decide()
	switch {
	case v.Restarts():
		// What of the old placement drained is free, and a pass may
		// plan the task again (Replannable); its job cannot have ended.
		oi, slots := c.Landed(e.Task, now)
		o.Drained, o.Slots = true, slots
		if oi >= 0 {
			c.freedRecs = append(c.freedRecs[:0], Freed{Task: oi, From: TaskPreempting, Slots: slots})
			o.Freed = c.freedRecs
		}
		c.step.wake()
		return o
	case v.Unplaced:
		o.Attempt = v.Attempt
		return c.requeueReplaced(now, e.Task, v, o)
	}
	if e.Kind == EventEnded && t.Limited() {
		return c.kills.limited(c, e.Task, o)
	}
	o.Attempt = v.Attempt
	j := &c.Jobs[ji]
	o.Slots = c.dropDrain(c.Tasks.Abandoned(e.Task)).Slots
	switch e.Kind {
	case EventEnded:
		o.TimedOut = t.Limited()
	case EventAttemptLost:
		// By the rule of a lost node's (nodeBook.event): the task keeps only
		// what its last checkpoint saved. Its agent no longer runs it,
		// its node up: the master kills a gang's other parts, asking no
		// checkpoint (CheckpointsOnLoss is a lost node's rule).
		o.LostWork = c.lose(now, e.Task, false)
	case EventAgentPreempted:
		// Its progress is saved as a checkpoint request saves it; no
		// pass decided it, so it counts against no budget (Tasks.Preempt,
		// not Job.Preempt).
		c.Tasks.Preempt(e.Task, now, j.Shape)
	}
	o.Slots += c.closeAttempt(now, e.Task, v)
	if v.Waits() {
		c.waiting(ji)
	}
	c.endIfOver(now, ji, &o)
	return o
}

// ending is what the Cluster knows of task t's attempt ending by an
// outcome event of kind k, for Decide: the job's exit actions, the
// task's reschedules and whether it ran (Job.ending), its job's
// preemptibility, and whether a landing restarts it where a move or
// resize re-placed it.
func (c *Cluster) ending(k EventKind, t *Task) Ending {
	e := c.Jobs[t.Job].ending(t, endKind(k, t.Limited()))
	e.Preemptible = c.Roster.Entry(t.Job).Preemptible
	switch k {
	case EventStartLost:
		e.Ran = false // whatever its record says, its start went unanswered
	case EventLanded:
		// Only a landing meets a re-placed task: an agent's preemption
		// is promised for the version its start left, which the
		// re-placement made stale (sim's agentPreempts).
		t.Landing(&e, func() bool { return c.nodes.anyDown(t.Nodes) })
	}
	return e
}

// endKind is how an outcome event of kind k ends its attempt; limited
// says an ended one reached its time limit (Task.Limited).
func endKind(k EventKind, limited bool) EndKind {
	switch k {
	case EventEnded:
		if limited {
			return EndLimited
		}
		return EndCompleted
	case EventStopped:
		return EndStopped
	case EventStartFailed:
		return EndStartFailed
	case EventStartLost, EventAttemptLost:
		return EndLost
	}
	return EndPreempted // EventLanded, EventAgentPreempted
}

// requeueReplaced ends re-placed task ti, whose checkpoint landed with a
// node of its new placement lost since the move, as the master does and
// as verdict v says (Verdict.Unplaced): as a preempted task that waits
// again or fails by its exit actions, its reservation freed
// (Outcome.Slots) and its drained part after it (the last of
// Outcome.Freed, after the job's draining moves if the job ended).
func (c *Cluster) requeueReplaced(now int64, ti int32, v Verdict, o Outcome) Outcome {
	j := &c.Jobs[o.Job]
	drain := Freed{Task: c.Tasks.Resume(ti, now), From: TaskPreempting}
	if drain.Task >= 0 {
		drain.Slots = c.freed(j, j.Drained(&c.Tasks, drain.Task, TaskPreempted))
	}
	o.Slots, o.Unplaced = c.closeAttempt(now, ti, v), true
	c.waiting(o.Job)
	c.endIfOver(now, o.Job, &o)
	if !o.Over {
		c.freedRecs = c.freedRecs[:0]
	}
	if drain.Task >= 0 {
		c.freedRecs = append(c.freedRecs, drain)
		o.Freed = c.freedRecs
	}
	return o
}

// dropMoves frees the draining old placements of job ji's moves, which
// is ending, appending each to dst in the running list's order
// (dropDrain).
func (c *Cluster) dropMoves(dst []Freed, ji int32) []Freed {
	if c.Jobs[ji].Moving == 0 {
		return dst
	}
	for _, ti := range c.Tasks.Running() {
		if t := c.Tasks.At(ti); t.State.Active() && t.Moving && t.Job == ji {
			dst = append(dst, c.dropDrain(ti))
		}
	}
	return dst
}
