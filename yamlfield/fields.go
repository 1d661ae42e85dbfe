package yamlfield

import (
	"fmt"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"
)

// maxAliasDepth bounds alias chains; the YAML library makes only short
// ones, but the walk must terminate whatever the tree looks like.
const maxAliasDepth = 32

// Resolve follows aliases to the node they name; nil if there is none.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i == maxAliasDepth {
			return nil
		}
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is the null scalar (written ~, null or nothing).
func IsNull(n *yaml.Node) bool {
	n = Resolve(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

var plainKey = regexp.MustCompile(`^([A-Za-z0-9_-]+|<<)$`)

// Join extends a field path with a key, in the style of Options.Paths:
// `jobs[2] "asha": slots` with PathColons; resources.slots with PathDots,
// where keys that are not plain words are quoted so that
// hyperparameters."a.b" cannot be misread.
func (p *Parser) Join(path, key string) string {
	sep := ": "
	if p.opts.Paths == PathDots {
		sep = "."
		if !plainKey.MatchString(key) {
			key = Quote(key)
		}
	}
	if path == "" {
		return key
	}
	return path + sep + key
}

// Index extends a field path with a list index: "vals[2]".
func Index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// Pair is one entry of a mapping.
type Pair struct{ Key, Val *yaml.Node }

// StringMap reads a mapping whose values value turns into strings, each
// with its key's path, reporting its own errors; an entry value refuses
// is left out and makes the result not ok. Null is no mapping at all
// (nil, ok); an empty mapping is an empty, non-nil map.
func (p *Parser) StringMap(raw *yaml.Node, path string, value func(pr Pair, path string) (string, bool)) (map[string]string, bool) {
	if IsNull(raw) {
		return nil, true
	}
	prs, ok := p.Pairs(raw, path)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(prs))
	for _, pr := range prs {
		v, vok := value(pr, p.Join(path, pr.Key.Value))
		if !vok {
			ok = false
			continue
		}
		out[pr.Key.Value] = v
	}
	return out, ok
}

// Pairs returns the entries of a mapping with merge keys (<<) applied,
// reporting duplicate and non-scalar keys. Own keys win over merged ones,
// and earlier merge sources over later ones, as YAML specifies.
func (p *Parser) Pairs(raw *yaml.Node, path string) ([]Pair, bool) {
	n := Resolve(raw)
	if n == nil || n.Kind != yaml.MappingNode {
		p.Errorf(raw, path, "expected a mapping, got %s", p.Describe(n))
		return nil, false
	}
	return p.mergePairs(n, path, map[*yaml.Node]bool{}), true
}

func (p *Parser) mergePairs(n *yaml.Node, path string, visited map[*yaml.Node]bool) []Pair {
	// visited makes self-referencing anchors terminate and keeps nested
	// merges linear: a mapping merged a second time adds no new keys.
	visited[n] = true
	var own []Pair
	var sources []*yaml.Node
	first := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			sources = append(sources, p.mergeSources(v, path)...)
			continue
		}
		if k = Resolve(k); k == nil || k.Kind != yaml.ScalarNode || (p.opts.RejectNullKeys && k.ShortTag() == "!!null") {
			p.Errorf(n.Content[i], path, "expected a field name, got %s", p.Describe(k))
			continue
		}
		if f, dup := first[k.Value]; dup {
			p.Errorf(k, path, "duplicate key %s (first at line %d)", Quote(k.Value), f.Line)
			continue
		}
		first[k.Value] = k
		own = append(own, Pair{k, v})
	}
	for _, src := range sources {
		if visited[src] {
			continue
		}
		for _, pr := range p.mergePairs(src, path, visited) {
			if _, set := first[pr.Key.Value]; !set {
				first[pr.Key.Value] = pr.Key
				own = append(own, pr)
			}
		}
	}
	return own
}

// mergeSources returns the mappings named by the value of a << key.
func (p *Parser) mergeSources(raw *yaml.Node, path string) []*yaml.Node {
	n := Resolve(raw)
	if n != nil && n.Kind == yaml.MappingNode {
		return []*yaml.Node{n}
	}
	if n != nil && n.Kind == yaml.SequenceNode {
		var out []*yaml.Node
		for _, item := range n.Content {
			if m := Resolve(item); m != nil && m.Kind == yaml.MappingNode {
				out = append(out, m)
			} else {
				p.Errorf(item, p.Join(path, "<<"), "expected a mapping to merge, got %s", p.Describe(m))
			}
		}
		return out
	}
	p.Errorf(raw, p.Join(path, "<<"), "expected a mapping or a list of mappings to merge, got %s", p.Describe(n))
	return nil
}

// List returns the items of a sequence; of names them in the message
// ("expected a list of pools"). Null counts as an empty list, since a key
// with every entry commented out means none.
func (p *Parser) List(raw *yaml.Node, path, of string) ([]*yaml.Node, bool) {
	n := Resolve(raw)
	switch {
	case n != nil && n.Kind == yaml.SequenceNode:
		return n.Content, true
	case n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		return nil, true
	}
	p.Errorf(raw, path, "expected a list of %s, got %s", of, p.Describe(n))
	return nil, false
}

