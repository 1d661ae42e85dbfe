// Package config parses and validates the master's configuration file:
// the pools and their policies, the nodes' pool membership, the projects
// with their quotas and fair-share shares, the users, the cluster's
// licenses, the qualities of service and the usage decay. docs/config.md is the administrator's
// reference for the format; this comment is the contract for code that
// uses the package.
//
// Parse and Load either return a *Config that satisfies every rule below,
// or a nil *Config and an error; never both, and they never panic,
// whatever the input. So a master that reloads its file either switches
// to a whole new configuration or keeps the old one. Default is the
// configuration of a master started without a file.
//
// # Invariants of a returned Config
//
//   - Names (pools, nodes, projects, users) are 1..MaxNameBytes bytes, with
//     no control characters and no leading or trailing space: the names a
//     job file can refer to. Each kind's names are unique.
//   - There is at least one pool and one project. A file that lists no
//     pools gets the pool "default" of Default (priority with preemption
//     and backfill); one that lists no projects gets the project
//     "default" (quota 0, weight 1). These are created only for an empty
//     list: a file that lists pools or projects must name its defaults
//     among them.
//   - DefaultPool names a pool; DefaultProject names a project without
//     sub-projects (only those take jobs). Both default to "default".
//     AgentTimeout > 0 (default 30s).
//   - Pools: Policy is one of sched's six; options a policy would ignore
//     are rejected rather than dropped: backfill only on priority and
//     multifactor pools, preemption only on priority, fair_share, quota
//     and multifactor pools (quota pools always reclaim by preemption, so
//     Preemption is true for them), reservations only on backfill pools
//     and multifactor pools with backfill, a multifactor block only on
//     multifactor pools. Reservations is easy (the default) or
//     conservative where allowed and "" elsewhere. Placement defaults to
//     binpack, Grace to 30s, ZeroSlotLimit (>= 0) to 100, KillGrace
//     (>= 0) to 30s (spec.DefaultKillGrace), MinRunTime (>= 0) to 0. Multifactor is set exactly for multifactor pools:
//     finite weights >= 0, at least one of age, fair_share, job_size, qos
//     and pool positive, MaxAge > 0 (default 7 days), FairShareMode
//     classic or fair_tree (default); sched.DefaultMultifactor without a
//     block. OnPreempt is reschedule (the default) or fail and MaxRetries
//     >= 0, or spec.NoRetryCap (-1, the default): the exit actions a
//     scenario pool takes, read by the same code (spec.ExitActionFields),
//     and refused on a pool that never preempts.
//   - Node rules name an existing pool or none (Pool == ""); Labels is nil
//     or non-empty with non-empty keys.
//   - Projects: Parent is "" or another project; parents form no cycle;
//     Quota >= 0; OverQuotaWeight > 0 and finite (default: the quota, or 1 without one); Limit is 0
//     (none) or >= Quota; the quotas of a project's children add up to at
//     most its own. PreemptBudget >= 0 (0: no cap); Shares > 0 and finite
//     (default: Quota when positive, else 1).
//   - Users: Projects are existing, distinct project names (a parent
//     stands for every project under it; empty means all). DefaultProject
//     is always set: a project without sub-projects that the user may use,
//     given or else the config's default project when the user may use it,
//     else the user's first project without sub-projects. Shares > 0
//     and finite (default 1).
//   - Licenses have unique names and totals >= 0. QOS levels have unique
//     names and priorities >= 0; without a qos section the list is
//     sched.DefaultQOS. DefaultQOS names one of them, "" only when the
//     list is empty. Decay converted with SchedDecay passes
//     sched.Decay.Validate (default: a half-life of seven days over a
//     one-day period).
//   - Pools, Nodes, Projects, Users, Licenses and QOS are in file order,
//     so the indexes of SchedPools, SchedProjects, SchedLicenses and
//     SchedQOS are stable for one Config.
//
// A value of the wrong YAML type is an error, never a silent default:
// quota: "8" is a string, preemption: yes is a string. Names and label
// values written as numbers are taken as the text written.
//
// # Errors
//
// Every error names the file, the line and the path of the field, and says
// what was expected, in the style of scenario files:
//
//	NAME:LINE: PATH: MESSAGE
//	cluster.yaml:14: projects[1] "vision": quota: expected an integer >= 0, got -2
//	cluster.yaml:3: pools[0] "gpu": unknown field "polcy"; did you mean "policy"?
//
// Parse checks the whole file: one error is returned as a *Error, several
// as errors.Join of up to ten *Error values sorted by line plus one
// counting the rest; errors.As finds the first. Checks that depend on a
// broken part are skipped rather than reported as consequences: with a
// project whose name is broken, no unknown-parent errors are reported.
//
// The cluster part of the file (pools' names, policies and options,
// projects, licenses, QOS levels, the decay, multifactor blocks and node
// names and labels) is the cluster spec that scenario files embed too:
// Config embeds spec.Cluster, which spec.ReadCluster reads with the
// master's Dialect (strict names, project shares, default QOS and
// multifactor weights). Project and License are its types, QOS and Decay
// are kept as its types (with their lines) and converted for the core at
// use (SchedQOS, SchedDecay), Pool embeds spec.Pool and NodeRule
// spec.Node. This package reads the rest (the top-level defaults and
// timeouts, users, node rules, pools' grace and zero_slot_limit) and adds
// the master's defaults. The YAML walking and the error reporting are
// package yamlfield's.
package config
