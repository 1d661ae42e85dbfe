package scenario

import (
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// Error is one problem in a scenario file. File is the name given to
// Parse, and Path is where in the document, e.g. `jobs[2] "asha": slots`.
type Error = yamlfield.Error

// format is how scenario files spell paths and values in errors: paths
// joined with ": ", and numbers and booleans in "got ..." shown as
// written (got 0), as config files show them, strings quoted.
var format = yamlfield.Options{
	Paths:       yamlfield.PathColons,
	BareNumbers: true,
	Expected:    "a mapping with pools and jobs",
	Document:    "a scenario",
}

// dialect is the scenario format's reading of the cluster spec: any
// non-empty name, projects with a required quota, and multifactor blocks
// without defaults (see spec.Dialect).
var dialect = spec.Dialect{Name: spec.AnyName, Scenario: true}
