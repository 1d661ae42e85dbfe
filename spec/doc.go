// Package spec is the cluster spec: the one Go model and the one parser
// of the part of a file that describes a cluster (pools with their policy
// and options, projects with quotas, limits and shares, licenses, QOS
// levels, multifactor weights, the usage decay, and nodes' names and
// labels). The master's configuration file (package config) and scenario
// files (package scenario) both embed it: config.Config and
// scenario.Scenario embed a Cluster, and each format's parser embeds a
// *Parser, walks its own top level, and reads the shared sections with
// ReadCluster (its Sections say how to read its pool type, and where its
// own sections sit in its reading order). What only one format has (the
// master's users, node rules' pools and timeouts; a scenario's nodes'
// slots and GPUs, accounts, jobs and events) stays in that format's
// package. Its types convert to the scheduling core's at use (Sched,
// SchedProjects, SchedLicenses, SchedQOS). Exit actions (exitactions.go:
// on_preempt and max_retries, ExitActionFields) sit in each format's pool
// type, but are read by this one function. They are taken in every pool,
// one that never preempts (Pool.Preempts, QOSPreempts) too: a lost
// attempt, an agent's preemption and an owner's requeue count as retries.
//
// The encoder (encode.go) writes the same types back in a dialect, so
// that a program that writes a file (the master's export of its history
// as a scenario) marshals the types the parser reads and cannot drift
// from the format.
//
// The formats agree on every shared field's name and meaning; where they
// differ in a default or a bound, a Dialect says which rule applies, so
// that each format accepts exactly what it always did. docs/config.md and
// docs/scenario.md name the shared fields.
//
// # Invariants
//
//   - A Parser never panics, whatever the YAML. It reports every problem
//     through the format's *yamlfield.Parser, so each error names the
//     file, the line and the path of the field (`projects[1] "vision":
//     quota: ...`), and keeps going, so one run reports several
//     independent mistakes.
//   - Checks that depend on a broken part are skipped rather than
//     reported as its consequences: with a project whose name is broken,
//     no unknown-parent errors are reported (ProjectsKnown,
//     LicensesKnown, QOSKnown say when references can be checked).
//   - Names are checked with the dialect's Name everywhere the spec reads
//     one. Lists keep file order. Projects returned from a clean parse
//     have unique names, parents that exist and form no cycle, Quota >= 0,
//     Limit 0 or >= Quota, and children's quotas that add up to at most
//     their parent's.
//   - Multifactor returns weights >= 0 with at least one positive, MaxAge
//     > 0 and a known FairShareMode where the dialect has defaults; a
//     scenario's block gives each setting exactly with its weight.
//   - Decay returns a positive Period and exactly one of PerPeriod (in
//     (0, 1]) and HalfLife (> 0). A Cluster's Decay is DefaultDecay
//     without a section, except in scenario files where no pool reads
//     accounts (the zero Decay; a section there is an error).
//   - Reading the shared sections through ReadCluster in a format gives
//     the same values and the same errors, in the same order, as that
//     format's parser always did.
//   - For a Cluster a parser returned, the encoder's output reads back to
//     the same values (lines aside) in the same dialect.
package spec
