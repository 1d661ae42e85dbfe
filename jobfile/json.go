package jobfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/yamlfield"
)

// decodeJSON turns a JSON document into the yaml.Node tree that the YAML
// path walks, so that JSON specs get exactly the same checks and messages.
// Types survive the trip: a JSON string is a !!str node whatever its text
// ("8" stays a string), a number with a fraction or exponent is !!float
// and other numbers !!int. Each node carries the line of its JSON token.
func (p *parser) decodeJSON(data []byte) (*yaml.Node, bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		p.ErrorAt(0, "", nil, "empty document: expected a JSON object with at least name and entrypoint")
		return nil, false
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		line := 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = lineOf(data, int(se.Offset))
		}
		msg := "invalid JSON"
		if err != nil {
			msg = "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
		}
		p.ErrorAt(line, "", err, "%s", msg)
		return nil, false
	}
	b := &jsonBuilder{data: data, dec: json.NewDecoder(bytes.NewReader(data)), line: 1}
	b.dec.UseNumber()
	root, err := b.value()
	if err != nil { // json.Valid accepted it, so this is not expected
		p.ErrorAt(0, "", err, "invalid JSON: %v", err)
		return nil, false
	}
	if yamlfield.IsNull(root) {
		p.ErrorAt(root.Line, "", nil, "expected a JSON object with at least name and entrypoint, got null")
		return nil, false
	}
	return root, true
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

type jsonBuilder struct {
	data []byte
	dec  *json.Decoder
	off  int // where line was last counted
	line int // the line at off
}

// next returns the next token and the line on which it starts.
func (b *jsonBuilder) next() (json.Token, int, error) {
	start := int(b.dec.InputOffset())
	for start < len(b.data) {
		switch b.data[start] {
		case ' ', '\t', '\r', '\n', ',', ':':
			start++
			continue
		}
		break
	}
	if start > b.off {
		b.line += bytes.Count(b.data[b.off:start], []byte("\n"))
		b.off = start
	}
	line := b.line
	tok, err := b.dec.Token()
	return tok, line, err
}

func (b *jsonBuilder) value() (*yaml.Node, error) {
	tok, line, err := b.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b.node(tok, line)
}

func (b *jsonBuilder) node(tok json.Token, line int) (*yaml.Node, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: line}
			for b.dec.More() {
				ktok, kline, err := b.next()
				if err != nil {
					return nil, err
				}
				key, ok := ktok.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v", ktok)
				}
				v, err := b.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content,
					&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Style: yaml.DoubleQuotedStyle, Line: kline}, v)
			}
			_, _, err := b.next() // '}'
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: line}
			for b.dec.More() {
				v, err := b.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			_, _, err := b.next() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Style: yaml.DoubleQuotedStyle, Line: line}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t), Line: line}, nil
	case bool:
		v := "false"
		if t {
			v = "true"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v, Line: line}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}
