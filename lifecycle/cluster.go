package lifecycle

import (
	"time"

	"github.com/allot-sched/allot/sched"
)

// Cluster is the scheduling state kept from pass to pass: the jobs, the
// live ones on a roster with their snapshot entries, the task attempts
// holding slots, the accounts' usage and the projects' preemption
// budgets (ledgers.go). It is the state machine of issue 13 in the
// making (docs/architecture.md says how far it goes): the driver calls a
// transition for each event, lets Step settle each instant (step.go),
// and keeps beside it, indexed by the same job record, whatever else it
// needs (the simulator its specs and metrics).
//
// Job records are reused once their job has left the roster, so the
// table grows with the live state, not with the run.
type Cluster struct {
	Jobs   []Job
	Tasks  Tasks
	Roster Roster
	// Snap is the snapshot Step's passes read: the driver fills in what
	// does not change (pools, nodes, projects, accounts, licenses, QOS)
	// before Configure; Step fills in the rest for each pass.
	Snap      sched.Snapshot
	scheduler sched.Scheduler
	step      stepper // Step's (step.go)
	// freeJobs are records of jobs that left the roster, for reuse.
	freeJobs []int32
	// allocTask maps the last snapshot's allocations to task records.
	allocTask []int32
	freedRecs []Freed  // Observe's scratch
	retimed   []int32  // Observe's scratch (EventTimeLimit)
	requeued  []int32  // Observe's scratch (EventRequeue)
	kills     kills    // killing.go's
	ended     []int32  // Observe's scratch: jobs a node loss ended
	nodes     nodeBook // the nodes that are down or drained (nodes.go)
	// inUse counts the slots the tasks hold, draining ones included.
	inUse int
	// Ledgers are the accounts' usage and the budgeted projects'
	// preemptions (ledgers.go), which the transitions keep current.
	Ledgers Ledgers
	// LostNodeGrace is how long a lost node's tasks that are not
	// preemptible keep their attempt (HoldsThroughLoss, nodes.go): the
	// cluster spec's lost_node_grace. 0 ends them at the loss.
	LostNodeGrace time.Duration
}

// NextJob is the record the next submission will use.
func (c *Cluster) NextJob() int32 {
	if n := len(c.freeJobs); n > 0 {
		return c.freeJobs[n-1]
	}
	return int32(len(c.Jobs))
}

// submit stores a submitted job's record (NewJob's; a reused record
// lends its buffers to the new one) and puts it on the roster with
// entry, its snapshot entry, whose waiting count the Cluster keeps from
// then on (EventSubmit).
func (c *Cluster) submit(sub Submission, entry *sched.Job) int32 {
	ji := c.NextJob()
	if int(ji) == len(c.Jobs) {
		c.Jobs = append(c.Jobs, Job{})
	} else {
		c.freeJobs = c.freeJobs[:len(c.freeJobs)-1]
	}
	c.Jobs[ji] = NewJob(sub, c.Jobs[ji].Resume)
	if entry == nil {
		entry = &sched.Job{}
	}
	c.Roster.Add(ji, *entry)
	en := c.Roster.Entry(ji)
	en.Waiting = ShownWaiting(sub.Tasks, sub.Held)
	c.revise(en)
	c.step.submitted(en)
	return ji
}

// amend changes job ji's snapshot entry by change and gives it a new
// Rev: a priority change, with the preemptibility, borrowing and
// interactivity that follow from it (the driver's: OSMO's priority
// classes, Class.In, whose rules JobFacts.Entry applies at submission),
// or a change of its weight, nice or QOS level (an index into the
// snapshot's QOS).
func (c *Cluster) amend(ji int32, change func(en *sched.Job)) {
	en := c.Roster.Entry(ji)
	change(en)
	c.revise(en)
}

