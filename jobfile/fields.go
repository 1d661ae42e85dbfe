package jobfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// The helpers in this file and in values.go walk a yaml.Node tree with
// line-and-field errors. They follow the approach of package scenario and
// depend on nothing else in this package but parser and Error, so that they
// could move to a shared internal package unchanged.

// decode turns data into the document's root node. yaml.v3 reports syntax
// errors as "yaml: line N: msg"; the line is lifted out so that syntax
// errors read like every other error.
func (p *parser) decode(data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorAt(0, "", nil, "empty file: expected a mapping with at least name and entrypoint")
		} else {
			p.syntaxError(err)
		}
		return nil, false
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if r := resolve(root); r == nil || r.Kind == 0 || (r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null") {
		p.errorAt(0, "", nil, "empty file: expected a mapping with at least name and entrypoint")
		return nil, false
	}
	var next yaml.Node
	switch err := safeDecode(dec, &next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		p.syntaxError(err)
		return nil, false
	default:
		p.errorf(&next, "", "a second YAML document starts here; a job file is a single document")
		return nil, false
	}
	return root, true
}

// safeDecode turns a panic inside the YAML library into an error: Parse
// promises never to panic, whatever the bytes.
func safeDecode(dec *yaml.Decoder, out *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot parse: %v", r)
		}
	}()
	return dec.Decode(out)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) syntaxError(err error) {
	msg, line := err.Error(), 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	p.errorAt(line, "", err, "invalid YAML: %s", msg)
}

// maxAliasDepth bounds alias chains so that the walk terminates whatever
// the tree looks like.
const maxAliasDepth = 32

// resolve follows aliases to the node they name; nil if there is none.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i == maxAliasDepth {
			return nil
		}
		n = n.Alias
	}
	return n
}

var plainKey = regexp.MustCompile(`^([A-Za-z0-9_-]+|<<)$`)

// join extends a field path with a key: join("resources", "slots") is
// "resources.slots". Keys that are not plain words are quoted, so that
// hyperparameters."a.b" cannot be misread.
func join(path, key string) string {
	if !plainKey.MatchString(key) {
		key = quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// index extends a field path with a list index: "vals[2]".
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

type pair struct{ key, val *yaml.Node }

// pairs returns the entries of a mapping with merge keys (<<) applied,
// reporting duplicate and non-scalar keys. Own keys win over merged ones,
// and earlier merge sources over later ones, as YAML specifies.
func (p *parser) pairs(raw *yaml.Node, path string) ([]pair, bool) {
	n := resolve(raw)
	if n == nil || n.Kind != yaml.MappingNode {
		p.errorf(raw, path, "expected a mapping, got %s", describe(n))
		return nil, false
	}
	return p.mergePairs(n, path, map[*yaml.Node]bool{}), true
}

func (p *parser) mergePairs(n *yaml.Node, path string, visited map[*yaml.Node]bool) []pair {
	// visited makes self-referencing anchors terminate and keeps nested
	// merges linear: a mapping merged a second time adds no new keys.
	visited[n] = true
	var own []pair
	var sources []*yaml.Node
	first := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			sources = append(sources, p.mergeSources(v, path)...)
			continue
		}
		if k = resolve(k); k == nil || k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			p.errorf(n.Content[i], path, "expected a field name, got %s", describe(k))
			continue
		}
		if f, dup := first[k.Value]; dup {
			p.errorf(k, path, "duplicate key %s (first at line %d)", quote(k.Value), f.Line)
			continue
		}
		first[k.Value] = k
		own = append(own, pair{k, v})
	}
	for _, src := range sources {
		if visited[src] {
			continue
		}
		for _, pr := range p.mergePairs(src, path, visited) {
			if _, set := first[pr.key.Value]; !set {
				first[pr.key.Value] = pr.key
				own = append(own, pr)
			}
		}
	}
	return own
}

