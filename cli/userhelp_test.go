package cli

import (
	"strings"
	"testing"
)

// TestUserStateHelp: allot user's help says what enable does, not what
// disable does (both once read "a disabled user's tokens stop working").
func TestUserStateHelp(t *testing.T) {
	cases := []struct {
		name, want, not string
	}{
		{"disable", "disable     Disable a user: the user's tokens stop working at once", ""},
		{"enable", "enable      Enable a disabled user: the user's tokens work again", "stop working"},
	}
	out, _, err := run(t, "user", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var line string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), tc.name+" ") {
					line = strings.TrimSpace(l)
				}
			}
			if line != tc.want || (tc.not != "" && strings.Contains(line, tc.not)) {
				t.Fatalf("allot user --help: %q, want %q", line, tc.want)
			}
		})
	}
}