// SetTimeLimit changes job ji's time limit to limit seconds (0: none),
// in its snapshot entry (backfill's reservations read it) and in the
// shape its running tasks' ends follow, and appends to out the running
// tasks whose end it moved (Outcome.Retimed). A task checkpointing, or
// re-placed and not yet landed, is promised its end as it resumes
// (Job.Landed), by the new limit; one being killed ends as its kill
// does.
func (c *Cluster) SetTimeLimit(out []int32, ji int32, limit int64) []int32 {
	en := c.Roster.Entry(ji)
	en.TimeLimit = limit
	c.revise(en)
	j := &c.Jobs[ji]
	old := j.Shape
	j.Shape.Limit = limit
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		if t.Job != ji || t.State != TaskRunning || t.Moving || t.Replacing() {
			continue
		}
		before, _ := t.Due(old)
		due, limited := t.Due(j.Shape)
		t.Promise(limited)
		if due != before {
			out = append(out, ti)
		}
	}
	return out
}

// revise gives a roster entry a new Rev after it changed (Roster.Revise).
// Every change to a roster entry must call it; Roster.NoRevs leaves the
// entries without one.
func (c *Cluster) revise(en *sched.Job) { c.Roster.Revise(en) }

// Cancel drops job ji's waiting tasks, as a kill does (Job.Cancel).
func (c *Cluster) Cancel(ji int32) {
	c.Jobs[ji].Cancel()
	c.waiting(ji)
}

// waiting copies job ji's waiting count into its snapshot entry, while
// the job is on the roster: none while it is on hold (ShownWaiting).
func (c *Cluster) waiting(ji int32) {
	if j := &c.Jobs[ji]; !j.State.Terminal() {
		if en, w := c.Roster.Entry(ji), ShownWaiting(j.Waiting, j.OnHold); en.Waiting != w {
			en.Waiting = w
			c.revise(en)
		}
	}
}

// Launch starts a waiting task of job ji on nodes at now (Job.Launch); its
// account is charged for the slots.
func (c *Cluster) Launch(ji int32, nodes []sched.NodeSlots, backfill bool, now int64) int32 {
	ti := c.Jobs[ji].Launch(&c.Tasks, ji, nodes, backfill, now)
	c.waiting(ji)
	slots := sched.Slots(nodes)
	c.inUse += slots
	c.Ledgers.Hold(c.Jobs[ji].Account, slots)
	return ti
}

// InUse is the slots the tasks hold, draining ones included.
func (c *Cluster) InUse() int { return c.inUse }

// Preempt asks task ti to stop at now (Job.Preempt), which counts against
// its project's preemption budget.
func (c *Cluster) Preempt(ti int32, now int64) int64 {
	j := &c.Jobs[c.Tasks.At(ti).Job]
	c.Ledgers.NoteBudget(j.Project, now)
	return j.Preempt(&c.Tasks, ti, now)
}

// Replace re-places task ti on nodes at now as r says: it checkpoints,
// holding nodes reserved and what of its old placement drains
// (Draining), until its checkpoint lands (Landed); its project's
// preemption budget is charged when charge says (Effect.ChargesBudget).
func (c *Cluster) Replace(ti int32, nodes []sched.NodeSlots, r Replace, charge bool, now int64) Replaced {
	t := c.Tasks.At(ti)
	j := &c.Jobs[t.Job]
	if charge {
		c.Ledgers.NoteBudget(j.Project, now)
	}
	res := j.Replace(&c.Tasks, ti, r, nodes, now)
	c.inUse += res.Delta
	c.Ledgers.Hold(j.Account, res.Delta)
	return res
}

// Exit ends task ti, done or timed out (Job.Exit). A task that ends while
// it checkpoints for a move or resize (live, its work may end first)
// lets go of the part of its old placement that drains too, and the
// slots returned count it. It is the bare transition: a driver reports
// an end by Observe (EventEnded), where a time limit's leaves the task
// killing until its kill's end (killing.go).
func (c *Cluster) Exit(ti int32, timedOut bool) int {
	t := c.Tasks.At(ti)
	j := &c.Jobs[t.Job]
	slots := c.dropDrain(c.Tasks.Abandoned(ti)).Slots
	return slots + c.freed(j, j.Exit(&c.Tasks, ti, timedOut))
}

