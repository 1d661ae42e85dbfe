package jobfile

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// FieldLine returns the line in the YAML job file data of the field at
// path, a dotted path as this package's errors and the master's api.Error
// Field spell it ("pool", "resources.slots", hyperparameters."a.b",
// searcher.values[2]). It lets a client report an error that only the
// master can find (an unknown pool, a job no node could run) at its line,
// as Parse reports its own. When the field itself is not in the file (the
// master's default pool, a slot count left to its default), the line is
// that of the nearest field above it that is, such as resources; 0 when
// there is none or data is no mapping.
func FieldLine(data []byte, path string) int {
	line, _ := fieldAt(data, path)
	return line
}

// HasField reports whether the YAML job file data gives the field at path
// itself (FieldLine's path), not only a field above it.
func HasField(data []byte, path string) bool {
	_, found := fieldAt(data, path)
	return found
}

// fieldAt is FieldLine's line, with whether the field itself was found.
func fieldAt(data []byte, path string) (line int, found bool) {
	p := yamlfield.New("", format)
	node, ok := p.Decode(data)
	if !ok {
		return 0, false
	}
	segs := splitPath(path)
	for i, seg := range segs {
		node = yamlfield.Resolve(node)
		var next *yaml.Node
		switch {
		case node == nil:
		case seg.index >= 0 && node.Kind == yaml.SequenceNode && seg.index < len(node.Content):
			next = node.Content[seg.index]
			line = next.Line
		case seg.index < 0 && node.Kind == yaml.MappingNode:
			// Pairs follows << merges, so a field given by an anchor is
			// found at the line that gives it.
			pairs, _ := p.Pairs(node, "")
			for _, pr := range pairs {
				if pr.Key.Value == seg.key {
					next, line = pr.Val, pr.Key.Line
					break
				}
			}
		}
		if next == nil {
			return line, false
		}
		node = next
		found = i == len(segs)-1
	}
	return line, found
}

// pathSegment is one step of a field path: a key, or a list index.
type pathSegment struct {
	key   string
	index int // -1 for a key
}

// splitPath cuts a dotted path into keys and indexes: keys are plain
// words or quoted as Go quotes strings (yamlfield.Parser.Join), each may
// be followed by [N] indexes. What it cannot read ends the path there.
func splitPath(path string) []pathSegment {
	var out []pathSegment
	for rest := path; rest != ""; {
		var key string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return out
			}
			key, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key, rest = rest[:end], rest[end:]
		}
		out = append(out, pathSegment{key: key, index: -1})
		for strings.HasPrefix(rest, "[") {
			num, after, ok := strings.Cut(rest[1:], "]")
			i, err := strconv.Atoi(num)
			if !ok || err != nil || i < 0 {
				return out
			}
			out = append(out, pathSegment{index: i})
			rest = after
		}
		if rest != "" && !strings.HasPrefix(rest, ".") {
			return out
		}
		rest = strings.TrimPrefix(rest, ".")
	}
	return out
}
