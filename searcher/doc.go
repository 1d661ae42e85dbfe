// Package searcher decides, from the metrics that trials report, which
// trials of an experiment go on and which stop early: asynchronous
// successive halving (ASHA) and its adaptive variant, after Li et al., "A
// System for Massively Parallel Hyperparameter Tuning" (MLSys 2020), as
// Determined runs them.
//
// # Rungs and brackets
//
// A bracket with R rungs and reduction factor (divisor) η measures trials
// at the step lengths max_length/η^(R-1), ..., max_length/η, max_length.
// When a trial first reports the metric at or past a rung's length, its
// value joins that rung, and the trial goes on (is promoted to the next
// rung) only if it ranks in the top 1/η of the values the rung holds
// then; otherwise it stops at once. The first trial to reach a rung
// always goes on: ASHA never waits for a rung to fill, which is what lets
// it keep every GPU busy. This is the "stopping" form of ASHA that
// Determined runs: a promoted trial simply keeps training (from its last
// checkpoint, if it was preempted meanwhile) rather than pausing.
//
// Adaptive ASHA runs several brackets at once, from the most aggressive
// (max rungs, early stops from the first short rung) to the most
// conservative (fewer rungs, every trial trains longer before the first
// cut), and shares the trials among them in proportion to
// η^(R-1)/R, as Determined does: this hedges against a metric that is
// misleading early on.
//
// # Determinism
//
// A Search is a pure state machine: its decisions depend only on its
// Config and on the sequence of Observe calls. The master stores every
// metric report in arrival order and, after a restart, rebuilds each
// experiment's Search by replaying them, arriving at the same state and
// decisions without storing the searcher itself. Ties rank the earlier
// value first.
package searcher
