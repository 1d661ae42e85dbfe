package yamlfield

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// colons and dots are the option sets of package scenario and package
// jobfile.
var (
	colons = Options{Paths: PathColons, Expected: "a mapping with pools and jobs", Document: "a scenario"}
	dots   = Options{Paths: PathDots, BareNumbers: true, RejectNullKeys: true, Expected: "a mapping", Document: "a job file"}
)

// node parses src and returns its root node.
func node(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("yaml.Unmarshal(%q): %v", src, err)
	}
	return doc.Content[0]
}

// messages returns every error that p recorded, one a line.
func messages(p *Parser) string {
	err := p.Err()
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestJoin(t *testing.T) {
	tests := []struct {
		opts      Options
		path, key string
		want      string
	}{
		{colons, "", "pools", "pools"},
		{colons, `jobs[2] "asha"`, "slots", `jobs[2] "asha": slots`},
		{colons, "labels", "a.b", "labels: a.b"},
		{dots, "", "name", "name"},
		{dots, "resources", "slots", "resources.slots"},
		{dots, "resources", "<<", "resources.<<"},
		{dots, "hyperparameters", "a.b", `hyperparameters."a.b"`},
		{dots, "", "a b", `"a b"`},
	}
	for _, tt := range tests {
		if got := New("f", tt.opts).Join(tt.path, tt.key); got != tt.want {
			t.Errorf("Join(%q, %q) with paths %d = %q, want %q", tt.path, tt.key, tt.opts.Paths, got, tt.want)
		}
	}
	if got := Index("vals", 2); got != "vals[2]" {
		t.Errorf("Index = %q", got)
	}
}

func TestDescribe(t *testing.T) {
	long := strings.Repeat("9", 50)
	tests := []struct {
		src          string
		quoted, bare string
	}{
		{"8", `"8"`, "8"},
		{"-1.5", `"-1.5"`, "-1.5"},
		{".nan", `".nan"`, ".nan"},
		{"true", `"true"`, "true"},
		{"'8'", `"8"`, `"8"`},
		{"yes", `"yes"`, `"yes"`},
		{"~", "null", "null"},
		{"[1]", "a list", "a list"},
		{"{a: 1}", "a mapping", "a mapping"},
		{"!!int 3", `!!int "3"`, "!!int 3"},
		{"!!binary aGVsbG8=", `!!binary "aGVsbG8="`, `!!binary "aGVsbG8="`},
		{long, fmt.Sprintf("%q...", long[:40]), long[:40] + "..."},
	}
	for _, tt := range tests {
		n := node(t, tt.src)
		if got := New("f", colons).Describe(n); got != tt.quoted {
			t.Errorf("Describe(%s) = %s, want %s", tt.src, got, tt.quoted)
		}
		if got := New("f", dots).Describe(n); got != tt.bare {
			t.Errorf("Describe(%s) with BareNumbers = %s, want %s", tt.src, got, tt.bare)
		}
	}
	if got := New("f", dots).Describe(nil); got != "nothing" {
		t.Errorf("Describe(nil) = %s", got)
	}
}

func TestQuote(t *testing.T) {
	if got := Quote("a"); got != `"a"` {
		t.Errorf("Quote(a) = %s", got)
	}
	// 39 ASCII bytes then a 2-byte rune that straddles the limit: the cut
	// goes before the rune, never through it.
	s := strings.Repeat("x", 39) + "ü" + "tail"
	if got, want := Quote(s), fmt.Sprintf("%q...", strings.Repeat("x", 39)); got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		word    string
		options []string
		want    string
	}{
		{"polcy", []string{"pools", "policy"}, `; did you mean "policy"?`},
		{"sfw", []string{"swf", "csv"}, `; did you mean "swf"?`},
		{"HIHG", []string{"HIGH", "NORMAL", "LOW"}, `; did you mean "HIGH"?`},
		{"zzz", []string{"pools", "jobs", "events"}, ""},
		{"a", []string{"b"}, ""},
		{"policy", []string{"policy"}, ""},
		{"x", nil, ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.word, tt.options); got != tt.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tt.word, tt.options, got, tt.want)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		opts Options
		src  string
		want string
	}{
		{colons, "", "f: empty file: expected a mapping with pools and jobs"},
		{dots, "# only a comment\n", "f: empty file: expected a mapping"},
		{dots, "~\n", "f: empty file: expected a mapping"},
		{colons, "a: 1\n---\nb: 2\n", "f:2: a second YAML document starts here; a scenario is a single document"},
		{dots, "a: 1\n---\nb: 2\n", "f:2: a second YAML document starts here; a job file is a single document"},
		{dots, "a: 1\n  b: 2\n", "f:2: invalid YAML: mapping values are not allowed in this context"},
	}
	for _, tt := range tests {
		p := New("f", tt.opts)
		if root, ok := p.Decode([]byte(tt.src)); ok || root != nil {
			t.Errorf("Decode(%q) succeeded", tt.src)
		}
		if got := messages(p); got != tt.want {
			t.Errorf("Decode(%q): %s\nwant %s", tt.src, got, tt.want)
		}
	}

	p := New("f", dots)
	if _, ok := p.Decode([]byte("a: [\n")); ok {
		t.Fatal("Decode of broken YAML succeeded")
	}
	var e *Error
	if !errors.As(p.Err(), &e) || e.Err == nil || !strings.HasPrefix(e.Err.Error(), "yaml: ") {
		t.Errorf("syntax error %+v does not wrap the YAML library's error", e)
	}

	root, ok := New("f", dots).Decode([]byte("a: 1\n"))
	if !ok || root.Kind != yaml.MappingNode {
		t.Errorf("Decode of a mapping = %v, %v", root, ok)
	}
}

