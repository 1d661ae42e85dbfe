// Package decisionlog writes the scheduling decisions of a run as a
// canonical log, one line per decision, so that two drivers of the same
// core (the live master and the simulator) can be compared byte for byte:
// the master's event log and a simulator result are each turned into
// Decisions and written by the one Format here.
//
// A line is
//
//	TIME KIND JOB [task=I attempt=A] [nodes=NODE:SLOTS,...] [how=HOW]
//
// TIME is whole seconds from the run's time 0 (a live time is truncated
// toward zero, as the what-if export truncates submissions); KIND is
// start, preempt, move, resize, kill or end; JOB is the job's name in the
// what-if export (jID-NAME); I numbers the job's tasks from 0 and A a
// task's attempts from 1. start, move and resize name the nodes the
// attempt holds afterwards, preempt those it holds when asked to stop,
// each node with its slots, sorted by node name; end says how the attempt
// let go of its slots (completed, preempted, killed, timelimit, failed).
// kill is a job killed from outside (a user, a scripted event) and names
// no task; the ends of its attempts follow as their own lines.
//
// Invariants: Format's output depends only on the set of decisions, not
// their order: lines are sorted by time; within one second in the order
// its decisions cause each other (a job's kill; ends that let go of
// slots, by completion, failure, kill, time limit or loss; preemptions;
// moves and resizes; the ends of preempted attempts, whose checkpoints
// landed; starts), an attempt's own lines keeping the order it lived them
// (start, preempt, move, resize, end; so a start that failed at once
// comes before its end); then by job, task, attempt and kind. Which of
// two things came first within a second is not in either log, so this
// order is the likely cause's, not a record of it. Parse reads a line
// back; Timing tells the seconds where two logs differ only by that
// order (a live task placed before an end of its second was heard of,
// and moved or resized within it) from the others. The package has no
// dependencies beyond the standard library, so that both drivers can
// use it without a cycle.
package decisionlog
