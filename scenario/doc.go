// Package scenario parses and validates the YAML scenario files that the
// simulator replays: the pools of nodes, the jobs submitted to them (inline,
// or by reference to a trace file) and timed events that change jobs or
// take nodes down and up.
//
// Parse and Load either return a Scenario that satisfies every rule of the
// format, or a nil Scenario and an error; they never return both, and they
// never panic, whatever the input.
//
// # Invariants of a returned Scenario
//
//   - There is at least one pool; each has a unique name, a known policy and
//     placement, and at least one node, except a pool that shares another's
//     nodes (SharesNodesWith), which has none and carries the policy,
//     placement and checkpoint cost of that pool. Options a policy would
//     ignore are rejected rather than dropped: preemption only on
//     priority, fair_share and multifactor pools, backfill only on
//     priority and multifactor, serial only on fifo, reservations only on
//     backfill pools and multifactor pools that backfill, quota only on
//     quota pools (on_preempt and max_retries are taken in every pool: a
//     lost attempt counts as a retry where no pass preempts). Reservations is "easy" or "conservative" on backfill pools
//     and multifactor pools with Backfill, and "" elsewhere. MinRunTime is
//     0 or positive.
//   - A multifactor pool, and only one, has a non-zero Multifactor:
//     weights >= 0, at least one positive; MaxAge > 0 exactly when Age >
//     0; FairShareMode classic or fair_tree exactly when FairShare > 0;
//     FavorSmall only with a JobSize weight.
//   - Pools that share nodes name a pool with nodes of its own, under the
//     quota policy; every pool of such a group has a Quota >= 0, and the
//     quotas add up to at most the shared slots. Quota is -1 for a pool
//     without one; MaxRetries is -1 for no cap.
//   - Projects have unique names, none the name of a pool with a quota;
//     parents exist and form no cycle; Quota >= 0, OverQuotaWeight >= 0
//     (default Quota), Limit 0 (none) or >= Quota, PreemptBudget 0 (none)
//     or >= 1.
//   - Accounts (only when a multifactor pool has a fair-share weight) have
//     unique names; the file's come first, without "/" in their names,
//     then one User leaf per (account, user) pair jobs name, named
//     UserAccount(account, user); parents exist and form no cycle; Shares
//     and Usage are finite and >= 0. Decay has a positive Period and
//     exactly one of PerPeriod (in (0, 1]) and HalfLife (> 0); it is
//     DefaultDecay when the file gives none and a pool reads accounts, and
//     the zero Decay when none does.
//   - Node entries with count N > 1 are expanded to N nodes named NAME-1 to
//     NAME-N, each with its own copy of the labels. Node names are unique
//     across the whole file after expansion, every node has >= 1 slot, and
//     a file has at most MaxNodes nodes.
//   - Every job has a unique name and names an existing pool (the first pool
//     by default), and one of its tasks fits in that pool: Slots is at most
//     the sum of the pool's node slots (the shared nodes' for a sharing
//     pool), and on nodes of its GPU type if it names one, each node
//     counted at its largest shape, the file's or a node_reshape's
//     (reshape.go). Tasks,
//     MaxConcurrent >= 1; Slots >= 0; Priority in 1..99 with PriorityClass
//     its band's class; Weight > 0 and finite. LOW-class work is
//     preemptible, interactive work is not.
//   - A job in a quota pool has a Project: a leaf project of the file, or
//     for a pool with a quota, the pool's name. Work that may only run
//     within quota fits in that quota, and no task exceeds a limit above
//     its project. OnPreempt and MaxRetries are resolved from the job or
//     its pool; checkpoint_every is only given for jobs that are
//     preemptible or elastic (on_preempt and max_retries for any job).
//   - Licenses have unique names and totals >= 0; QOS levels unique names
//     and priorities >= 0. A job's QOS is "" or one of them (and its pool
//     a priority or multifactor pool); its Licenses name licenses of the
//     file, each with a count from 1 to the license's total.
//   - A job of a multifactor pool with a fair-share weight names an
//     Account of the file, and Charged() is an account of Scenario.Accounts
//     (a leaf, for a fair_tree pool); other jobs name none. Nice is 0
//     outside multifactor pools, where the file gives no priority. Topology
//     is "", prefer or required, and given only for tasks larger than any
//     node of their pool (of their GPU type).
//   - An elastic job has 1 <= MinSlots <= Slots and MaxSlots == Slots; any
//     other job has MinSlots == MaxSlots == 0. Quota checks use MinSlots.
//   - A job with a Searcher is an experiment; its Searcher is asha (one
//     bracket) or adaptive_asha and passes searcher.Config.Validate;
//     Tasks is MaxTrials, Duration is MaxLength × StepTime (StepTime >
//     0), and Curves holds MaxTrials curves whose steps rise within
//     0..MaxLength and whose values are finite. Any other job has no
//     Searcher, StepTime 0 and no Curves.
//   - Durations are whole seconds >= 0 that convert to time.Duration
//     without overflow. Job.Duration is -1 when not given (the task runs
//     until killed); Job.TimeLimit is 0 when not given, else > 0.
//   - A job's scripts name tasks it has; a task is in at most one of
//     Fails, StartFails and Stops, and not in both StartFails and Runs;
//     a failure's or stop's After is at most its task's run time (its
//     Runs entry's Work, else Duration). A job with a Searcher has no
//     Runs.
//   - Jobs and events are in file order; events are not sorted by time.
//     A node event names a node of the file (Node) and no job; a
//     node_reshape's Shape has its node's name and >= 1 slot, and only
//     node_reshape has a Shape; its Pool, when not "", is a pool of the
//     file with nodes of its own (no shares_nodes_with).
//   - With a trace (jobs: {trace: FILE}), the first pool is not a quota
//     pool, Jobs is empty and events are not
//     checked against job names, because the names live in the trace: the
//     caller must check them after reading it. Load resolves a relative
//     trace path against the scenario file's directory; Parse, which has no
//     file, returns it as written.
//
// A value of the wrong YAML type is an error, never a silent default:
// slots: "8" is a string, not an integer, and duration: with no value is
// null, not "absent". The exceptions are optional collections (events, jobs,
// labels), where null means empty, and names and label values, where
// numbers are taken as the text written. Merge keys (<<) and anchors work
// as YAML defines them; anchors must sit inside the known sections, since
// unknown top-level keys are errors.
//
// # Errors
//
// Every error names the file, the line and the path of the field, and says
// what was expected:
//
//	NAME:LINE: PATH: MESSAGE
//	prod.yaml:12: jobs[0] "asha": slots: expected an integer >= 0, got "-3"
//	prod.yaml:3: pools[0] "gpu": unknown field "polcy"; did you mean "policy"?
//
// List indexes in paths count from 0, and the item's name follows its index
// once it is known. LINE is left out (NAME: MESSAGE) for problems that
// have no line, such as an empty file. A YAML syntax error names the line
// of the problem, not the start of the enclosing block that the YAML
// library reports; "near line N" where that line cannot be told for sure.
//
// Parse checks the whole file rather than stopping at the first problem.
// If there is one error it returns a *Error. If there are several it
// returns errors.Join of up to ten *Error values sorted by line, one per
// line of the message, followed by one more *Error counting any left out;
// errors.As finds the first. Checks that depend on a broken part are
// skipped rather than reported as consequences: a job in a pool whose
// nodes have errors is not also told that it does not fit.
//
// The cluster part of a scenario (pools' names, policies and options,
// projects, licenses, QOS levels, the decay, multifactor blocks and
// nodes' names and labels) is the cluster spec of the master's
// configuration: Scenario embeds spec.Cluster, which spec.ReadCluster
// reads with the scenario Dialect (errors.go); Project, License, QOS and
// Decay are its types, Pool embeds its spec.Pool and Node its spec.Node.
// This package reads what only a scenario has (nodes' slots, GPU types
// and counts, sharing pools, exit actions, accounts, jobs, events).
//
// One parser reads a file, section by section, keeping the tables of the
// pools, nodes and jobs named so far (names), against which later
// sections check references. What keeps no state of its own reads with
// parts that share its spec.Parser: a job's searcher and curves
// (searchParser, searcher.go), its scripted failures, losses, run
// times and stops (scriptParser, fails.go and runs.go) and the events, with the name tables
// (eventParser, events.go).
//
// Marshal writes a Scenario back in this format, from the same types
// (with spec's encoder for the cluster part), so that Parse reads it back
// to the same values, lines aside (a searcher's curve formula comes back
// as the points it gave). The YAML walking and the error
// reporting are package yamlfield's, shared with package jobfile;
// errors.go holds the options that give scenario files their paths and
// quoted values.
package scenario