// Checkpointed ends preempted task ti once its checkpoint has landed
// (Job.Checkpointed).
func (c *Cluster) Checkpointed(ti int32) int {
	ji := c.Tasks.At(ti).Job
	j := &c.Jobs[ji]
	slots := c.freed(j, j.Checkpointed(&c.Tasks, ti))
	c.waiting(ji)
	return slots
}

// Landed restarts task ti, re-placed by a move or resize, on its new
// placement at now once its checkpoint has landed (Job.Landed), freeing
// the part of its old placement that drained. It returns that part's
// record (-1: nothing drained) and the slots freed.
func (c *Cluster) Landed(ti int32, now int64) (int32, int) {
	j := &c.Jobs[c.Tasks.At(ti).Job]
	oi, slots := j.Landed(&c.Tasks, ti, now)
	return oi, c.freed(j, slots)
}

// dropDrain frees draining record oi, killed, where nothing waits for
// its checkpoint any more, and returns it as freed (From: the state it
// held its slots in, preempting); oi -1, nothing drains, frees nothing
// (Task -1, no slots). It is the one way the Cluster lets go of a
// draining record unlanded, for its three causes: the attempt it drains
// for ends otherwise than by its checkpoint landing (Tasks.Abandoned:
// Exit, Fail, outcome, a lost node's loseTask), a kill of its job
// (Kill) and its job's end (dropMoves). A landing frees its record
// preempted (Landed, requeueReplaced, leftLanded), a kill of a task
// whose move is in flight nets it with the reservation
// (kills.replaced).
func (c *Cluster) dropDrain(oi int32) Freed {
	if oi < 0 {
		return Freed{Task: -1}
	}
	j := &c.Jobs[c.Tasks.At(oi).Job]
	f := Freed{Task: oi, From: c.Tasks.At(oi).State} // before the record retires
	f.Slots = c.freed(j, j.Drained(&c.Tasks, oi, TaskKilled))
	return f
}

// Freed is a task record that let go of its slots, which it held in
// state From (running or preempting).
type Freed struct {
	Task  int32
	Slots int
	From  TaskState
	// LostWork is the slot-seconds of work a lost node threw away
	// (EventNodeDown).
	LostWork int64
}

// Kill ends job ji's tasks as a kill does (KillTo): it drops its waiting
// tasks and leaves every active task of the job killing (Tasks.Kill),
// its slots held until its driver reports the kill's end
// (EventKillEnded), as the live master holds the GPUs of a task being
// killed until its agent reports the end; Outcome.Killing lists them, in
// the running list's order. It frees at once only what no attempt ends
// by: the draining part of a move (Moving) and, for a task whose move or
// resize is in flight, what of its reservation its old placement, which
// it holds again (kills.replaced), does not keep, appending each to dst
// in the running list's order. A task killing already (its time limit)
// goes on so. The driver then ends the job (Finish), and the attempts it
// records.
func (c *Cluster) Kill(dst []Freed, ji int32) []Freed {
	c.kills.left = c.kills.left[:0]
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		from := t.State // before the record retires
		to, _ := KillTo(from)
		switch {
		case to != TaskKilling || t.Job != ji || from == TaskKilling:
		case t.Moving:
			if t.Left {
				// Its lost task waits for these parts' landing (Job.Await),
				// not among the waiting ones Cancel ends: it ends killed
				// here, as the master's kill ends a queued task.
				c.Jobs[ji].Move(TaskQueued, TaskKilled)
			}
			dst = append(dst, c.dropDrain(ti))
		default:
			if t.Replacing() {
				dst = append(dst, c.kills.replaced(c, ti))
			}
			c.Jobs[ji].Kill(&c.Tasks, ti, false)
			c.kills.left = append(c.kills.left, KillingTask{Task: ti, From: from})
		}
	}
	c.Cancel(ji)
	return dst
}