// TestDecodeSyntaxErrors pins the line that a syntax error names: where
// the problem is, not where the YAML library's enclosing block starts.
func TestDecodeSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"bad indent in a mapping", "a: 1\nb:\n  c: 1\n  d: 2\n e: 3\n",
			"f:5: invalid YAML: did not find expected key"},
		{"deeper indent in a mapping", "a: 1\nb:\n  c: 1\n    d: 2\n",
			"f:4: invalid YAML: mapping values are not allowed in this context"},
		{"bad indent in a nested mapping", "a:\n  b:\n    c: 1\n   d: 2\n",
			"f:4: invalid YAML: did not find expected key"},
		{"bad indent in a sequence", "pools:\n  - name: a\n   policy: fifo\n",
			"f:3: invalid YAML: did not find expected '-' indicator"},
		{"bad indent in a later sequence", "a: 1\nb: 2\njobs:\n  - name: a\n  slots: 2\n",
			"f:5: invalid YAML: did not find expected '-' indicator"},
		{"sequence entry in a mapping", "a: 1\n- b\n",
			"f:2: invalid YAML: did not find expected key"},
		{"tab indentation", "a: 1\nresources:\n\tslots: 1\n",
			"f:3: invalid YAML: found character that cannot start any token: the line is indented with a tab; YAML indents with spaces"},
		// After a plain scalar the library names the scalar's line (the
		// context), not the tab-indented line that follows it.
		{"tab indentation after a plain scalar", "pools:\n  - name: gpu\n    policy: fifo\n\tnodes: []\n",
			"f:4: invalid YAML: found a tab character that violates indentation: the line is indented with a tab; YAML indents with spaces"},
		{"tab indentation after a multi-line plain scalar", "a: one\n  two\n\t\n\tb: 1\n",
			"f:4: invalid YAML: found a tab character that violates indentation: the line is indented with a tab; YAML indents with spaces"},
		{"unclosed double quote", "a: 1\nb: \"foo\nc: 2\n",
			"f:2: invalid YAML: found unexpected end of stream: a quoted string that starts on this line is not closed"},
		{"unclosed single quote", "a: 1\nb: 'foo\nc: 2\n",
			"f:2: invalid YAML: found unexpected end of stream: a quoted string that starts on this line is not closed"},
		{"unclosed flow sequence", "a: 1\nb: [x, y\n\n# end\n",
			"f:2: invalid YAML: did not find expected ',' or ']': the file ends before what starts on this line is complete"},
		// YAML reads JSON too: a file that starts like JSON is not called
		// invalid YAML alone, as if JSON were refused.
		{"unclosed flow mapping on line 1", "{name: a\n",
			"f:1: invalid JSON or YAML: did not find expected ',' or '}': the file ends before what starts on this line is complete"},
		{"JSON without a comma", "{\n  \"a\": 1\n  \"b\": 2\n}\n",
			"f:3: invalid JSON or YAML: did not find expected ',' or '}'"},
		{"JSON list after a comment and a blank line", "# comment\n\n[1, 2\n",
			"f:3: invalid JSON or YAML: did not find expected ',' or ']': the file ends before what starts on this line is complete"},
		{"JSON after a byte order mark", "\ufeff{\"a\": 1 \"b\": 2}\n",
			"f:1: invalid JSON or YAML near line 1: did not find expected ',' or '}'"},
		{"flow mapping not at the start", "a: {b: 1\n",
			"f:1: invalid YAML: did not find expected ',' or '}': the file ends before what starts on this line is complete"},
		// In a flow collection a key where a comma belongs is the problem.
		{"flow sequence followed by a key", "a: 1\nb: [1, 2\nc: 2\n",
			"f:3: invalid YAML: did not find expected ',' or ']'"},
		{"wrong bracket in a multi-line flow", "a: 1\nb: [1,\n 2,\n 3}\n",
			"f:4: invalid YAML: did not find expected ',' or ']'"},
		{"wrong bracket in a flow on line 1", "b: [1,\n 2,\n 3}\n",
			"f:3: invalid YAML: did not find expected ',' or ']'"},
		{"wrong bracket in a nested flow", "a:\n  b:\n    - x\n    - [1,\n       2,\n       3}\n",
			"f:6: invalid YAML: did not find expected ',' or ']'"},
		{"text after a quoted key", "a: 1\nb: \"x\" y\n",
			"f:2: invalid YAML: did not find expected key"},
		{"bad indent in a second document", "a: 1\n---\nc:\n  - 1\n  d: 2\n",
			"f:5: invalid YAML: did not find expected '-' indicator"},
		{"missing value at the end", "a: 1\nb: [x,\n",
			"f:2: invalid YAML: did not find expected node content: the file ends after this line"},
		{"text after the document", "a\n: 1\n",
			"f:2: invalid YAML: did not find expected <document start>"},
		// A cut-off copy of this fails later, at the '?', so the line
		// that starts the flow mapping is all that is certain.
		{"flow mapping closed by ']'", "a: 1\nh: [a,\n  { b]?\n",
			"f:3: invalid YAML near line 3: did not find expected ',' or '}'"},
		{"unknown anchor has no line", "a: 1\nb: *nope\n",
			"f: invalid YAML: unknown anchor 'nope' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New("f", dots)
			if _, ok := p.Decode([]byte(tt.src)); ok {
				t.Fatalf("Decode(%q) succeeded", tt.src)
			}
			if got := messages(p); got != tt.want {
				t.Errorf("Decode(%q):\n got %s\nwant %s", tt.src, got, tt.want)
			}
		})
	}
}

