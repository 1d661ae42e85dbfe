// Package master is Allot's live scheduler: it keeps the state machine of
// jobs and tasks over the store, runs the scheduling core on events and on
// a tick, applies the core's plans through one applier, serves the REST
// API under /api/v1 (api/doc.go is the contract) and speaks the agent
// protocol. docs/master.md describes it for operators.
//
// # State
//
// The store is the truth. The master keeps a mirror of the live jobs (not
// terminal, or with tasks still holding attempts), their tasks and open
// attempts, and of the nodes, loaded from the store by New; a scheduling
// pass reads only the mirror. Every change follows one order: persist the
// transition (a compare-and-set in the store), then update the mirror,
// then act on it (queue a start, preempt or kill command for an agent).
// A mutex guards the mirror; changes to existing jobs and tasks take it
// across their store write, so the mirror and the store never disagree
// about a task. Job creation writes first, so that submissions
// group-commit, and then queues the job without taking the mutex: every
// holder of the mutex takes it through lock, which moves the queued jobs
// into the mirror first (submit.go), so a submission never waits for a
// batch's commit, and whoever reads the mirror after it was answered
// finds it. Submit-time feasibility reads a view of the nodes published
// under the mutex, dropped when a node registers or goes and on reload.
//
// # Types and locks
//
// Master owns the mirror and the transitions that change it over the
// store (state.go), the submission queue (subs, a submissions that owns
// its lock and the jobs queued; submit.go), the configuration and the
// loop. Two parts that the transitions call on every change own their
// state; they are named fields, not embedded, so that their methods stay
// out of the Master's method set (m.batches.touch, m.pub.markJob):
//
//   - batches, a batcher, opens, commits and undoes the batches
//     (batch.go); it owns the open batch.
//   - pub, a readPublisher, publishes the read view (readview.go); it
//     owns the view published and the jobs and nodes marked since.
//
// A restorer rebuilds the mirror from the store once, in New (restore.go,
// launchorder.go). The warnings of what becomes of the live jobs under a
// configuration, at start and at a reload, are jobsUnder's
// (reloadnever.go), over the jobs and the configuration judged. The Master's other parts each hold it and have one
// job:
//
//   - planner runs the scheduling passes by the settle loop the
//     simulator runs (lifecycle.Settler.Settle: the passes, the core,
//     the reservations carried, the plan as lifecycle.Decide's effects,
//     the skips of a re-placed task and of a preemption on a draining
//     node, lifecycle.Settled), as its Driver (settling, loop.go): at
//     one instant, the clock read as the settling begins and again only
//     after a handler changed a job or asked for a pass while the core
//     planned (settling), it builds each pass's snapshot from the mirror (snapshot.go), lets
//     the core schedule it with mu released (stale.go; builtFacts keeps
//     what the applier re-checks the plan against), and
//     applies the effects to the mirror (apply.go, moves.go: re-checked,
//     GPUs chosen, persisted in one transaction of the batch, then sent),
//     carries reservations into the mirror's jobs and stores them
//     (carriedReservations, reservations.go, which owns which changed
//     since they were stored), notes the pending reasons and the pass's
//     time (the wait ledger credits each pass: waitLedger.creditPass);
//     its own are also
//     the forecasts, preemption budgets and time limits (timeLimits,
//     timelimits.go: killed at the earliest deadline by the loop's
//     timer, and checked on the tick; every agent reply lists the
//     node's deadlines, and an agent's kill at one ends its task as
//     the master's own: agentlimits.go). Settle carries
//     no reservations on an idle tick's first pass; what the passes
//     leave (grew, reservations) is stored once they have settled.
//   - agents speaks the agent protocol: registration, syncs, the reports
//     and the transitions they drive, silent agents. Log uploads are
//     agentLogs' (agentlogs.go), a part over the same server.
//   - access authenticates requests, checks rights on jobs, limits rates,
//     audits, and serves users and tokens.
//   - history reads the store's past back for the what-if export and
//     the decision log, and prunes it past history_retention on the
//     tick (retention.go); it owns when it last pruned, and touches the
//     store only, never the mirror.
//   - storeHealth probes the store and answers /readyz and /healthz;
//     passHealth records whether the scheduling passes fail, which
//     /healthz, GET /pools and a metric report.
//   - Starting (starting.go) answers on the master's address before
//     there is a Master: while allot master waits for its database at
//     start, /livez 200 and everything else 503 with the cause; then
//     it hands every request to the Master's handler.
//   - jobsAPI and clusterAPI serve the rest of the REST API; they embed
//     server (the Master and how a failure is answered) and hold no state.
//     A job's logs (jobLogs), its metrics (jobMetrics) and GET /jobs's
//     query (jobsQuery) are jobsAPI's parts, named fields over the same
//     server, so that their methods are not jobsAPI's.
//
// Master.mu guards the mirror, the configuration, the fields of batcher
// (the open batch), of readPublisher (the marks) and of planner; the
// transitions run only with it held, and the handlers take it (through
// lock) to change the mirror or read what the read view does not hold.
// It is released through unlock, which first publishes the read view
// (readview.go). planner.passMu serialises the
// scheduling passes (Step takes it, then mu; mu is never held while it
// is taken): a pass builds its snapshot with mu held, releases mu while
// the core's Schedule runs, the CPU-heavy part of a pass, and takes it
// again for the rest: pending reasons, reservations, the plan's apply
// (stale.go). Meanwhile the handlers change the mirror as they always
// do, but for node events (a drain, resume or deletion, an agent's
// registration or goodbye, the tick's losses) and configuration
// reloads (whose node rules move nodes and change labels), which take passMu
// before mu and so wait for the settling in flight (betweenSettlings):
// a node changes between settlings only, as the what-if export orders
// it; none of them writes what Schedule reads (the snapshot, the
// planner's view, the job entries the snapshot copies, the fair-share
// accounts: only a pass writes them, and no slice or map the snapshot
// holds is changed in place), and those that read the last snapshot
// (explain and its play-out's copy: explainahead.go, sshare, the
// forecast's copy, a dry run's copy: dryrun.go) only read it.
// The other locks guard one thing each: submissions.mu the submissions
// queued for the mirror, agents.syncMu the syncs queued for the next
// batch, storeHealth.mu the store's health. Each may be taken with mu
// held or without it, but mu is never taken while one is held, so that
// none of them waits for a batch's commit. access's credential cache and
// rate limits have locks that are never held with any other. cfgNow, the
// feasibility view and the read view are published atomically for
// readers that do not hold mu.
//
// The read view is an immutable picture of the live jobs, the nodes, the
// configuration and the forecasts, published at each release of mu and
// when lock admits submissions (under the queue's lock, so that a
// reader, which takes that lock to load the view and the queued
// submissions, finds a job it was answered about in one or the other). GET /jobs (and its pages),
// /jobs/{id}, /nodes, /pools, /projects, /metrics and the checks of a
// job's owner and of a named node answer from it without mu, so they
// never wait for a batch's commit. As mu is released only once a batch
// has committed or been undone, the view never shows a change that a
// failing batch puts back. Every change of a job or node marks it (touch
// and touchNode mark, batch or not; hold and release mark the nodes; the
// few other changes mark by hand), and a publish captures only the marked
// ones, into a persistent trie of per-job records (jobtree.go) that
// shares everything else with the previous view. The package's tests
// compare every release of mu with a view built from the whole mirror.
//
// Store commits still happen with mu held; the core's Schedule does not
// (settling.Build releases mu, settling.Scheduled takes it again), so
// agent syncs, kills and priority changes wait for a pass's build and
// apply only, not for its plan. A plan is therefore made from a snapshot
// the mirror may have left by the time it is applied. The applier
// re-checks every effect against the mirror as it is then (see
// Invariants) and skips what no longer holds; what a fresh plan would
// decide otherwise for a reason the re-checks do not see (another job's
// priority changed, a task ended and freed GPUs, a job was submitted) is
// accepted optimism, as in Nomad's plan applier: every such change kicks
// another pass, which plans with it.
//
// # Batches
//
// The reports of agent syncs, the transitions of a scheduling pass with
// the job states they imply, and a node's loss with the attempts it ends
// are stored in batches (batch.go): one store transaction, one commit. A sync queues its reports and then takes
// the mutex; whichever sync takes it first stores the reports of every
// sync queued by then (reportbatch.go), so the syncs that arrive while a
// commit is in flight share the next one. Within a batch the mirror
// changes as each transition is written into the open transaction, so
// that later reports of the batch see earlier ones (a running report and
// an exit of one task apply in order), but every act waits for the
// commit: commands for agents, acknowledgements of reports, usage
// charges, a searcher's verdicts. When the commit fails, the batch puts
// back every job and node it touched, as saved before it changed them,
// and drops its acts: no sync is acknowledged, no command goes out, and
// the agents send the same reports again. (A batch that fails is tried
// again one sync at a time, so that one sync that cannot be stored does
// not hold up the others.)
//
// The mutex stays held across the batch's commit. That is what makes the
// undo sound: nothing else reads or changes the mirror between a batch's
// first change and its outcome, so nothing can act on a state that is not
// durable, nor change a job that the undo then overwrites (a pass starting
// a task on the GPU of an exit not yet stored, a kill of a task whose
// start may yet be rolled back, an agent timeout ending an attempt that a
// sync in flight reports on). The cost is one commit per batch, however
// many syncs it holds, not one per report; committing outside the mutex
// would need every other change of the mirror to wait for, or be undone
// with, the batches in flight.
//
// # Invariants
//
//   - A command is queued for an agent only after the transition that it
//     carries out is durable: starting before start, preempting before
//     preempt, killing before kill. An agent's report is acknowledged
//     only after what it changed is durable.
//   - A batch that fails leaves the mirror as it was before the batch.
//     So does one that the store fences because another master took the
//     PostgreSQL database over (store.ErrFenced, store/doc.go): nothing
//     of it is written, and the process stops on store.LockLost
//     (cli/master.go), never writing beside the other master.
//   - The applier re-checks every plan item against the mirror (task still
//     queued, victim still running or starting, node still up, GPUs still
//     free) and the store's compare-and-set checks it again; an item that
//     fails either is skipped, never half-applied. As the core plans
//     without mu, the applier also checks what changed since the build
//     (stale.go): a plan made before a configuration reload is not
//     applied at all (a guard: a reload waits for the settling in
//     flight); a job that left the mirror or was changed (a PATCH)
//     is neither started nor has its tasks preempted, moved or resized,
//     nor a reservation stored; a victim must still run the attempt the
//     snapshot showed; a node must still be the mirror's (not deleted),
//     not registered again and not newly draining to take a placement.
//     So a stale plan never starts a task on a GPU in use or on a node
//     gone, starts a killed job, preempts an ended task, or leaves the
//     mirror and the store apart (TestStalePlanRechecked,
//     TestPassesRaceHandlers).
//   - Concrete GPU indexes are chosen by the master, lowest free first; a
//     GPU is held by at most one open attempt.
//   - A task on several nodes (a gang) gets one start command per node,
//     with NodeRank/NodeCount; it is running once every part reports
//     running, and its attempt ends when every part has exited. A failed
//     part has the others killed. A part its agent could not start (an
//     exit, failed, before any running report) ends the task as
//     lifecycle.StartFailed says, failed and never rescheduled, the rule
//     the simulator's EventStartFailed follows; its reason starts "could
//     not start", which the what-if export reads back as start_fails.
//   - A preempted attempt ends preempting → preempted → queued in one
//     transaction; the task keeps its checkpoint directory and its restart
//     count grows.
//   - Job states follow their tasks: running while one holds an attempt,
//     then completed (all completed), failed (any failed) or killed.
//   - Snapshot.Now and every persisted time come from Options.Clock.
//   - The snapshot's allocations and drained nodes are built by the
//     functions the simulator's lifecycle.Cluster builds its own by
//     (snapshot.go): a task's allocations by lifecycle.Hold (Fill or
//     Alloc, and Replaced for a task being moved or resized: its new
//     placement and what of the old drains), a drained node's capacity
//     by lifecycle.CapDrained, a job's entry by lifecycle.JobFacts.Entry,
//     and the snapshot's jobs are a lifecycle.Roster's entries, as the
//     Cluster's are (roster.go): each job in the snapshot has a record,
//     its entry is updated in place when it changes (its waiting count
//     at the build, a PATCH, its carried reservation by Roster.Reserve
//     at the build after the plan) with a new Rev by the Roster's one
//     rule (Revise), jobs that left the mirror leave it lazily, and a
//     change of the configuration or of the account tree rebuilds it in
//     id order. Only the pass writes it: handlers note what they change.
//     The master's own are what it reads them from: which nodes are up (a
//     lost node is left out), an attempt's parts and GPUs and those a
//     move or resize in flight reserved (mtask.next; what drains is
//     lifecycle.Replacement.Split's, by its kind), the
//     launch order (launchorder.go) and a job's facts (snapJob: its
//     record and job file resolved against the configuration, -1 for a
//     project or account no longer configured).
//   - A restart changes no decision: what the snapshot orders by (the
//     launch of each open attempt, the last preemption of each task, the
//     first start a moved attempt continues) is read back from the event
//     log, whose order is the order the master stamped them in, and the
//     carried reservations from the store (launchorder.go,
//     reservations.go), whether an elastic job was ever scheduled
//     (planner.grew, stored as store.MarkGrows; loop.go, restore.go), and
//     each task's requeues, which its exit actions cap (mtask.Retries,
//     counted from the event log).
//
// A preempted task whose checkpoint landed, and a lost one that would be
// requeued, waits again unless its job's exit actions (on_preempt,
// max_retries: its job file's, else its pool's) fail it, by the
// simulator's rule (exitactions.go, lifecycle.ExitRequeues).
//
// Agents that stay silent longer than the configured agent timeout are
// marked lost, and their attempts end as lost: preemptible tasks (and
// tasks whose start never reached their agent) are requeued, others fail
// with the reason, or
// are held for lost_node_grace first (lifecycle.HoldsThroughLoss and
// GraceOver, the rules the simulator's lost nodes follow). A start that
// reached its agent counts as run there (mtask.mayHaveRun): the agent may
// have started the process and frozen before reporting it, so a task
// that must not run twice is not started elsewhere meanwhile. How a lost
// attempt ends its task is decided by lostEnd (exitactions.go), which
// the notes of the tasks held on gone nodes follow too (lostview.go,
// from the read view's records of the job's exit actions and each
// task's requeues), so that a note cannot promise what the end does
// not do. A start its
// agent neither runs nor reports on is given up after two syncs and the
// start grace, and the task requeued (lifecycle.StartLost; the what-if
// export writes it as start_lost). An attempt that ran and that its
// agent no longer runs when it registers again is lost by the same rule
// as on a lost node (the export writes it as lost,
// lifecycle.EventAttemptLost). After
// a master restart every agent must register again (its first sync gets
// 404), which reconciles what it runs with what the store says.
//
// An agent that shuts down says goodbye (leave.go): from its first sync
// with Leaving the node counts as draining (mnode.leaving), so nothing
// more is placed there, not even the tasks its preempted exits requeue;
// its Final sync, which carries its last reports and lists nothing
// running, marks the node left (store.NodeLeft) at once instead of lost
// at the agent timeout, and the node stays registered so that a repeat
// of that sync is acknowledged. A left node is not up: it takes nothing
// until it registers again. A registration says whether its agent
// leaves (api.Register.Leaving): the leaving agent, registering again
// when its sync gets 404 (after a master restart, or a loss of the
// node), says so, and the leave goes on, or starts, recorded
// (store.NodeLeaving), where the master did not know of it (the node was
// lost meanwhile); an agent that registers without saying so before the
// Final sync (a new agent process that found its tasks running) ends the
// leave, its node never down: the node takes tasks again, unless an
// admin drained it, and the node history records the leave's end
// (store.NodeStayed) for the what-if export. An admin's resume during a
// leave lifts the admin's drain only: the node drains until the leave
// ends. A master restarted during a leave reads it back from the node
// history (restoreLeaves: a goodbye with no end after it, its node up),
// so that no pass places work on the node before its agent is heard
// again, which the what-if export, draining the node from the goodbye,
// does not either; the agent's registration then keeps or ends it as
// above. An attempt still open on it at the leave (a
// gang's, whose other parts run on) ends then as at a loss of the node,
// and the what-if export writes the leave as node_down (by then the
// node's attempts ended as reported, preempted by the agent, which the
// export writes as their jobs' agent_preempted, whatif_leave.go: the
// simulator finds nothing there to lose but such a gang).
//
// An agent that registers again with another inventory (other GPUs, GPU
// type, labels or pool) changes its node in place (reshape.go): the
// attempts it still runs keep running on their GPUs, and every GPU they
// hold counts against the new ones until they end (the snapshot's
// max(GPUs, held), lifecycle.NodeSlots, which lifecycle.EventNodeReshape's
// floor applies too); fair share measures usage against the nodes' own
// GPUs (lifecycle.FairShareSlots). The registration logs a
// warning and is kept in the node history (store.NodeReshaped, in its
// transaction), which the what-if export writes as node_reshape
// (whatif_reshaped.go). So is a node that a reload's node rules move to
// another pool or give other labels (store.MoveNodes, from
// store.NodeReconfigured to store.NodeRelabeled, with the labels in
// effect; relabel.go): the reload records every move and relabel in one
// transaction before it swaps the configuration in, and a failure swaps
// nothing in.
package master
