// Package metrics defines the standard scheduling metrics of a replay and
// computes them online, in memory bounded by the live state.
//
// Definitions (docs/metrics.md is the reference for users):
//   - wait = start − submit, for jobs that started;
//   - response (job completion time) = end − submit, for jobs that ended;
//   - bounded slowdown = max(1, response / max(run, 10 s)), where run is
//     the time the job held slots; for a job never preempted, response is
//     wait + run, which is the textbook formula;
//   - utilisation = slot-seconds held ÷ (slots × makespan);
//   - percentiles are nearest-rank: the smallest sample with at least p%
//     of the samples at or below it, so every reported value occurred;
//   - a project's entitlement at any moment is its max-min fair share of
//     the cluster: the slots are split equally among projects with demand,
//     no project is entitled to more than it demands, and what a project
//     does not need is split among the others (water-filling);
//   - Jain's fairness index over projects is (Σx)² ÷ (n Σx²), where x is a
//     project's slot-seconds received over its slot-seconds entitled.
//
// Invariants:
//   - A Collector's memory grows with the number of projects (capped at
//     MaxProjects) and with one fixed-size Sample per finished job, never
//     with events; its time series has at most MaxBuckets buckets, however
//     long the run.
//   - Steady-state calls (Advance, Hold, Demand, Queue, Job) allocate
//     nothing beyond the amortised growth of the sample slice.
//   - Results are deterministic: projects are reported in order of first
//     appearance, and floating-point sums are taken in event order.
package metrics
