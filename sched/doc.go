// Package sched is Allot's scheduling core: a snapshot of the cluster goes in
// and a plan comes out.
//
// A Snapshot holds the pools with their policies, the nodes, the jobs that
// still want to run (with how many of their tasks are waiting) and every
// running allocation, plus the current time as a plain number of seconds.
// Schedule turns it into a Plan: task starts with their placements,
// preemptions, and a Pending entry with a reason for every job that keeps
// waiting tasks.
//
// Invariants, which the tests check:
//   - The core does no I/O, reads no clock and keeps no global state. The
//     live master and the simulator call the same Schedule entry point.
//   - Output is deterministic: the same snapshot gives the same plan. Ties
//     are broken by submit time, then submission sequence, then ID, and
//     nodes by their index in the snapshot; no map is ever iterated.
//   - A plan never over-commits a node: starts only use slots that are free
//     once the plan's preemptions are applied, and a start that must wait
//     for a preempted task's checkpoint is reported as pending (a hold),
//     not as a start.
//   - A task larger than any node (a gang) is placed on whole nodes plus
//     one remainder, all or nothing, so two gangs can never deadlock;
//     nodes of one size first, else of mixed sizes. Feasible tells at
//     submit whether any set of a pool's nodes could ever hold a task.
//   - Non-preemptible tasks are never chosen as victims, and a victim is
//     only preempted (or, elastic, shrunk) when that makes the waiting
//     task fit.
//
// Each pool's policy is a declared list of stages (policies.go, declare),
// run by one driver (stages.go): runStages walks the pool's slot jobs as
// its order stage yields them and gives each a turn, in which the filter
// stage admits each task, placement (best fit or spread, place.go) tries
// free then draining slots, with consolidation and elastic shrinking, and
// the preempt stage makes room when that fails; a gate stage is told of
// each job that could not start. Zero-slot tasks and elastic growth come
// after the walk (in a priority pool growth also comes during it). The stages:
//   - order: FIFO, priority and multifactor are static (sorted once, a
//     turn runs all of a job's waiting tasks); fair-share deficit
//     (fairshare.go) and quota deprivation rounds (quota_rounds.go) are
//     dynamic, ranking again after every task placed, so a turn is one
//     task (quota then places borrowing work on the slots left idle);
//   - filter: quota limits, quota for guaranteed work, licenses; it may
//     admit a task to preemption alone (work over its project's limit
//     that takes the place of the project's own preemptible work), or
//     to a hold (within the limit only once the project's tasks being
//     preempted, whose GPUs count until then, are gone): such a task is
//     held wherever it is placed, never started (pass.hold);
//   - preempt: by priority, by QOS, above fair share, and quota's reclaim,
//     each with its guards, trying victims inside a statement that can be
//     rolled back (a task that fits one node empties the node whose
//     victims lose least, preempt_node.go);
//   - gate, what the jobs behind a blocked one do: nothing (fair share,
//     quota), wait behind it, serial, priority backfill on idle slots,
//     an EASY reservation, or conservative reservations, kept per node on
//     pools of multi-slot nodes (nodeprofile.go). Behind a job that gets
//     no reservation (a task it waits for has no time limit) both let
//     only jobs with a time limit pass (easyGate.backfill,
//     conservativeGate.untimedBehind).
//
// Every stage records why a job waits with the reason codes of reason.go,
// the first reason recorded winning. Each pending entry also carries its
// turn (Pending.Turn, turns.go): the job's place, 1..n within its pool,
// in the order the pool's order stage offered its jobs (a static
// order's sorted queue, a dynamic order's first turns), then zero-slot
// jobs, then jobs never offered; callers show it as the queue position,
// so that no driver derives the policy's order again. It reports only:
// no stage reads it. A new policy is a new stage list,
// plus at most one new stage. A Scheduler value keeps scratch memory
// (the stages included) between passes so that a steady-state pass
// allocates little; it holds no state that can change a result.
//
// Multifactor pools (Slurm's multi-factor priority) order jobs by
// Σ weight × factor, each factor in 0..1 (age, fair share, job size, QOS,
// pool) less the job's nice; higher runs first, ties by fair-share
// standing, then share, then submission. Fair share is S − U over a tree
// of accounts (classic) or Slurm's Fair Tree ranking. The core keeps no
// usage between passes: the caller passes each account's decayed usage
// (Account.Usage) and keeps it with Decay.Charge. Preemption there goes by
// QOS, never by the fair-share-driven number, so two jobs never preempt
// each other in turn; a QOS with Preempt (emergency) preempts even in a
// pool without preemption. PriorityFactors gives each job's breakdown.
//
// Licenses are cluster-wide counts checked by every policy: a task starts
// only with all its licenses free, preemption frees none, and EASY and
// conservative reservations count them (see License).
//
// Two stages apply across policies. Consolidation (consolidate.go) moves
// unattended preemptible tasks between nodes when a task fails to fit only
// because free slots are scattered; every moved task must be placed again
// in the same plan (Plan.Moves) or nothing moves. Elastic jobs (elastic.go,
// Job.MinSlots) start tasks at halved sizes when the full size does not
// fit, and double running tasks when the pool has spare slots
// (Plan.Resizes), in a priority or multifactor pool before strictly less
// important jobs start, by as much of the doubling as fits
// (elastic_ahead.go); in a fair-share pool their share counts in min_slots
// steps, and the fair-share preempt stage shrinks a grown task of a job
// above its share, in place, for a job below its share
// (fairshare_shrink.go), as quota reclaim shrinks one of a project over its
// quota, never below that quota, where no whole task may go, and work
// within quota shrinks one of its own project before evicting the
// project's work whole (quota_shrink.go). Moves and resizes keep the invariants above: the slots
// a moved or resized task leaves drain like a preempted task's, and its
// new slots are taken from free ones.
//
// A pass (pass, schedule.go) holds the snapshot, the planning state and
// the plan; the stage driver (runStages) and the plan's bookkeeping
// (commit, pending reasons) are its methods. The stages are structs of
// their own (policies.go), and so are its parts, each a struct
// that owns the scratch memory of one stage and that the Scheduler keeps
// between passes (passparts.go): victimLists (victims.go) the pools'
// victim lists with their facts, skip pointers and node index, and the
// preemption budget counts, and says which candidates a rule allows;
// preemptor (preempt.go) the statement of tentative evictions and the
// searches' scratch, and evicts, rolls back, trims and commits;
// consolidation (consolidate.go) the movers and targets of the
// consolidation stage, and what each node's movers can free, kept for the
// pass's later searches until one of the node's tasks is evicted
// (consfacts.go); licensePass (licenses.go) the license counts and
// profiles; nodeProfile (nodeprofile.go) conservative backfill's per-node
// profile, with the window view its gang searches move from moment to
// moment (nodeview.go); elasticPass (elastic.go) elastic task sizes and growth; and
// findMemo (findmemo.go) the placements that failed on the state as it
// is. The fair-share preemption stage keeps the same for its searches
// (shareFails, sharefails.go). A part reaches the pass, and through it the other parts, by a back
// pointer; its declaration says what it reads and writes. The planning
// state (state, state.go) indexes the nodes in groups of one pool, GPU
// type and size; what reads or writes one group's own indexes only (its
// switches' domains, topology.go; the free slots of its draining nodes,
// freeOnDraining) is the group's method, not the state's.
//
// Between passes a Scheduler keeps answers that a small change leaves
// mostly as they were, each checked so that it cannot change a plan: per
// Job.Rev a job's validation, whether it can ever fit and its place in
// the static queue orders (jobmemo.go); and the pass's long sorted lists
// (victim lists, consolidation's movers, multifactor queues, fair
// share's submission order, EASY's and conservative's releases:
// orderMemo, sortmemo.go), repaired from the previous pass's order and
// accepted only when strictly increasing, the one order a sort can give. Tests compare a warm
// Scheduler's plans after changes with a fresh one's.
package sched