// Duplicate keys are not syntax errors to the YAML library; the walk
// reports them (see TestFields), at the second key's line.

func TestErr(t *testing.T) {
	p := New("f", colons)
	if p.Err() != nil {
		t.Fatal("Err with no errors is not nil")
	}
	p.ErrorAt(3, "", nil, "one")
	var e *Error
	if err := p.Err(); !errors.As(err, &e) || err != error(e) || e.Line != 3 {
		t.Fatalf("one error: got %#v, want a single *Error", err)
	}

	p = New("f", colons)
	p.ErrorAt(5, "b", nil, "later")
	p.ErrorAt(0, "", nil, "no line")
	p.ErrorAt(2, "a", nil, "first %s", "on two")
	p.ErrorAt(2, "a", nil, "second on two")
	p.ErrorAt(5, "b", nil, "later") // a repeat, as from a merged mapping
	want := "f: no line\nf:2: a: first on two\nf:2: a: second on two\nf:5: b: later"
	if got := messages(p); got != want {
		t.Errorf("sorted and deduplicated:\n%s\nwant:\n%s", got, want)
	}
	if p.Count() != 5 {
		t.Errorf("Count = %d, want 5 (repeats count)", p.Count())
	}

	p = New("f", colons)
	for i := range 3000 {
		p.ErrorAt(i+1, "", nil, "e")
	}
	lines := strings.Split(messages(p), "\n")
	if len(lines) != MaxReported+1 || lines[MaxReported] != "f: 2990 more errors not shown" {
		t.Errorf("want %d errors and a count of the rest, got %d lines ending %q", MaxReported, len(lines), lines[len(lines)-1])
	}
}

