package lifecycle

import (
	"time"

	"github.com/allot-sched/allot/sched"
)

// Rules that the simulator (through Cluster.Step and Job.Launch) and the
// live master (its planner) both follow, written once so that a live run
// and a simulation of the same events decide alike: when the passes of
// one instant may stop (OneShot, Grows, with Settled), which
// reservation a plan leaves each job for the next pass (Reservations),
// which waiting task of a job a start launches (ResumesBefore), and
// what a snapshot says of a running attempt that a move or resize
// continued (LastCheckpoint; its start, and the start its time limit
// runs from, stay the attempt's), and which plan items apply to a task
// that a move or resize is re-placing (Replannable), and which tasks of a
// lost node keep their attempt for the lost-node grace and until when
// (HoldsThroughLoss, GraceOver), whether a re-placed task restarts on
// its reserved placement (Restartable), whether a lost attempt's task
// waits again (LostRequeues, StartLost), whether a task that did not end
// by itself waits again by its job's exit actions (ExitRequeues), the state a job's tasks put it
// in (EndedJob, LiveJob), when an attempt has reached its time limit
// (PastLimit), what a kill does to each task (KillTo), and what a
// priority change into or out of LOW makes a job (PreemptibleIn,
// PreemptibleOutsideLow, Borrows, InteractiveIn; Class.In in entry.go),
// and the fields of a job's snapshot entry that rules make (MaxRunning,
// Interactive), which entry.go's JobFacts.Entry applies for both.

// OneShot reports whether a pass that preempted, moved and resized
// nothing settles the instant (Settled's oneShot): every pool's policy
// makes maximal plans (FIFO and backfilling, see Step) and no job whose
// tasks grow after they start (Grows) was submitted. grew says whether
// one was.
func OneShot(pools []sched.Pool, grew bool) bool {
	if grew {
		return false
	}
	for i := range pools {
		if p := pools[i].Policy; p != sched.PolicyFIFO && p != sched.PolicyBackfill {
			return false
		}
	}
	return true
}

// Grows reports whether job j's tasks may grow in a pass after the one
// that started them (an elastic job started shrunk), even under FIFO:
// once such a job was submitted, every pass must be confirmed by another
// (OneShot).
func Grows(j *sched.Job) bool { return j.MinSlots > 0 }

// Reservations calls keep for every job plan leaves a reservation for the
// next pass, with its reserved start and, on pools that reserve per
// node, its nodes (plan's slice: copy it to keep it): a job left pending
// keeps the start the plan reserved, or 0, "none", when it can never
// start or its start is unknown; a job the plan starts keeps none (0,
// no nodes). The core keeps nothing between passes, and conservative
// backfilling compresses the schedule it is handed rather than rebuild
// it, so a driver carries these into the next pass's snapshot.
func Reservations(plan *sched.Plan, keep func(job int, at int64, nodes []sched.NodeSlots)) {
	for _, pe := range plan.Pending {
		at := pe.At
		if at < 0 || at == sched.Never {
			at = 0
		}
		keep(pe.Job, at, pe.Nodes)
	}
	for _, st := range plan.Starts {
		keep(st.Job, 0, nil)
	}
}

// Queued is a job's task waiting to start, as ResumesBefore sees it.
type Queued struct {
	// Ran says the task ran before: it was preempted and waits to be
	// rescheduled with the work it has left.
	Ran bool
	// Preempted orders the preemptions of the job's tasks that ran: a
	// later preemption has a larger value.
	Preempted int64
	// Index is the task's number in its job.
	Index int
}

// ResumesBefore says whether waiting task a of a job starts before b:
// tasks that ran before start before those that never ran, the last
// preempted first (Job.Launch takes them from a stack, last landed
// first, and the simulator lands them in the order it preempted them);
// tasks that never ran start by number. The master picks by it, so that
// the same task, with the same work left, resumes live as in simulation.
func ResumesBefore(a, b Queued) bool {
	switch {
	case a.Ran != b.Ran:
		return a.Ran
	case a.Ran:
		return a.Preempted > b.Preempted
	}
	return a.Index < b.Index
}

