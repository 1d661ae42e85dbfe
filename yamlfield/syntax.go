package yamlfield

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The YAML library reports a syntax error's line as its scanner or parser
// left it. Its scanner's line (counted from 1) is where the problem is, or
// where the quoted scalar or other token that holds it starts. Its parser
// keeps two lines, counted from 0: the problem's and the "context's", the
// start of what was being parsed; it reports the context's unless that is
// the first line. These are the parser's messages, by the context they
// come with; every other message is the scanner's.
var (
	// No context, or the problem itself as context: the reported line
	// plus one is the problem's.
	parserAtProblem = map[string]bool{
		"did not find expected <document start>": true,
		"did not find expected <stream-start>":   true,
		"did not find expected node content":     true,
		"found duplicate %TAG directive":         true,
		"found duplicate %YAML directive":        true,
		"found incompatible YAML document":       true,
	}
	// The start of the enclosing collection (or node, for a tag) as
	// context: the problem's line must be found.
	parserInCollection = map[string]bool{
		"did not find expected ',' or ']'":    true,
		"did not find expected ',' or '}'":    true,
		"did not find expected '-' indicator": true,
		"did not find expected key":           true,
		"found undefined tag handle":          true,
	}
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// libraryError splits the YAML library's "yaml: line N: msg" into N (0
// when absent) and msg.
func libraryError(err error) (int, string) {
	s := err.Error()
	if m := yamlLine.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	if len(s) > 6 && s[:6] == "yaml: " {
		s = s[6:]
	}
	return 0, s
}

// locate returns the line of a syntax error and the rest of the message,
// from ": " on; a line it cannot be sure of is called "near" in the text.
//
// For a parser error in a collection it learns the two lines the library
// keeps, the start of the enclosing collection and the problem, by
// decoding variants of the text: with an empty line in front, the library
// must report the collection's start; with the lines before that start
// cut off, the collection starts on line 1, so the library reports the
// problem's line. Each variant must fail with the same message, and the
// cut one must again put the collection on its first line, or the answer
// is only near. The variants cost a few decodes, on failure only.
func locate(data []byte, err error) (int, string) {
	n, msg := libraryError(err)
	if parserAtProblem[msg] {
		if last := lastContentLine(data); n+1 > last {
			return last, ": " + msg + ": the file ends after this line"
		}
		return n + 1, ": " + msg
	}
	if msg == tabAfterScalar {
		if t := tabIndented(data, n); t > 0 {
			return t, ": " + msg + tabHint
		}
	}
	if !parserInCollection[msg] {
		return n, ": " + msg + scannerHint(data, n, msg)
	}
	near := func(line int) (int, string) {
		return line, fmt.Sprintf(" near line %d: %s", line, msg)
	}
	start, m := failure(append([]byte("\n"), data...))
	if m != msg {
		return near(n + 1)
	}
	line := n + 1
	if start > 1 {
		cut := data[lineOffset(data, start):]
		at, m := failure(cut)
		if again, m2 := failure(append([]byte("\n"), cut...)); m != msg || m2 != msg || again != 1 {
			return near(start)
		}
		line = start + at
	}
	if line > lastContentLine(data) {
		return start, ": " + msg + ": the file ends before what starts on this line is complete"
	}
	return line, ": " + msg
}

// failure decodes every document of data and returns the YAML library's
// line and message for the first syntax error; "" if there is none.
func failure(data []byte) (int, string) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := safeDecode(dec, &n)
		if errors.Is(err, io.EOF) {
			return 0, ""
		}
		if err != nil {
			return libraryError(err)
		}
	}
}

// lineOffset returns the offset in data of the start of line (1-based).
func lineOffset(data []byte, line int) int {
	off := 0
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return len(data)
		}
		off += j + 1
	}
	return off
}

// lastContentLine returns the last line (1-based) that holds more than
// spaces and a comment; a problem after it is the end of the file.
func lastContentLine(data []byte) int {
	last := 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			last = i + 1
		}
	}
	return last
}

// scannerHint says more about two scanner errors whose cause is certain.
// tabAfterScalar is the scanner's message for a tab in the indentation of
// the line after a plain scalar; it comes with the scalar's line (its
// context), which may be lines before the tab's.
const tabAfterScalar = "found a tab character that violates indentation"

const tabHint = ": the line is indented with a tab; YAML indents with spaces"

// tabIndented returns the first line from line on (counted from 1) whose
// content is indented with a tab, or 0. Blank and comment lines, where
// YAML allows tabs, do not count.
func tabIndented(data []byte, line int) int {
	n := 0
	for l := range bytes.Lines(data) {
		n++
		i := bytes.IndexFunc(l, func(r rune) bool { return r != ' ' && r != '\t' })
		if n < line || i <= 0 || l[i] == '\n' || l[i] == '\r' || l[i] == '#' {
			continue
		}
		if bytes.IndexByte(l[:i], '\t') >= 0 {
			return n
		}
	}
	return 0
}

func scannerHint(data []byte, line int, msg string) string {
	switch msg {
	case "found unexpected end of stream":
		// The scanner reports this only inside a quoted scalar, at its start.
		return ": a quoted string that starts on this line is not closed"
	case "found character that cannot start any token":
		// A tab before the first token of a line is not skipped, so it is
		// the character that cannot start a token.
		if line > 0 {
			l := data[lineOffset(data, line):]
			if i := bytes.IndexFunc(l, func(r rune) bool { return r != ' ' }); i >= 0 && l[i] == '\t' {
				return tabHint
			}
		}
	}
	return ""
}
