package yamlfield

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Decode turns data into the document's root node, or records why it
// cannot: a syntax error, an empty or null document, or a second document.
// Syntax errors name the line of the problem rather than the one the YAML
// library reports (see locate).
func (p *Parser) Decode(data []byte) (*yaml.Node, bool) {
	empty := "empty file: expected " + p.opts.Expected
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.ErrorAt(0, "", nil, "%s", empty)
		} else {
			p.syntaxError(data, err)
		}
		return nil, false
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if r := Resolve(root); r == nil || r.Kind == 0 || (r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null") {
		p.ErrorAt(0, "", nil, "%s", empty)
		return nil, false
	}
	var next yaml.Node
	switch err := safeDecode(dec, &next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		p.syntaxError(data, err)
		return nil, false
	default:
		p.Errorf(&next, "", "a second YAML document starts here; %s is a single document", p.opts.Document)
		return nil, false
	}
	return root, true
}

// safeDecode turns a panic inside the YAML library into an error: parsers
// promise never to panic, whatever the bytes.
func safeDecode(dec *yaml.Decoder, out *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot parse: %v", r)
		}
	}()
	return dec.Decode(out)
}

func (p *Parser) syntaxError(data []byte, err error) {
	line, msg := locate(data, err)
	p.ErrorAt(line, "", err, "invalid %s%s", syntaxName(data), msg)
}

// syntaxName names the syntax that a file with a syntax error was written
// in. YAML reads JSON too, so a file that starts with { or [ is likely
// JSON, and "invalid YAML" would read as if JSON were not accepted.
func syntaxName(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if line[0] == '{' || line[0] == '[' {
			return "JSON or YAML"
		}
		break
	}
	return "YAML"
}