// LastCheckpoint is when an attempt that started at start and last
// resumed at from (its start, or its last move or resize, which
// continue the attempt) last saved its progress at now, for
// sched.Alloc.Checkpoint: with a checkpoint interval every, its last
// periodic checkpoint since from; else the checkpoint of its last
// re-placement, from; else 0, never, for which the core takes the loss
// to be the run time. The attempt's start stays start through moves and
// resizes, in the snapshot (sched.Alloc.Start: minimum run times, victim
// order, estimated ends) and for its time limit.
func LastCheckpoint(start, from, now, every int64) int64 {
	if every <= 0 {
		if from > start {
			return from
		}
		return 0
	}
	return from + (now-from)/every*every
}

// PreemptibleOutsideLow is whether a job is preemptible while outside the
// LOW class, by OSMO's rule (LOW work always is; HIGH and NORMAL work only
// if its job file asked): what its file said explicitly, else its kind's
// default. filed is the file's preemptibility as parsed and filedLow
// whether the file put the job in LOW. Outside LOW the parsed value is
// the explicit one or the default already; in LOW the class forces it
// (false is refused), so the file said nothing of its own and a job filed
// LOW gets its kind's default, kindDefault, when it leaves LOW. Both the
// master (a priority change) and the simulator (sim's ClassRule) follow
// it, so a job moved across the LOW band is preempted alike live and in a
// replay.
func PreemptibleOutsideLow(filedLow, filed, kindDefault bool) bool {
	if filedLow {
		return kindDefault
	}
	return filed
}

// PreemptibleIn is whether a job is preemptible in its priority class:
// always in LOW (low), else as it is outside LOW (outside,
// PreemptibleOutsideLow). The master applies it to a priority change
// (changeJob) and the simulator to a scripted one (sim's ClassRule).
func PreemptibleIn(low, outside bool) bool { return low || outside }

// Borrows reports whether a job may borrow slots beyond its project's
// quota: LOW work (low) in a pool that divides slots by quota. Every
// snapshot entry's Borrow is made by it (JobFacts.Entry), and a priority
// change's (Class.In); the simulator's scenario jobs keep it resolved
// (sim's specFromScenario).
func Borrows(low, quotaPool bool) bool { return low && quotaPool }

// MaxRunning is how many of a job's tasks may run at once (sched.Job's
// MaxRunning): all of them, capped by maxConcurrent (0: no cap) and by
// maxSlots, the most slots the job may hold over all its tasks (a job
// file's max_slots; 0: no cap), as many tasks of slots each as fit in it
// but at least one; at least one in all. A scenario's job has no such
// cap (its max_slots is an elastic task's size, its slots), so the
// simulator passes 0 and the master's what-if export folds the cap into
// the job's max_concurrent: both then run as many tasks at once.
func MaxRunning(tasks, maxConcurrent, slots, maxSlots int) int {
	n := tasks
	if maxConcurrent > 0 {
		n = min(n, maxConcurrent)
	}
	if maxSlots > 0 && slots > 0 {
		n = min(n, max(maxSlots/slots, 1))
	}
	return max(n, 1)
}

// Interactive reports whether a job of kind is interactive (sched.Job's
// Interactive: under quota it runs only within its project's quota and is
// never preempted): the interactive kinds (notebook, shell, tensorboard)
// are, unless the job is preemptible, which lets it go over quota and be
// preempted as training is (as in Run:ai). Snapshot entries
// (JobFacts.Entry: InteractiveIn of InteractiveKind), the master's
// what-if export and a scenario's default (scenario.DefaultInteractive)
// all follow it.
func Interactive(kind sched.Kind, preemptible bool) bool {
	return InteractiveIn(preemptible, InteractiveKind(kind))
}

// InteractiveIn is whether a job that is interactive outside the LOW
// class (outside: Interactive of its kind and its preemptibility outside
// LOW, or a scenario's explicit interactive) is interactive with
// preemptibility preemptible (PreemptibleIn): a preemptible job never is,
// so a move into LOW ends it, and one out of LOW gives it back.
func InteractiveIn(preemptible, outside bool) bool { return outside && !preemptible }