func TestPairsMerge(t *testing.T) {
	src := `base: &base {a: 1, b: 1}
more: &more {b: 2, c: 2}
m:
  <<: [*base, *more]
  a: 0
`
	p := New("f", dots)
	f, ok := p.Fields(node(t, src), "")
	if !ok {
		t.Fatal(messages(p))
	}
	prs, ok := p.Pairs(f.Node("m"), "m")
	if !ok {
		t.Fatal(messages(p))
	}
	var got []string
	for _, pr := range prs {
		got = append(got, pr.Key.Value+"="+pr.Val.Value)
	}
	// Own keys first and winning, then merged ones, earlier sources first.
	if s := strings.Join(got, " "); s != "a=0 b=1 c=2" {
		t.Errorf("pairs = %s, want a=0 b=1 c=2", s)
	}
	if msg := messages(p); msg != "" {
		t.Errorf("unexpected errors: %s", msg)
	}

	// A mapping that merges itself terminates.
	p = New("f", dots)
	if prs, ok := p.Pairs(node(t, "a: &a {x: 1, <<: *a}\n").Content[1], "a"); !ok || len(prs) != 1 {
		t.Errorf("self merge: %v, %v: %s", prs, ok, messages(p))
	}

	tests := []struct {
		opts Options
		src  string
		want string
	}{
		{dots, "r: {<<: 3}\n", "f:1: r.<<: expected a mapping or a list of mappings to merge, got 3"},
		{colons, "r: {<<: 3}\n", `f:1: r: <<: expected a mapping or a list of mappings to merge, got "3"`},
		{dots, "r: {<<: [{}, 1]}\n", "f:1: r.<<: expected a mapping to merge, got 1"},
		{dots, "r:\n  a: 1\n  a: 2\n", `f:3: r: duplicate key "a" (first at line 2)`},
		{dots, "r:\n  ? [a]\n  : 1\n", "f:2: r: expected a field name, got a list"},
		{dots, "r: [a]\n", "f:1: r: expected a mapping, got a list"},
	}
	for _, tt := range tests {
		p := New("f", tt.opts)
		p.Pairs(node(t, tt.src).Content[1], "r")
		if got := messages(p); got != tt.want {
			t.Errorf("Pairs(%q): %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestRejectNullKeys(t *testing.T) {
	src := "name: a\n~: 1\n"
	p := New("f", dots)
	if f, ok := p.Fields(node(t, src), ""); ok {
		f.Lookup("name")
		f.Done()
	}
	if got, want := messages(p), "f:2: expected a field name, got null"; got != want {
		t.Errorf("with RejectNullKeys: %s\nwant %s", got, want)
	}

	p = New("f", colons)
	if f, ok := p.Fields(node(t, src), ""); ok {
		f.Lookup("name")
		f.Done()
	}
	if got, want := messages(p), `f:2: unknown field "~" (known fields: name)`; got != want {
		t.Errorf("without RejectNullKeys: %s\nwant %s", got, want)
	}
}

func TestFields(t *testing.T) {
	src := `job:
  slots: -2
  priorty: 3
  weight: 2.5
  zzz: 1
`
	p := New("f", dots)
	top, _ := p.Fields(node(t, src), "")
	f, ok := p.Fields(top.Lookup("job"), "job")
	if !ok {
		t.Fatal(messages(p))
	}
	slots, weight, prio := 1, 0.0, 42
	if Field(f, "slots", &slots, IntAtLeast(0)) || slots != 1 {
		t.Errorf("a bad value changed the default: slots = %d", slots)
	}
	if !Field(f, "weight", &weight, PositiveNumber) || weight != 2.5 {
		t.Errorf("weight = %v", weight)
	}
	if Field(f, "priority", &prio, IntIn(1, 99)) || prio != 42 {
		t.Errorf("an absent field changed the default: priority = %d", prio)
	}
	f.Required("name")
	if f.KeyLine("weight") != 4 || f.ValueLine("absent") != 2 || f.Line != 2 {
		t.Errorf("lines: key %d, absent %d, mapping %d", f.KeyLine("weight"), f.ValueLine("absent"), f.Line)
	}
	f.Errorf("weight", "too heavy")
	f.Done()
	top.Done()
	// Errors on one line keep the order in which they were found.
	want := `f:2: job.slots: expected an integer >= 0, got -2
f:2: job: missing required field "name"
f:3: job: unknown field "priorty"; did you mean "priority"?
f:4: job.weight: too heavy
f:5: job: unknown field "zzz" (known fields: slots, weight, priority, name)`
	if got := messages(p); got != want {
		t.Errorf("errors:\n%s\nwant:\n%s", got, want)
	}
}

func TestList(t *testing.T) {
	p := New("f", colons)
	root, _ := p.Fields(node(t, "a: [1, 2]\nb:\nc: x\n"), "")
	if items, ok := p.List(root.Lookup("a"), "a", "things"); !ok || len(items) != 2 {
		t.Errorf("List(a) = %v, %v", items, ok)
	}
	if items, ok := p.List(root.Lookup("b"), "b", "things"); !ok || items != nil {
		t.Errorf("List(null) = %v, %v", items, ok)
	}
	if _, ok := p.List(root.Lookup("c"), "c", "things"); ok {
		t.Error("List of a scalar succeeded")
	}
	if got, want := messages(p), `f:3: c: expected a list of things, got "x"`; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}

// anyValue turns a ValueParser of any type into one of any.
func anyValue[T any](vp ValueParser[T]) ValueParser[any] {
	return func(p *Parser, n *yaml.Node, path string) (any, bool) { return vp(p, n, path) }
}

func TestValues(t *testing.T) {
	type result struct {
		v   any
		msg string
	}
	tests := []struct {
		name  string
		parse ValueParser[any]
		src   string
		want  result
	}{
		{"int in range", anyValue(IntIn(1, 99)), "7", result{v: 7}},
		{"int hex", anyValue(IntAtLeast(0)), "0x10", result{v: 16}},
		{"int too big", anyValue(IntIn(1, 99)), "100", result{msg: "f:1: v: expected an integer from 1 to 99, got 100"}},
		{"int as string", anyValue(IntAtLeast(0)), "'8'", result{msg: `f:1: v: expected an integer >= 0, got "8"`}},
		{"int beyond 64 bits", anyValue(IntAtLeast(0)), "99999999999999999999", result{msg: "f:1: v: expected an integer >= 0, got 99999999999999999999"}},
		{"int64", anyValue(Int64In(0, 1<<63-1, "an integer >= 0")), "-1", result{msg: "f:1: v: expected an integer >= 0, got -1"}},
		{"number", anyValue(Number), "1e3", result{v: 1000.0}},
		{"number inf", anyValue(Number), ".inf", result{msg: "f:1: v: expected a finite number, got .inf"}},
		{"positive", anyValue(PositiveNumber), "0", result{msg: "f:1: v: expected a number > 0, got 0"}},
		{"boolean", anyValue(Boolean), "false", result{v: false}},
		{"boolean yes", anyValue(Boolean), "yes", result{msg: `f:1: v: expected true or false, got "yes"`}},
		{"text number", anyValue(Text), "12", result{v: "12"}},
		{"text bool", anyValue(Text), "true", result{msg: "f:1: v: expected a string, got true"}},
		{"enum", anyValue(Enum("color", "red", "green")), "red", result{v: "red"}},
		{"enum typo", anyValue(Enum("color", "red", "green")), "gren", result{msg: `f:1: v: unknown color "gren"; did you mean "green"? (expected one of red, green)`}},
		{"enum type", anyValue(Enum("color", "red", "green")), "[red]", result{msg: "f:1: v: expected one of red, green, got a list"}},
		{"duration int", anyValue(Duration), "90", result{v: int64(90)}},
		{"duration float", anyValue(Duration), "90.0", result{v: int64(90)}},
		{"duration string", anyValue(Duration), "1h30m", result{v: int64(5400)}},
		{"duration fraction", anyValue(Duration), "1.5", result{msg: "f:1: v: expected a whole number of seconds, got 1.5"}},
		{"duration sub-second", anyValue(Duration), "1500ms", result{msg: `f:1: v: expected a whole number of seconds, got "1500ms"`}},
		{"duration negative", anyValue(Duration), "-5s", result{msg: `f:1: v: expected a duration >= 0, got "-5s"`}},
		{"duration garbage", anyValue(Duration), "9x", result{msg: `f:1: v: ` + durationWant + `, got "9x"`}},
		{"duration null", anyValue(Duration), "~", result{msg: "f:1: v: " + durationWant + ", got null"}},
		{"duration too long", anyValue(Duration), "1e30", result{msg: "f:1: v: duration 1e30 is too long (the limit is 9223372036s, about 292 years)"}},
		{"positive duration", anyValue(PositiveDuration), "0", result{msg: "f:1: v: expected a duration > 0, got 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New("f", dots)
			var got result
			if v, ok := tt.parse(p, node(t, "v: "+tt.src).Content[1], "v"); ok {
				got.v = v
			}
			got.msg = messages(p)
			if got != tt.want {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	// A chain of aliases longer than maxAliasDepth resolves to nothing
	// rather than looping.
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: "x"}
	for range maxAliasDepth + 1 {
		n = &yaml.Node{Kind: yaml.AliasNode, Alias: n}
	}
	if Resolve(n) != nil {
		t.Error("an over-long alias chain resolved")
	}
	p := New("f", dots)
	if _, ok := Text(p, n, "v"); ok {
		t.Error("Text of an over-long alias chain succeeded")
	}
	if got, want := messages(p), "f: v: expected a string, got nothing"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
	if !IsNull(node(t, "~")) || IsNull(node(t, "'~'")) {
		t.Error("IsNull")
	}
}

func TestStringMap(t *testing.T) {
	// upper takes lower-case values and refuses the others.
	upper := func(p *Parser) func(Pair, string) (string, bool) {
		return func(pr Pair, path string) (string, bool) {
			if strings.ToLower(pr.Val.Value) != pr.Val.Value {
				p.Errorf(pr.Val, path, "expected lower case")
				return "", false
			}
			return strings.ToUpper(pr.Val.Value), true
		}
	}
	tests := []struct {
		name, src string
		want      map[string]string
		ok        bool
		errs      string
	}{
		{"null", "m: ~\n", nil, true, ""},
		{"empty", "m: {}\n", map[string]string{}, true, ""},
		{"values", "m: {a: x, b: y}\n", map[string]string{"a": "X", "b": "Y"}, true, ""},
		{"a refused value is left out", "m: {a: x, b: Y}\n", map[string]string{"a": "X"}, false, "f:1: m.b: expected lower case"},
		{"not a mapping", "m: [a]\n", nil, false, "f:1: m: expected a mapping, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New("f", dots)
			raw := node(t, tt.src).Content[1]
			got, ok := p.StringMap(raw, "m", upper(p))
			if ok != tt.ok || fmt.Sprint(got) != fmt.Sprint(tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("StringMap = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
			if msg := messages(p); msg != tt.errs {
				t.Errorf("errors %q, want %q", msg, tt.errs)
			}
		})
	}
}

// TestFieldsUnder: a nested mapping's field given one level up, or a
// likely typo of one, is answered with where it belongs; this mapping's
// own fields are suggested first, and an exact nested field wins over a
// typo of another.
func TestFieldsUnder(t *testing.T) {
	tests := []struct{ name, key, want string }{
		{"nested field", "preemptible", `unknown field "preemptible"; did you mean "resources.preemptible"?`},
		{"typo of a nested field", "preemptable", `unknown field "preemptable"; did you mean "resources.preemptible"?`},
		{"second nested mapping", "max_trials", `unknown field "max_trials"; did you mean "searcher.max_trials"?`},
		{"exact beats a typo", "slot", `unknown field "slot"; did you mean "searcher.slot"?`},
		{"own field first", "nmae", `unknown field "nmae"; did you mean "name"?`},
		{"neither", "zzz", `unknown field "zzz" (known fields: name, resources, searcher)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New("f", dots)
			f, ok := p.Fields(node(t, "name: a\n"+tt.key+": 1\n"), "")
			if !ok {
				t.Fatal(messages(p))
			}
			f.Lookup("name")
			f.Known("resources", "searcher")
			f.Under("resources", "slots", "preemptible")
			f.Under("searcher", "max_trials", "slot")
			f.Done()
			if got := messages(p); got != "f:2: "+tt.want {
				t.Errorf("%s\nwant f:2: %s", got, tt.want)
			}
		})
	}
}