// mergeSources returns the mappings named by the value of a << key.
func (p *parser) mergeSources(raw *yaml.Node, path string) []*yaml.Node {
	n := resolve(raw)
	if n != nil && n.Kind == yaml.MappingNode {
		return []*yaml.Node{n}
	}
	if n != nil && n.Kind == yaml.SequenceNode {
		var out []*yaml.Node
		for _, item := range n.Content {
			if m := resolve(item); m != nil && m.Kind == yaml.MappingNode {
				out = append(out, m)
			} else {
				p.errorf(item, join(path, "<<"), "expected a mapping to merge, got %s", describe(m))
			}
		}
		return out
	}
	p.errorf(raw, join(path, "<<"), "expected a mapping or a list of mappings to merge, got %s", describe(n))
	return nil
}

// isNull reports whether n is the null scalar (written ~, null or nothing).
func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// fields reads one mapping by key. Every key looked up becomes a known
// field, and done reports the rest as unknown; so adding a field to the
// format is one call, and "did you mean" always knows the full set.
type fields struct {
	p     *parser
	path  string
	line  int // of the mapping, for missing fields
	pairs []pair
	known []string
}

func (p *parser) fields(raw *yaml.Node, path string) (*fields, bool) {
	prs, ok := p.pairs(raw, path)
	if !ok {
		return nil, false
	}
	return &fields{p: p, path: path, line: raw.Line, pairs: prs}, true
}

// lookup returns the value of key, or nil when it is absent.
func (f *fields) lookup(key string) *yaml.Node {
	f.known = append(f.known, key)
	for _, pr := range f.pairs {
		if pr.key.Value == key {
			return pr.val
		}
	}
	return nil
}

// has reports whether key is present, without judging its value.
func (f *fields) has(key string) bool { return f.lookup(key) != nil }

// node returns the value of key without making it known; nil when absent.
func (f *fields) node(key string) *yaml.Node {
	for _, pr := range f.pairs {
		if pr.key.Value == key {
			return pr.val
		}
	}
	return nil
}

// keyLine returns the line of key, or of the mapping when key is absent.
func (f *fields) keyLine(key string) int {
	for _, pr := range f.pairs {
		if pr.key.Value == key {
			return pr.key.Line
		}
	}
	return f.line
}

// valueLine returns the line of key's value, or of the mapping when key is
// absent.
func (f *fields) valueLine(key string) int {
	if n := f.node(key); n != nil {
		return n.Line
	}
	return f.line
}

// required reports key as missing unless present.
func (f *fields) required(key string) bool {
	if f.lookup(key) == nil {
		f.p.errorAt(f.line, f.path, nil, "missing required field %q", key)
		return false
	}
	return true
}

// errorf records an error about the value of key.
func (f *fields) errorf(key, format string, args ...any) {
	f.p.errorAt(f.valueLine(key), join(f.path, key), nil, format, args...)
}

// done reports every key that no lookup asked for.
func (f *fields) done() {
	known := make(map[string]bool, len(f.known))
	var list []string
	for _, k := range f.known {
		if !known[k] {
			known[k] = true
			list = append(list, k)
		}
	}
	for _, pr := range f.pairs {
		if known[pr.key.Value] {
			continue
		}
		hint := suggest(pr.key.Value, list)
		if hint == "" {
			hint = fmt.Sprintf(" (known fields: %s)", oneOf(list))
		}
		f.p.errorf(pr.key, f.path, "unknown field %s%s", quote(pr.key.Value), hint)
	}
}

// valueParser checks one YAML value and converts it. It reports its own
// errors, naming path, and returns false after doing so.
type valueParser[T any] func(p *parser, n *yaml.Node, path string) (T, bool)

// field sets *dst from key when key is present and valid, and reports
// whether it did. On absence or error *dst keeps its default.
func field[T any](f *fields, key string, dst *T, parse valueParser[T]) bool {
	n := f.lookup(key)
	if n == nil {
		return false
	}
	v, ok := parse(f.p, n, join(f.path, key))
	if ok {
		*dst = v
	}
	return ok
}