// Replannable reports whether a plan's preemption, move or resize of a
// task applies, replacing saying whether a move or resize of it is under
// way: one does not while the task checkpoints to restart on its new
// placement. A task cannot run in two places, so a re-placed task
// holds its old slots while it checkpoints (those the new placement
// does not keep drain, as Preempting and Moving in the snapshot), keeps
// its new placement reserved (running, in the snapshot, though it does
// no work) and restarts there, in the same attempt, when its
// checkpoint lands (Tasks.Replace, Tasks.Resume; the master's
// planner.replaceOp and restartOn). The core sees the reserved
// placement as a running task and may plan it again meanwhile; the
// live master cannot act on an attempt that is checkpointing, so the
// settle loop both drivers run (Settle) skips such an item and does not
// count it as a change (Settled), and the core plans again once the task
// runs on its new placement.
func Replannable(replacing bool) bool { return !replacing }

// HoldsThroughLoss reports whether a task on a node that is lost keeps its
// attempt for the lost-node grace (grace above 0) rather than ending at
// once: a task that must not run twice (its job is not preemptible) and
// has run (ran: its agent reported a part running), since its process
// may well still be running, or have ended with a status its agent will
// report when it is back. Requeueing it could run it twice; failing it at
// once would record a run that may yet succeed as failed. A task being
// killed ends at once.
func HoldsThroughLoss(grace time.Duration, preemptible, killing, ran bool) bool {
	return grace > 0 && !preemptible && !killing && ran
}

// GraceOver reports whether a node lost for lostFor has been lost for its
// grace: the tasks it held through the loss are lost then.
func GraceOver(lostFor, grace time.Duration) bool { return lostFor >= grace }

// Restartable reports whether a task re-placed by a move or resize
// restarts on the placement it reserved when its checkpoint lands:
// unless a node of it is down (lost since the move), when the task is
// requeued instead, as after a preemption, whatever its preemptibility
// (it never ran there).
func Restartable(anyDown bool) bool { return !anyDown }

// StartLost reports whether a task whose start no agent answered waits
// again (it never ran, so running it again cannot run it twice),
// whatever its preemptibility: the master's lost attempt that never ran.
func StartLost() bool { return true }

// InFairShareCapacity reports whether a node of a multifactor pool counts
// in the capacity that fair-share usage is a share of
// (sched.UsageShare): it does whether it is up, down or drained, so that
// a loss or a drain does not change what the accounts' usage is worth;
// only a deleted node leaves it (an admin's DELETE /nodes/{name}, the
// scenario's node_delete), gone for good, from its deletion until a node
// of its name registers again (node_up). The simulator measures usage
// against its scenario's nodes from the start (sim's chargedSlots) and
// sets the capacity again at a deletion and at a deleted node's return
// (Ledgers.SetCapacity); the master counts the nodes it has as it builds
// each snapshot (snapNodes), lost and drained ones included, and a
// deletion forgets the node; both count a node by FairShareSlots.
func InFairShareCapacity(deleted bool) bool { return !deleted }

// EndedJob is the state a job of tasks tasks ends in once every one of
// them has ended: failed if one failed, else killed if one was killed
// (its time limit; the master's kill of a task too), else completed. An
// experiment (experiment) ends completed once one of its trials
// completed (a trial its searcher stopped early completed), however the
// others ended, as Determined's experiment does: a trial that fails is
// one point of the search, which goes on without it; one none of whose
// trials completed ends as any job. Both drivers settle their jobs by it
// through their job records (JobRecord.Settles: the master's settleJob,
// the Cluster's Job.release), so that a job ends alike live and in
// simulation.
func EndedJob(tasks, failed, killed int, experiment bool) JobState {
	switch {
	case experiment && failed+killed < tasks:
		return JobCompleted
	case failed > 0:
		return JobFailed
	case killed > 0:
		return JobKilled
	}
	return JobCompleted
}

// LiveJob is the state of a job that has not ended, active of its tasks
// holding slots: running while one does, queued when none does (its
// tasks wait to start, or again after a preemption or a lost attempt).
// Both drivers settle their jobs by it through their job records
// (JobRecord.Settles): the master in settleJob, the Cluster as a task
// starts (Job.Launch) and as one lets go of its slots, however it ended
// (Job.release).
func LiveJob(active int) JobState {
	if active > 0 {
		return JobRunning
	}
	return JobQueued
}

