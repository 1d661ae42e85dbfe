// Package lifecycle holds what happens around a scheduling pass that the
// master and the simulator both need: the decayed usage that fair share
// reads (Usage), the preemption budget's count of recent preemptions
// (Budget), the bookkeeping of consolidation moves and resizes (Replace),
// the table of task attempts and how their work progresses (Tasks), each
// job's count of its tasks and the state that follows (Job; a fresh
// task starts with its job's work or its own, Submission.Works), the live
// jobs with their snapshot entries (Roster, which the master keeps its
// snapshot's jobs in too: its Revise gives a changed entry its Rev and
// its Reserve carries a reservation into an entry, for both drivers), a
// plan's effects in the
// order a driver applies them (Decide, Settled, KeepReservations), the
// settle loop both drivers run (Settler.Settle, settle.go: passes until
// Settled, reservations carried, Decide's effects less those that apply
// to nothing, handed to a Driver that builds each pass's snapshot from
// its own state and applies the effects to it: the Cluster's records,
// the master's store-backed mirror, or a dry run's copy of the master's
// snapshot), and the owner of jobs, roster,
// tasks, usage and budgets (Ledgers) with their transitions and the
// snapshot they give (Cluster), which settles an instant itself
// (Cluster.Step: Settle with the Cluster's stepper as the Driver and the
// pure shortcuts of shortcuts.go as its hooks, each effect applied and
// told to the driver's Applier, each pass's effects first resolved and
// stored by a driver that is a Persister, persist.go) and takes events (Cluster.Observe: a submission; a
// task ended, stopped from outside, its start failed, its checkpoint
// landed or its agent preempted it, each by version; a kill, and its end,
// which the driver reports (killing.go); a priority, weight, time limit, QOS or nice change; a node going down or
// coming back; a tick), finishing a job whose tasks have all ended, that
// was killed or that has no tasks. It is growing into the cluster's
// state machine of issue 13 (docs/architecture.md says where it
// stands). It owns the one vocabulary of task and job states
// (TaskState, JobState in states.go), which the master persists (package
// store's states are these) and the simulator names in its results.
// rules.go holds the rules the master applies with its own records and
// the Cluster with its own (when an instant is settled, OneShot and
// Grows; carrying reservations, Reservations; which waiting task resumes
// first, ResumesBefore; a re-placed attempt's last checkpoint,
// LastCheckpoint; which plan items apply to a task being re-placed,
// Replannable; which tasks of a lost node are held for the grace and
// until when, HoldsThroughLoss and GraceOver; whether a lost gang's parts
// on nodes still up checkpoint, keeping its work, CheckpointsOnLoss (those
// parts then hold their slots, and the task, until they land:
// Tasks.Leave, EventLeftLanded); whether a re-placed task
// restarts where it reserved, Restartable; how a start no agent answered
// ends, StartLost; whether a lost attempt's task waits again or fails,
// LostRequeues; whether a preempted or lost task waits again by its
// job's exit actions or fails, ExitRequeues; the state a job's tasks put it in, EndedJob once all
// have ended and LiveJob before; whether an attempt has reached its time
// limit, PastLimit; what a kill does to each task of its job, KillTo;
// what a job is in its priority class, PreemptibleIn,
// PreemptibleOutsideLow, Borrows and InteractiveIn; how many of a job's
// tasks may run at once, MaxRunning, and whether it is interactive,
// Interactive; which nodes the fair-share capacity counts, down and
// drained ones too, deleted ones not, InFairShareCapacity), so that the
// two drivers cannot drift apart on them; entry.go builds a job's
// snapshot entry for both (JobFacts.Entry: the facts each driver
// resolves from its own model of a job, the master's store record and
// job file in snapJob, the simulator's JobSpec in snapEntry, and the
// rules above applied to them once) and says what a change of priority
// class makes a job (Class.In, the simulator's ClassRule); nodefacts.go
// builds a node's snapshot entry for both (NodeFacts.Node: the facts
// each driver resolves, the master's node record, agent labels, node
// rule and pool in snapNodes, the simulator's scenario or trace node and
// reshaped shape, with the rules applied once: its slots less those
// held outside the snapshot (the master's strays and jobs left out,
// NodeFacts.Outside), floored by what its allocations hold, a drained
// node's what they hold, NodeSlots, which
// the Cluster's floorHeld applies too; the rule's labels over the
// agent's, NodeLabels; the switch from its SwitchLabel label; the
// default zero-slot limit, ZeroSlotLimit) and says what a node adds to
// the fair-share capacity (FairShareSlots, by InFairShareCapacity), which
// both count by; holds.go
// builds the snapshot's allocations and drained nodes for both (Hold: a task's allocation,
// Fill and Alloc, with a preempting one's deadline for the forecast,
// FreeBy: its stop request plus its grace, the master's pool grace, the
// Cluster's what its driver promised by Tasks.Stopping; how a move or
// resize splits it into its new
// placement and what drains, Hold.Replaced, which Replacement.Split
// applies for both; CapDrained: a drained node shrunk to what its allocations hold),
// the master from its attempts (master/snapshot.go), the Cluster from
// its task records (Task.Alloc, Snapshot, nodes.go); attempt.go is the
// record of an attempt's scheduling facts that both drivers' records
// embed (Attempt: first start, last resumption, backfilling, stop
// request and grace), changed by its transitions (Launch, Continue,
// Ask, Replace, Resume) and made into a Hold by Attempt.Hold;
// replacement.go is the record of a move or resize in flight that both
// drivers keep (Replacement: kind, since, for whom and why), reserved,
// asked, split into the snapshot's holds, weighed at the landing and
// ended by its methods (Reserve, Replacing, Split, Landing, Unreserve);
// Cluster.Fail (fail.go) ends a task that failed on its own, and
// StartFailed says how a task whose start failed ends, for the master
// and for EventStartFailed alike; outcome.go decides, once for both
// drivers, what any attempt's end does to its task (Ending.Decide: how
// it ended, whether it was being killed, re-placed, preemptible, ran,
// and its job's exit actions, give a Verdict: the attempt's end state,
// the task's, what follows a preemption at once, and whether the exit
// actions failed it), which the master applies in its transitions
// (master/agents.go finish, endAttempt) and the Cluster in its records
// (outcome, Job.end, Job.Lost, Fail). The core
// (sched) keeps nothing between passes; these types are what its callers
// keep, written once so that a live cluster and a simulation of the same
// events put the same numbers in their snapshots.
//
// Invariants:
//   - Pure: no I/O, no wall clock, no goroutines, no globals. Times are
//     int64 seconds passed in by the caller (the master's Unix time, the
//     simulator's virtual clock); the same calls give the same results,
//     to the last bit.
//   - Usage is accounted per period, as seed 003 counts it per day: what
//     is used during a period counts in full until the period ends, and
//     at each period's end all usage so far decays once (sched.Decay's
//     factor over one period). Periods are aligned to time 0. A charge
//     does not depend on how it is cut up: one record of an hour and six
//     of ten minutes give the same usage, so the master (records every few
//     minutes) and the simulator (charges at each event) agree.
//   - Sums over keys go in one fixed order (the keys' order), so totals are
//     reproducible whatever order keys were added in.
//   - A Budget counts an event at time e while e > now − window.
//   - A re-placed task (Replace) keeps nothing of its old placement after
//     a move, and on each node up to its new slots after a resize; what it
//     does not keep drains (Drain), and only a move charges the budget.
//   - A task that a move or resize re-placed (its Replacement, the
//     record the master keeps of one in flight too, Replacing) holds its
//     new placement reserved and its draining record (Task.Drain, the
//     only Moving record for it) until its checkpoint lands; it does no
//     work and nothing is promised of it but that landing, which frees
//     the draining record and restarts it (Cluster.Landed); Settle
//     applies no preemption, move or resize of it meanwhile
//     (Replannable), for either driver. A kill puts it back on its old
//     placement, killing until its end, and frees the rest of both
//     (kills.replaced); its end or a node lost under its old placement
//     frees both; a node of only its new
//     placement is left to the landing, which requeues it (Restartable).
//   - A task's version changes with every promise made about its future
//     (its end, a checkpoint landing); an outcome reported for another
//     version is stale (Tasks.Current), whoever reports it.
//   - A task record is reused only after Tasks.Sweep, once the running
//     list no longer names it.
//   - A task record holds slots exactly while its State is active: running,
//     preempting from its checkpoint request (a Moving record, always)
//     until the checkpoint lands, or killing from a kill (a user's, a
//     time limit's) until its driver reports the end, EventKillEnded
//     (killing.go; the simulator at once, or KillAfter later). It then
//     ends completed, killed, preempted or failed (Retire), and stays so
//     until it is reused. Its job is live until its State is terminal
//     (Finish), and holds no slots then but those of its killing tasks,
//     which keep it on the roster until they end, as the master keeps a
//     killed job's killing attempts in its snapshot.
//   - A task record's State changes only along the task graph that the
//     master's store checks (TaskEdge; graph.go maps the records' fewer
//     states to the master's), each change through Tasks.set.
//   - A node that is down (EventNodeDown) offers no slots, and no record
//     holds slots on it but the tasks held through its loss
//     (HoldsThroughLoss, with a LostNodeGrace), which no snapshot
//     allocation shows there: its loss freed the others, each task rolled
//     back to its last checkpoint and waiting again or failed, and the
//     end of its grace (EventGraceOver) frees the held ones so (nodes.go).
//   - A drained node (EventNodeDrain, until EventNodeResume) takes no
//     start, and what it holds never grows: each pass sees it shrunk to
//     what its allocations hold there; Settle applies no preemption of
//     a task on it (nodes.go; the master's draining node alike).
//   - A node reshaped (EventNodeReshape) keeps what its tasks hold: each
//     pass sees it with at least the slots its allocations hold there,
//     and its own new slots once they fit (reshape.go, NodeSlots; the
//     master's max(GPUs, held) alike); one moved to another pool keeps its tasks,
//     its down or drained state and what they hold, in the new pool.
//   - Every field of a job's snapshot entry is made in one place,
//     JobFacts.Entry, from facts its driver resolved (indexes, -1 for
//     no project or account); a preemptible job is never interactive.
//     A node's entry likewise, NodeFacts.Node: a node that is not
//     drained offers at least what its tasks hold, never less than its
//     own slots.
//   - The states' values are never renamed: they persist in the master's
//     database and name states in the master's API.
//   - Step's shortcuts (the FIFO window, skipped passes on a full cluster
//     and at quiet instants) change no plan's outcome, only how many
//     passes it takes; StepOptions.NoShortcuts turns them off to compare.
//   - Step tells the Applier of each effect right after applying it, in
//     Decide's order, before the next effect: the task record then shows
//     the state that effect left.
//   - A Persister sees each pass's effects before Step applies any of
//     them, resolved to what applying them does (Effect.Launches, a
//     start's or a preemption's Slots, First; Step fails where a start
//     launched another task). A pass it refuses is not applied, nor
//     its reservations carried: Step returns its error, the instant's
//     earlier passes applied, and the Cluster is as the pass found it
//     but for what the pass's build compacted (records of ended jobs
//     and retired tasks made reusable, as any build does), and a later
//     Step runs the instant again.
//   - Settle asks its Driver whether to skip an effect before it applies
//     any of the pass's plan; since the core names an allocation in one
//     item at most, the answers are those it would get in between.
//   - The types are not safe for concurrent use; their owner serialises.
package lifecycle
