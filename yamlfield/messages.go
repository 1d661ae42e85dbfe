package yamlfield

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// quoteLimit is how many bytes of a value messages show.
const quoteLimit = 40

// Describe renders a value for "got ..." in messages. Strings are quoted;
// with Options.BareNumbers, integers, floats and booleans are shown as
// written, so that slots: "8" (a string) reads differently from slots: 8.
func (p *Parser) Describe(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		var s string
		switch tag := n.ShortTag(); {
		case tag == "!!null":
			return "null"
		case p.opts.BareNumbers && (tag == "!!int" || tag == "!!float" || tag == "!!bool"):
			s = shorten(n.Value)
		default:
			s = Quote(n.Value)
		}
		if n.Style&yaml.TaggedStyle != 0 {
			s = n.Tag + " " + s
		}
		return s
	}
	return "an unresolvable alias"
}

// cut returns s cut to quoteLimit bytes at a rune boundary, and whether it
// had to cut.
func cut(s string) (string, bool) {
	if len(s) <= quoteLimit {
		return s, false
	}
	n := quoteLimit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// shorten cuts s so that a huge value cannot flood a message.
func shorten(s string) string {
	if c, cutOff := cut(s); cutOff {
		return c + "..."
	}
	return s
}

// Quote quotes s, shortened so that a huge value cannot flood the message.
func Quote(s string) string {
	if c, cutOff := cut(s); cutOff {
		return fmt.Sprintf("%q...", c)
	}
	return fmt.Sprintf("%q", s)
}

// Suggest returns `; did you mean "x"?` when some option is a likely typo
// of word, else "".
func Suggest(word string, options []string) string {
	best := closest(word, options)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// closest returns the option that is a likely typo of word, or "".
func closest(word string, options []string) string {
	// Suggestions are a courtesy; on huge inputs they would cost more than
	// they help.
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
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// in runes: Levenshtein plus adjacent transpositions, since swapped letters
// ("sfw" for "swf") are among the commonest typos.
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

// OneOf renders a value list for messages: "a, b, c".
func OneOf[S ~string](values []S) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