// Fields reads one mapping by key. Every key looked up becomes a known
// field, and Done reports the rest as unknown; so adding a field to a
// format is one call, and "did you mean" always knows the full set.
type Fields struct {
	// Path is the mapping's path, which errors about its fields extend. A
	// caller may change it once it knows more, such as the item's name.
	Path string
	// Line is the line of the mapping, where missing fields are reported.
	Line int

	p     *Parser
	pairs []Pair
	known []string
	// under are the fields of mappings nested in this one (Under).
	under []nestedFields
	// said are hints for keys other tools use (Say), which a spelling
	// guess would get wrong.
	said map[string]string
}

// Say gives the hint for an unknown key that another tool uses for what
// this mapping calls otherwise ("gpus" for slots): Done reports it in
// place of a spelling guess, which could point at a field of another
// meaning ("gpu", the GPU type).
func (f *Fields) Say(key, hint string) {
	if f.said == nil {
		f.said = map[string]string{}
	}
	f.said[key] = hint
}

// nestedFields are the fields of the mapping at key path of another.
type nestedFields struct {
	path string
	keys []string
}

// Fields starts reading the mapping raw, or records that it is none.
func (p *Parser) Fields(raw *yaml.Node, path string) (*Fields, bool) {
	prs, ok := p.Pairs(raw, path)
	if !ok {
		return nil, false
	}
	return &Fields{Path: path, Line: raw.Line, p: p, pairs: prs}, true
}

// Lookup returns the value of key, or nil when it is absent.
func (f *Fields) Lookup(key string) *yaml.Node {
	f.known = append(f.known, key)
	return f.Node(key)
}

// Known makes keys known fields, in the order given, before they are
// read: a format whose sections are read in another order than its
// documentation lists them (a shared reader reads some first) keeps the
// documented order in the unknown-field hint.
func (f *Fields) Known(keys ...string) {
	f.known = append(f.known, keys...)
}

// Under names keys as the fields of the mapping at path, relative to this
// one (such as "resources"): Done answers one of them given here, or a
// likely typo of one, with where it belongs (did you mean
// "resources.preemptible"?) rather than with this mapping's own fields.
func (f *Fields) Under(path string, keys ...string) {
	f.under = append(f.under, nestedFields{path: path, keys: keys})
}

// misplaced is the hint for an unknown key that is a field of a nested
// mapping, or a likely typo of one; "" for neither. A field given exactly
// wins over a typo of another.
func (f *Fields) misplaced(key string) string {
	for _, n := range f.under {
		if slices.Contains(n.keys, key) {
			return fmt.Sprintf("; did you mean %q?", n.path+"."+key)
		}
	}
	for _, n := range f.under {
		if best := closest(key, n.keys); best != "" {
			return fmt.Sprintf("; did you mean %q?", n.path+"."+best)
		}
	}
	return ""
}

// Has reports whether key is present, without judging its value.
func (f *Fields) Has(key string) bool { return f.Lookup(key) != nil }

// Node returns the value of key without making it known; nil when absent.
func (f *Fields) Node(key string) *yaml.Node {
	for _, pr := range f.pairs {
		if pr.Key.Value == key {
			return pr.Val
		}
	}
	return nil
}

// KeyLine returns the line of key, or of the mapping when key is absent.
func (f *Fields) KeyLine(key string) int {
	for _, pr := range f.pairs {
		if pr.Key.Value == key {
			return pr.Key.Line
		}
	}
	return f.Line
}

// ValueLine returns the line of key's value, or of the mapping when key is
// absent.
func (f *Fields) ValueLine(key string) int {
	if n := f.Node(key); n != nil {
		return n.Line
	}
	return f.Line
}

// Required reports key as missing unless present.
func (f *Fields) Required(key string) bool {
	if f.Lookup(key) == nil {
		f.p.ErrorAt(f.Line, f.Path, nil, "missing required field %q", key)
		return false
	}
	return true
}

// Errorf records an error about the value of key.
func (f *Fields) Errorf(key, format string, args ...any) {
	f.p.ErrorAt(f.ValueLine(key), f.p.Join(f.Path, key), nil, format, args...)
}

// Done reports every key that no lookup asked for.
func (f *Fields) Done() {
	known := make(map[string]bool, len(f.known))
	var list []string
	for _, k := range f.known {
		if !known[k] {
			known[k] = true
			list = append(list, k)
		}
	}
	for _, pr := range f.pairs {
		if known[pr.Key.Value] {
			continue
		}
		hint := Suggest(pr.Key.Value, list)
		if said, ok := f.said[pr.Key.Value]; ok {
			hint = "; " + said
		}
		if hint == "" {
			hint = f.misplaced(pr.Key.Value)
		}
		if hint == "" {
			hint = fmt.Sprintf(" (known fields: %s)", OneOf(list))
		}
		f.p.Errorf(pr.Key, f.Path, "unknown field %s%s", Quote(pr.Key.Value), hint)
	}
}

// ValueParser checks one YAML value and converts it. It reports its own
// errors, naming path, and returns false after doing so.
type ValueParser[T any] func(p *Parser, n *yaml.Node, path string) (T, bool)

// Field sets *dst from key when key is present and valid, and reports
// whether it did. On absence or error *dst keeps its default.
func Field[T any](f *Fields, key string, dst *T, parse ValueParser[T]) bool {
	n := f.Lookup(key)
	if n == nil {
		return false
	}
	v, ok := parse(f.p, n, f.p.Join(f.Path, key))
	if ok {
		*dst = v
	}
	return ok
}
