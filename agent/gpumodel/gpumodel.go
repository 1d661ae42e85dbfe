package gpumodel

import (
	"regexp"
	"strings"
)

var (
	brandWords = map[string]bool{"nvidia": true, "tesla": true, "geforce": true, "quadro": true}
	// modelWord is a data-center model: h100, a100, gh200, l40s, t4, a10g.
	modelWord = regexp.MustCompile(`^[a-z]{1,2}[0-9]{1,4}[a-z]?$`)
	digits    = regexp.MustCompile(`^[0-9]{3,5}$`)
	nonWord   = regexp.MustCompile(`[^a-z0-9]+`)
)

// Type derives the short type used in pools and job constraints from a
// GPU's marketing name. The rule, on the lower-cased name split into words
// at spaces, '-' and '_', with the brand words nvidia, tesla, geforce and
// quadro left out:
//
//  1. A first word like h100, a100, h200, gh200, l40s, t4 or a10g (one or
//     two letters, 1-4 digits, an optional letter) is the type; memory
//     sizes and form factors after it are ignored ("NVIDIA A100 80GB PCIe"
//     and "NVIDIA A100-SXM4-80GB" are both "a100").
//  2. rtx, gtx or titan followed by such a model word is that word ("NVIDIA
//     RTX A6000" is "a6000"); followed by a number it is joined to it, with
//     a following ti, super or ada ("GeForce RTX 4090" is "rtx4090", "RTX
//     3080 Ti" is "rtx3080ti", "RTX 6000 Ada Generation" is "rtx6000ada").
//  3. Anything else is the remaining words reduced to [a-z0-9] runs joined
//     by '-' ("NVIDIA TITAN RTX" is "titan-rtx", "Some Accelerator v2" is
//     "some-accelerator-v2"); if nothing remains, the whole name so
//     reduced ("NVIDIA" is "nvidia"); if still nothing, "unknown".
func Type(name string) string {
	lower := strings.ToLower(name)
	var words []string
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '\t' }) {
		if !brandWords[w] {
			words = append(words, w)
		}
	}
	if len(words) > 0 && modelWord.MatchString(words[0]) {
		return words[0]
	}
	if len(words) > 1 && (words[0] == "rtx" || words[0] == "gtx" || words[0] == "titan") {
		switch {
		case modelWord.MatchString(words[1]):
			return words[1]
		case digits.MatchString(words[1]):
			t := words[0] + words[1]
			for _, w := range words[2:] {
				if w != "ti" && w != "super" && w != "ada" {
					break
				}
				t += w
			}
			return t
		}
	}
	for _, s := range []string{strings.Join(words, " "), lower} {
		if t := strings.Trim(nonWord.ReplaceAllString(s, "-"), "-"); t != "" {
			// The type read again is itself: "a0!0" gives "a0-0", which
			// reads as model a0 (a job file's round trip, FuzzParse).
			if t == lower {
				return t
			}
			if again := Type(t); again != t && again != "unknown" {
				return again
			}
			return t
		}
	}
	return "unknown"
}
