package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnknownFlagSuggests: a mistyped long flag names the flag meant, a
// typo away or the only one the word begins, the command's own or a
// global one; a word like no flag gets none; it stays a usage error.
func TestUnknownFlagSuggests(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "--projct", "x"}, "allot jobs: unknown flag: --projct; did you mean --project?"},
		{[]string{"jobs", "--al"}, "allot jobs: unknown flag: --al; did you mean --all?"},
		{[]string{"usage", "--sinse", "1d"}, "allot usage: unknown flag: --sinse; did you mean --since?"},
		{[]string{"jobs", "--mastr", "x"}, "allot jobs: unknown flag: --mastr; did you mean --master?"},
		{[]string{"jobs", "--xyzzy"}, "allot jobs: unknown flag: --xyzzy\n"},
		// Named after the command, which has no such flag (it read
		// "allot: unknown shorthand flag").
		{[]string{"token", "create", "-o", "json"}, "allot token create: unknown shorthand flag: 'o' in -o\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(tt.args, &out, &errOut)
			if code != ExitUsage || !strings.HasPrefix(errOut.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), ExitUsage, tt.want)
			}
		})
	}
}