// PastLimit reports whether an attempt that has run for ranFor since it
// first started (a move or resize continues the attempt, and its limit
// runs on) has reached its job's time limit, limit; 0 or less is none.
// The master kills a running or starting task by it (checkTimeLimits,
// its durations); the Cluster ends an attempt at the first second at
// which it holds (Task.Due, its seconds), unless its work is done
// before, and not before it runs again after a move's checkpoint, as the
// master's check, which passes over a checkpointing task, kills it once
// it runs again.
func PastLimit[D ~int64](ranFor, limit D) bool { return limit > 0 && ranFor >= limit }

// LostRequeues reports whether a task whose attempt was lost (its node
// lost, or its agent not running it) waits to be rescheduled rather
// than failing: a task of a preemptible job, which may run twice, or one
// that never ran (ran false: no agent answered its start, StartLost),
// whatever its preemptibility; any other must not run twice and fails. A
// task being killed ends killed instead (the master's killing; the
// Cluster's, killing.go's kills.end), and one held through its node's loss
// (HoldsThroughLoss) ends so only when its grace is over. A task that
// waits again does so by its job's exit actions (ExitRequeues). The
// master ends a lost attempt by it (endAttempt) and the Cluster a lost
// one (Job.Lost) and a start lost (EventStartLost), both through
// Ending.Decide of EndLost (outcome.go).
func LostRequeues(preemptible, ran bool) bool { return preemptible || !ran && StartLost() }

// CheckpointsOnLoss reports whether the parts of a lost attempt that run
// on nodes still up (partsUp: a gang that lost one of its nodes) are
// asked to checkpoint, as a preemption asks (the pool's grace, SIGTERM
// then SIGKILL at the deadline), rather than killed at once: when its
// task waits to run again (waits: LostRequeues and ExitRequeues let it,
// Verdict.Waits) and it ran, so that the rank on a healthy node that
// writes the checkpoint (rank 0 of a torchrun job) saves the work the
// next attempt resumes from (trial 2026-11-29b B18). A task that fails
// (its job is not preemptible) has nothing to resume: its parts are
// killed. The master asks those parts and holds their GPUs, and the
// task's start, until they end (agents.stopLeft, strays); the Cluster
// keeps the work that checkpoint saves (Tasks.Lose), as a preemption's
// request does.
func CheckpointsOnLoss(waits, ran, partsUp bool) bool { return waits && ran && partsUp }

// ExitRequeues reports whether a task that did not end by itself (its
// preemption's checkpoint landed, or its attempt or start was lost and
// LostRequeues lets it wait again) is rescheduled by its job's exit
// actions rather than failing: not when the job says on_preempt: fail
// (failOnPreempt), nor once the task was rescheduled maxRetries times
// already (retries; maxRetries 0 or less is no cap). The Cluster decides
// by it and the master where a preempted or lost attempt of its ends,
// both through Ending.Decide (outcome.go), so that a task fails alike
// live and in simulation.
func ExitRequeues(failOnPreempt bool, maxRetries, retries int32) bool {
	return !failOnPreempt && (maxRetries <= 0 || retries < maxRetries)
}

// KillTo is what a kill of its job does to a task in state st, and
// whether it changes it: a task that waits (queued, preempted) ends
// killed at once; an active one is asked to stop (killing) and ends
// killed once its attempt has; one being killed already, or ended, stays
// as it is. The job itself ends killed at once. The master kills a job's
// tasks by it (jobsAPI.Kill: its agents end the attempts), and so does
// the Cluster: it leaves the active ones killing until its driver
// reports each end (EventKillEnded, killing.go) and drops the job's
// waiting tasks (Cluster.Kill).
func KillTo(st TaskState) (TaskState, bool) {
	switch {
	case st == TaskQueued || st == TaskPreempted:
		return TaskKilled, true
	case st.Active() && st != TaskKilling:
		return TaskKilling, true
	}
	return st, false
}
