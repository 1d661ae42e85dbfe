// Package spec is the cluster spec: the one Go model and the one parser
// of the part of a file that describes a cluster (pools with their policy
// and options, projects with quotas, limits and shares, licenses, QOS
// levels, multifactor weights and the usage decay). The master's
// configuration file (package config) and scenario files (package
// scenario) both embed it: each format's parser embeds a *Parser, walks
// its own top level, and hands the shared sections to it. What only one
// format has (the master's users, node rules and timeouts; a scenario's
// nodes, accounts, jobs and events) stays in that format's package.
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
//     (0, 1]) and HalfLife (> 0).
package spec
