package yamlfield

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxReported is how many errors Err returns; more than that is usually
// one mistake seen many times, and the rest only hides the first.
const MaxReported = 10

// maxCollected bounds the work and memory spent on a file that is mostly
// errors; only the count of errors past it is kept.
const maxCollected = 1000

// Error is one problem in a file.
type Error struct {
	File string // the name given to New
	Line int    // 1-based; 0 when the problem has no single line
	Path string // the field, e.g. `jobs[2] "asha": slots` or "resources.slots"; "" at the top
	Msg  string // what was wrong and what was expected
	Err  error  // the underlying cause, if any
}

// Error renders FILE:LINE: PATH: MSG, leaving out LINE and PATH when they
// are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// PathStyle is how a field path is spelled.
type PathStyle int

// Path styles; see Parser.Join.
const (
	PathColons PathStyle = iota // `jobs[2] "asha": slots`
	PathDots                    // resources.slots, hyperparameters."a.b"
)

// Options are what differs between the formats that use this package.
type Options struct {
	Paths          PathStyle
	BareNumbers    bool   // Describe shows integers, floats and booleans unquoted
	RejectNullKeys bool   // a null mapping key is an error, not a key named ~
	Expected       string // what a file must hold: "empty file: expected " + Expected
	Document       string // the format, with an article: Document + " is a single document"
}

// Parser collects the errors of one parse. Validation keeps going after an
// error so that one run reports several independent mistakes.
type Parser struct {
	file  string
	opts  Options
	errs  []*Error
	count int // errors found, including those past maxCollected
}

// New returns a Parser whose errors name file.
func New(file string, opts Options) *Parser {
	return &Parser{file: file, opts: opts}
}

// Errorf records an error at the line of n (0 if n is nil).
func (p *Parser) Errorf(n *yaml.Node, path, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.ErrorAt(line, path, nil, format, args...)
}

// ErrorAt records an error at line with an underlying cause (may be nil).
func (p *Parser) ErrorAt(line int, path string, cause error, format string, args ...any) {
	p.count++
	if len(p.errs) == maxCollected {
		return
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...), Err: cause})
}

// Count returns the number of errors recorded so far; comparing it before
// and after a check tells whether the check found anything.
func (p *Parser) Count() int { return p.count }

// Err returns nil, a single *Error, or an errors.Join of *Errors sorted by
// line, so that the report reads top to bottom whatever the order in which
// sections were checked.
func (p *Parser) Err() error {
	if len(p.errs) == 0 {
		return nil
	}
	sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
	var out []error
	seen := make(map[string]bool)
	for _, e := range p.errs {
		// A merged (<<) mapping is checked once per use, so its mistakes
		// would otherwise be repeated.
		msg := e.Error()
		if seen[msg] {
			continue
		}
		seen[msg] = true
		out = append(out, e)
	}
	shown := min(len(out), MaxReported)
	// Errors past maxCollected were never deduplicated, so the count of
	// hidden ones may include repeats.
	hidden := len(out) - shown + p.count - len(p.errs)
	out = out[:shown]
	if hidden > 0 {
		out = append(out, &Error{File: p.file, Msg: fmt.Sprintf("%d more errors not shown", hidden)})
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}
