// Package sim is Allot's discrete-event simulator. It replays a workload
// (a scenario file or a trace) on a virtual clock through the scheduling
// core's one entry point, sched.Scheduler.Schedule, the same call the live
// master makes.
//
// The loop: pop every event due at the current time (trials' metric
// reports first, then scripted task failures (JobSpec.Fails, fail.go),
// then scripted stops (JobSpec.Stops, ended as a searcher's stop is, the
// attempt killed), then failed starts (JobSpec.StartFails, pushed at the instant of the
// start), then task ends and time limit kills, then finished
// checkpoints, then the ends of kills that took their time
// (JobSpec.SlowKills, lifecycle.EventKillEnded), then attempts their agent preempted as it shut down
// (JobSpec.AgentPreempted, agentstop.go), then starts given up (JobSpec.StartLost) and attempts
// lost on nodes that stay up (JobSpec.Lost), then
// submissions — settling first before a job marked
// AfterPass, as a live master that ran a pass between it and what came
// before it in the same second, and observing just before a job the
// scripted events that name it in Event.Before (before.go) — then
// scripted events (settling first
// before one marked Event.AfterPass, alike), the ends of
// lost-node graces (Input.LostNodeGrace) and wake-ups), each
// told to the lifecycle.Cluster as an event (Observe: a submission, an
// end, a landed checkpoint, a searcher's stop, a failed or lost start,
// an agent's preemption,
// a kill, a priority, weight, time limit, QOS or nice change, a node going down or coming back
// or its grace running out, a tick; a scripted failure by
// Cluster.Fail), the ends scripted to come after the instant's
// settling (JobSpec.EndsAfterPass) held back until its first settling
// (endafterpass.go), then
// settle the cluster (lifecycle.Cluster.Step: passes, each plan applied,
// until a pass changes nothing), reacting to each effect it applies with
// the metrics and the events it promises (Applied), then advance the
// clock to the next event. When every pool runs FIFO or backfill, which schedule once
// per event as the textbook algorithms do (and no job is elastic), the
// pass that would only confirm a plan without preemptions is skipped:
// FIFO and EASY plans are maximal, and conservative backfilling
// compresses its reservations once per event, as the textbook does (a
// test replays traces with the confirming pass forced on and finds the
// same results for all three).
//
// LoadWorkload reads a scenario or a trace (SWF or GPU job CSV, streamed
// by the trace package) and opens fresh replays of it, each under its own
// Settings (a preset such as fcfs, easy or conservative, or an option
// set). The metrics package computes the results' metrics as the run goes.
//
// The types: sim (engine.go) runs the loop, handles the events and
// reacts to each effect Step applies (apply.go). It embeds world, the
// simulated cluster at the current time (the clock, the queue of events,
// the lifecycle.Cluster and the simulator's job records beside it),
// whose methods push what a change promises (a scripted failure or
// loss, fail.go; a trial's next report, search.go; a wake-up), and feed,
// the job source's one-job lookahead, checked against the input as it is
// read. Two parts are named fields, not embedded, so that their methods
// are not the sim's: ends, a scriptedEnds, applies the scripted ends of
// attempts as they come due (fail.go, agentstop.go), and held, the
// heldEvents, keeps the scripted events that wait for a submission
// (before.go). recorder (result.go) gathers the metrics, timeline and
// results.
//
// Invariants:
//   - Determinism: the same input gives byte-identical results. Events at
//     equal times are ordered by kind and then by a sequence number.
//   - No lost work: a preempted task keeps the progress it made up to the
//     preemption request, or with JobSpec.CheckpointEvery up to its last
//     periodic checkpoint; it holds its slots for the pool's checkpoint
//     cost, its attempt ends FAILED_PREEMPTED, and by its job's exit
//     actions it is rescheduled (keeping its job's submit time, so it
//     queues ahead of later work) and resumes with only the remaining
//     work, or it fails.
//   - Quota: the input's projects and each job's project, interactive
//     flag and borrowing reach the core unchanged; a job in a quota pool
//     always names a project of the input.
//   - Every part of a plan is applied: starts, preemptions, moves and
//     resizes (a moved or resized task checkpoints for the pool's cost,
//     holding its new placement and the slots it leaves, and resumes on
//     the new placement when the checkpoint lands, move.go), but for
//     those naming a task whose re-placement has not landed
//     (lifecycle.Replannable), as the master skips them. An elastic task's
//     work is Duration × Slots slot-seconds, done at the slots it holds
//     (elastic.go).
//   - State the core leaves to its caller is kept here and passed in each
//     snapshot: each account's decayed usage, accounted per decay period
//     (fairshare.go), and each budgeted project's preemptions and moves in
//     the last hour (thrash.go), both kept by package lifecycle, which the
//     master uses too. When a thrash
//     guard lifts, a wake-up event runs a pass then.
//   - A task runs at most its time limit per attempt and is killed there.
//     A kill (its time limit's, or a kill event's) frees its slots at
//     once, but for an attempt whose kill took its time live
//     (JobSpec.SlowKills), which holds them, killing, until its end.
//   - A node that is down (a node_down event) offers no slots until it is
//     back; the attempts on it ended FAILED_NODE_LOST, each task back to
//     its last checkpoint and rescheduled or failed as the master's lost
//     tasks are (lifecycle's nodes.go), but for those held through the
//     loss (Input.LostNodeGrace), which fail when the grace runs out
//     with the node still down.
//   - A drained node (a drain event, until resume) takes no new task and
//     loses none to a preemption; its tasks run on (lifecycle's nodes.go).
//   - A node reshaped (a node_reshape event) keeps its tasks, and is
//     never seen with fewer slots than they hold (lifecycle's
//     reshape.go); fair-share usage is a share of its new slots, in
//     the pool it is in then (one moved, Event.Pool, keeps its index,
//     tasks and down or drained state).
//   - An experiment with a searcher (JobSpec.Search) is judged by the
//     master's searcher.Search, fed each trial's reports in the order
//     they happen; a trial it stops ends at once and frees its slots
//     (search.go).
//   - Nothing read is dropped silently: trace records that cannot be
//     replayed are counted by reason in the result.
//   - Memory is proportional to the live state (queued and running jobs):
//     job and task records are reused after a job finishes. Only what the
//     caller asks to record grows with the workload (per-job results, the
//     timeline), plus one fixed-size metrics sample per job.
//   - In steady state, handling an instant allocates nothing (except that
//     a job of a multifactor pool has its priority computed once, at its
//     first start, for its result).
package sim
