package auth

import "fmt"

// MaxNameLen bounds user, node, pool and project names: they appear in
// paths, logs, labels and metrics.
const MaxNameLen = 63

// CheckName validates a user, node, pool or project name: 1 to 63
// characters, letters, digits, '.', '_' and '-', starting and ending with
// a letter or digit. what names the kind in the error ("node name").
func CheckName(what, name string) error {
	if name == "" {
		return fmt.Errorf("%s: expected 1 to %d characters, got an empty string", what, MaxNameLen)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%s %.20q...: expected at most %d characters, got %d", what, name, MaxNameLen, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum {
			continue
		}
		if (c == '.' || c == '_' || c == '-') && i > 0 && i < len(name)-1 {
			continue
		}
		return fmt.Errorf("%s %q: character %d (%q) is not allowed: expected letters, digits, '.', '_' or '-', "+
			"starting and ending with a letter or digit", what, name, i+1, c)
	}
	return nil
}