// closeAttempt ends task ti's attempt at now as verdict v says (Job.end)
// and returns the slots freed. An attempt whose exit its agent reported
// late (Task.ExitBefore) held its slots until now, and was charged for
// them, but its account is charged until the exit only, as the live
// master's: what its last ExitBefore seconds on its placement were
// charged (since From, when it last took it) is taken back. Its slots
// are freed now all the same, as the master frees the GPUs when it hears
// of the exit.
func (c *Cluster) closeAttempt(now int64, ti int32, v Verdict) int {
	t := c.Tasks.At(ti)
	j := &c.Jobs[t.Job]
	c.uncharge(now, t, j)
	return c.freed(j, j.end(&c.Tasks, ti, v))
}

// uncharge takes back what task t of job j was charged since its exit,
// when its agent reported that exit late (closeAttempt), as it ends at
// now.
func (c *Cluster) uncharge(now int64, t *Task, j *Job) {
	if t.ExitBefore > 0 {
		c.Ledgers.Uncharge(c.Snap.Accounts, j.Account, sched.Slots(t.Nodes), max(now-t.ExitBefore, t.From), now)
	}
}

// freed stops charging job j's account for slots it let go of.
func (c *Cluster) freed(j *Job, slots int) int {
	c.inUse -= slots
	c.Ledgers.Hold(j.Account, -slots)
	return slots
}

// Finish ends job ji in state st at now; it leaves the roster at the next
// Snapshot, or, while a task of it is still being killed (Kill, its
// slots held until KillEnded), once the last such task has ended, as the
// live master keeps a killed job's attempts in its snapshot until they
// end: once it is no longer live (JobRecord.Live, the master's rule for
// its mirror too).
func (c *Cluster) Finish(ji int32, st JobState, now int64) {
	if c.Roster.Entry(ji).Slots == 0 {
		c.step.zeroSlot--
	}
	j := &c.Jobs[ji]
	j.Finish(st, now)
	if !j.Live(j.JobTasks) {
		c.Roster.Finished(ji)
	}
}

// Snapshot puts the cluster's jobs and allocations in snap for a pass at
// now: the roster, compacted, as its jobs, an allocation for each task
// holding slots (on the nodes that are up: a task held through a node's
// loss has none there), and the projects' preemption counts. It returns the
// roster index of the last job holding slots, -1 for none. The accounts'
// usage is Advance's; the rest of snap is the driver's.
func (c *Cluster) Snapshot(snap *sched.Snapshot, now int64) (lastRunning int) {
	c.Ledgers.FillBudgets(snap.Projects, now)
	// A finished job's record is reusable only once the job is off the
	// roster.
	c.Roster.Compact(c.alive, func(ji int32) { c.freeJobs = append(c.freeJobs, ji) })
	snap.Jobs = c.Roster.Entries()
	lastRunning = -1
	snap.Allocs = snap.Allocs[:0]
	c.allocTask = c.allocTask[:0]
	c.nodes.kept = c.nodes.kept[:0]
	// Only at a sweep are retired tasks' records reusable: the running
	// list no longer names them.
	for _, ti := range c.Tasks.Sweep() {
		t := c.Tasks.At(ti)
		job := c.Roster.Index(t.Job)
		a := t.Alloc(job, now, c.Jobs[t.Job].Shape.Every)
		if a.Nodes = c.nodes.allocNodes(a.Nodes, c.LostNodeGrace, t.Replacing()); len(a.Nodes) == 0 {
			continue // held on down nodes only: the master has no allocation
		}
		c.allocTask = append(c.allocTask, ti)
		lastRunning = max(lastRunning, job)
		snap.Allocs = append(snap.Allocs, a)
	}
	return lastRunning
}

// alive reports whether job ji stays on the roster (JobRecord.Live): it
// has not ended, or a task of it is still being killed (Finish).
func (c *Cluster) alive(ji int32) bool { return c.Jobs[ji].Live(c.Jobs[ji].JobTasks) }
