package jobfile

import "github.com/allot-sched/allot/yamlfield"

// Error is one problem in a job file. File is the name given to Parse or
// ParseJSON, and Path is the dotted field, e.g. "resources.slots".
type Error = yamlfield.Error

// format is how job files spell paths and values in errors: dotted paths
// with odd keys quoted, numbers and booleans shown as written, and a null
// key rejected rather than taken as a field named "~".
var format = yamlfield.Options{
	Paths:          yamlfield.PathDots,
	BareNumbers:    true,
	RejectNullKeys: true,
	Expected:       "a mapping with at least name and entrypoint",
	Document:       "a job file",
}

// parser holds the state of one Parse or ParseJSON call. Validation keeps
// going after an error so that one run reports several independent
// mistakes.
type parser struct {
	*yamlfield.Parser
}

func newParser(file string) *parser {
	return &parser{yamlfield.New(file, format)}
}
