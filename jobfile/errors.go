package jobfile

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxReported is how many errors one Parse call returns; more than that is
// usually one mistake seen many times, and the rest only hides the first.
const maxReported = 10

// maxCollected bounds the work and memory spent on a file that is mostly
// errors; only the count of errors past it is kept.
const maxCollected = 1000

// Error is one problem in a job file.
type Error struct {
	File string // the name given to Parse or ParseJSON
	Line int    // 1-based; 0 when the problem has no single line
	Path string // the field, e.g. "resources.slots"; "" at the top
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

// parser holds the state of one Parse call. Validation keeps going after an
// error so that one run reports several independent mistakes.
type parser struct {
	file  string
	errs  []*Error
	count int // errors found, including those past maxCollected
}

// errorf records an error at the line of n (0 if n is nil).
func (p *parser) errorf(n *yaml.Node, path, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errorAt(line, path, nil, format, args...)
}

func (p *parser) errorAt(line int, path string, cause error, format string, args ...any) {
	p.count++
	if len(p.errs) == maxCollected {
		return
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...), Err: cause})
}

// err returns nil, a single *Error, or an errors.Join of *Errors sorted by
// line, so that the report reads top to bottom whatever the order in which
// sections were checked.
func (p *parser) err() error {
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
	shown := min(len(out), maxReported)
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

// describe renders a value for "got ..." in messages: numbers, booleans
// and null as written, strings quoted, so that slots: "8" (a string) reads
// differently from slots: 8.
func describe(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		tag := n.ShortTag()
		var s string
		switch tag {
		case "!!null":
			return "null"
		case "!!int", "!!float", "!!bool":
			s = shorten(n.Value)
		default:
			s = quote(n.Value)
		}
		if n.Style&yaml.TaggedStyle != 0 {
			s = n.Tag + " " + s
		}
		return s
	}
	return "an unresolvable alias"
}

// shorten cuts s so that a huge value cannot flood a message.
func shorten(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// quote quotes s, shortened so that a huge value cannot flood the message.
func quote(s string) string {
	const limit = 40
	if len(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", s[:cut])
}

// suggest returns `; did you mean "x"?` when some option is a likely typo
// of word, else "".
func suggest(word string, options []string) string {
	if len(word) > 64 || len(options) > 1000 {
		return ""
	}
	best, bestDist := "", -1
	for _, o := range options {
		d := editDistance(strings.ToLower(word), strings.ToLower(o))
		if bestDist < 0 || d < bestDist {
			best, bestDist = o, d
		}
	}
	// Short names are close to everything, so they need a closer match;
	// and a suggestion must keep at least one letter of the word.
	limit := 2
	if utf8.RuneCountInString(best) <= 4 {
		limit = 1
	}
	limit = min(limit, utf8.RuneCountInString(word)-1, utf8.RuneCountInString(best)-1)
	if bestDist < 0 || bestDist > limit || best == word {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the optimal string alignment distance between a and b,
// in runes: Levenshtein plus adjacent transpositions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		prev2, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, prev2
	}
	return rows[1][len(rb)]
}

// oneOf renders a value list for messages: "a, b, c".
func oneOf[S ~string](values []S) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
