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
//   - fair-share accounts (Collector.Accounts) form a tree; an account's
//     demand is its own jobs' (as a project's) plus its sub-accounts'. At
//     any moment the account capacity (AccountSlots) is split among the
//     top accounts with demand, and each account's entitlement among its
//     sub-accounts with demand and its own jobs (as one more member of 1
//     share, a user's leaf's), top-down, each split a weighted
//     water-filling: members get capacity in proportion to their shares,
//     none more than it demands, and what one does not need goes to the
//     others in proportion to their shares; members of 0 shares split
//     what the others leave, equally. So when every leaf demands the
//     whole capacity, a leaf is entitled to the capacity times its
//     normalised share (its share among its siblings, multiplied down the
//     path: sshare's NormShares); an idle account's entitlement goes to
//     its siblings first, and up the tree only when its whole parent is
//     idle, as Slurm's fair tree ranks siblings before cousins;
//   - Jain's index over accounts is taken over the accounts jobs charged,
//     with x their own jobs' slot-seconds received over entitled.
//
// Invariants:
//   - A Collector's memory grows with the number of projects (capped at
//     MaxProjects), with the accounts it was given (fixed for the run) and
//     with one fixed-size Sample per finished job, never with events; its time series has at most MaxBuckets buckets, however
//     long the run.
//   - Steady-state calls (Advance, Hold, Demand, Queue, Job, AccountHold,
//     AccountDemand, AccountSlots) allocate nothing beyond the amortised
//     growth of the sample slice. The accounts' integrals are taken when
//     a value changes, so Advance costs nothing per account; a change of
//     demand costs a recomputation that visits the accounts with demand
//     and their children's lists.
//   - Results are deterministic: projects are reported in order of first
//     appearance, accounts in the tree's order, and floating-point sums
//     are taken in event order.
package metrics
