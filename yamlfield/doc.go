// Package yamlfield walks yaml.Node trees (go.yaml.in/yaml/v3) for the
// file formats of this module, package scenario and package jobfile, and
// reports every problem as FILE:LINE: PATH: MESSAGE.
//
// A format's parser embeds a *Parser made by New, reads mappings with
// Fields and Field, and converts values with ValueParsers such as IntIn,
// Duration and Enum. After the walk, Err returns what was found. The two
// formats differ in how they spell things, and Options holds those
// differences, so one walker serves both:
//
//   - Paths: PathColons joins with ": " and writes keys as they are, for
//     paths like `jobs[2] "asha": slots`; PathDots joins with "." and
//     quotes keys that are not plain words, for resources.slots and
//     hyperparameters."a.b".
//   - BareNumbers: Describe shows integers, floats and booleans as written
//     (got -2) rather than quoted (got "-2"); strings are always quoted.
//   - RejectNullKeys: a null mapping key is an error ("expected a field
//     name, got null") rather than a key spelled ~ or null.
//   - Expected and Document word the errors for an empty file and for a
//     second YAML document.
//
// FileKind (filekind.go) is the one table of the top-level keys that
// tell the module's files apart (the master's configuration, a scenario,
// a job file); each format's parser calls WrongKind with its own kind
// and the others, so a file given to the wrong command gets one error
// naming what it looks like, at the key's line; a file that has keys of
// its own kind too gets the ordinary unknown-field error instead.
//
// # Invariants
//
//   - Nothing here panics, whatever the input: panics inside the YAML
//     library become errors, alias chains are cut at a fixed depth, and
//     merge keys (<<) that refer to themselves terminate.
//   - A syntax error names the line of the problem, worked out from what
//     the YAML library reports (see locate), or says "near line N" when
//     that cannot be checked; never the start of the enclosing block
//     passed off as the problem's line.
//   - A value of the wrong YAML type is an error, never a default: each
//     ValueParser accepts only the resolved tags that can spell its value,
//     so "8" (a string) is not an integer and yes is not a boolean.
//   - A ValueParser returns false only after recording an error, and
//     records none when it returns true. Field returns false without an
//     error only when the key is absent, and leaves its destination
//     unchanged unless it returns true.
//   - Merge keys follow YAML: a mapping's own keys win over merged ones,
//     and earlier merge sources over later ones. Duplicate own keys are
//     errors naming the first one's line.
//   - Every key of a mapping that Fields.Done finds unasked-for is
//     reported as unknown, with a "did you mean" for a likely typo, or
//     for a field of a nested mapping that Fields.Under names (its path,
//     such as "resources.preemptible"), or else the list of known fields,
//     in the order they were asked for.
//   - Err returns nil, one *Error, or errors.Join of *Errors sorted by
//     line (stable, so errors on one line keep their order), with exact
//     repeats dropped, at most MaxReported shown and one more *Error
//     counting the rest. Values in messages are cut to 40 bytes so that a
//     huge value cannot flood the report.
//
// The error messages are part of the formats' documented behaviour
// (docs/scenario.md, docs/jobfile.md), and their tests pin them, so the
// wording here changes only together with those.
package yamlfield
