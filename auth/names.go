package auth

import (
	"fmt"
	"unicode/utf8"
)

// MaxNameLen bounds user, node, pool and project names: they appear in
// paths, logs, labels and metrics.
const MaxNameLen = 63

// CheckName validates a user, node, pool or project name: 1 to 63
// characters, ASCII letters, digits, '.', '_' and '-', starting and
// ending with a letter or digit. what names the kind in the error ("node
// name"). A refusal counts characters, not bytes, and names a
// character by its rune and code point: a look-alike letter of another
// script (Cyrillic 'а') printed as its first byte read as garbage
// (trial 2026-11-29i I26).
func CheckName(what, name string) error {
	if name == "" {
		return fmt.Errorf("%s: expected 1 to %d characters, got an empty string", what, MaxNameLen)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLen {
		return fmt.Errorf("%s %.20q...: expected at most %d characters, got %d", what, name, MaxNameLen, n)
	}
	i := 0
	for at, c := range name {
		i++
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum {
			continue
		}
		if (c == '.' || c == '_' || c == '-') && i > 1 && at < len(name)-1 {
			continue
		}
		return fmt.Errorf("%s %q: character %d (%s) is not allowed: expected ASCII letters, digits, '.', '_' or '-', "+
			"starting and ending with a letter or digit", what, name, i, runeWords(name[at:], c))
	}
	return nil
}

// runeWords names character c, which starts rest: 'а', U+0430, or the
// byte of a name that is not UTF-8.
func runeWords(rest string, c rune) string {
	if c == utf8.RuneError {
		if _, size := utf8.DecodeRuneInString(rest); size <= 1 {
			return fmt.Sprintf("byte 0x%02X, not UTF-8", rest[0])
		}
	}
	return fmt.Sprintf("%q, U+%04X", c, c)
}
