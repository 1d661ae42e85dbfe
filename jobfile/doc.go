// Package jobfile parses and validates job files: the YAML that a user
// submits with `allot submit`, and the same structure as JSON in API
// request bodies. docs/jobfile.md is the user's reference for the format;
// this comment is the contract for code that uses the package.
//
// Parse (YAML), ParseJSON (JSON) and Load (a YAML file) either return a
// *Job that satisfies every rule below, or a nil *Job and an error; never
// both, and they never panic, whatever the input. So a master that creates
// a job only from a successful parse never half-creates one.
//
// # Invariants of a returned Job
//
//   - Name is 1..128 bytes, with no control characters and no leading or
//     trailing space; Project and Pool are "" (the master's default) or
//     follow the same rule. Entrypoint has a non-space character and no NUL.
//   - Kind is one of Kinds. Without a kind in the file it is
//     KindExperiment when hyperparameters or a searcher are given, else
//     KindCommand. Only experiments have Hyperparameters (possibly nil)
//     and a Searcher (never nil for an experiment).
//   - Resources: Slots >= 0 (default 1); Priority in 1..99 (default 42);
//     PriorityClass == ClassOf(Priority); Weight > 0 and finite (default
//     1); MaxSlots is 0 (no cap) or >= Slots; TimeLimit is 0 (none) or > 0
//     seconds. Preemptible defaults to true for experiments and false for
//     the other kinds, and is always true for LOW-class work. MinSlots is 0
//     (not elastic) or 1..Slots with Slots >= 1. GPU and QOS are "" (any
//     type; the master's default QOS) or names as above. Topology is "",
//     prefer or required. Licenses is nil or 1..MaxLicenses names to
//     counts >= 1. Nice is 0..MaxNice: a job may lower its own priority,
//     never raise it. CheckpointEvery is 0 (unknown) or > 0 seconds.
//     Whether a QOS or a license exists is the master's to check.
//   - Priority classes are bands with a canonical number: HIGH 1-29 (10),
//     NORMAL 30-59 (42), LOW 60-99 (80). A class alone sets the canonical
//     number; a class with a priority outside its band is an error.
//   - Environment is nil or non-empty; names match [A-Za-z_][A-Za-z0-9_]*
//     and are never ALLOT_*, CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER,
//     which the agent sets.
//   - Searcher.MaxTrials equals the number of tasks that Tasks returns
//     (1..MaxTrials), and MaxConcurrentTrials >= 1 (default MaxTrials).
//   - Tasks never fails for a parsed Job, and is deterministic: grid order
//     is the cartesian product over hyperparameter names in byte order,
//     last name fastest; random trials come from PCG seeded with
//     Searcher.Seed using only PCG's specified output, so they are the same
//     on every platform and Go release. Each task's hyperparameters are a
//     compact JSON object with keys in byte order, at most
//     MaxHyperparametersBytes long; "{}" for non-experiments.
//   - json.Marshal of a Job is a spec that ParseJSON turns back into an
//     equal Job (reflect.DeepEqual) with the same tasks; plain
//     json.Unmarshal reads it back too.
//
// A value of the wrong type is an error, never a silent default: slots: "8"
// is a string, preemptible: yes is a string, and time_limit: with no value
// is null. Names and environment values written as numbers are taken as
// the text written. JSON input keeps JSON's types: a string is never a
// number, and a number with a fraction or exponent is a float.
//
// # Errors
//
// Every error names the file (the name given to Parse), the line and the
// dotted path of the field, and says what was expected:
//
//	NAME:LINE: PATH: MESSAGE
//	job.yaml:4: resources.slots: expected an integer >= 0, got -2
//	job.yaml:3: unknown field "entrypont"; did you mean "entrypoint"?
//
// Numbers, booleans and null are shown as written, strings quoted. LINE is
// left out for problems with no line, such as an empty file. Parse checks
// the whole input: one error is returned as a *Error, several as
// errors.Join of up to ten *Error values sorted by line plus one counting
// the rest; errors.As finds the first. Checks that depend on a broken part
// are skipped rather than reported as consequences.
//
// The YAML walking and the error reporting are package yamlfield's, shared
// with package scenario; errors.go holds the options that give job files
// their dotted paths and unquoted numbers.
package jobfile
