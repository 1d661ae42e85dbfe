package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlagValueErrors: a value a typed flag cannot parse is said as the
// CLI's own flag checks say theirs, "allot: --FLAG: expected ..., got
// "..."", with no strconv or time package text (trial 2026-11-29d D6),
// for any command and any flag type, and stays a usage error (exit 2).
func TestFlagValueErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"submit", "--gpus", "abc", "job.yaml"}, `allot: --gpus: expected a whole number >= 0, got "abc"`},
		{[]string{"submit", "-G", "2x", "job.yaml"}, `allot: --gpus: expected a whole number >= 0, got "2x"`},
		{[]string{"submit", "--gpus-per-task=1.5", "job.yaml"}, `allot: --gpus-per-task: expected a whole number >= 0, got "1.5"`},
		{[]string{"jobs", "--watch", "--interval", "xyz"}, `allot: --interval: expected a duration such as 90s, 15m or 2h, got "xyz"`},
		{[]string{"history", "check", "--context", "many"}, `allot: --context: expected a whole number, got "many"`},
		{[]string{"bench", "live", "--rate", "fast"}, `allot: --rate: expected a number, got "fast"`},
		{[]string{"jobs", "--watch=maybe"}, `allot: --watch: expected true or false, got "maybe"`},
		// A value type of the CLI's own says its own words.
		{[]string{"sim", "trace.swf", "--nodes", "0"}, `allot: --nodes: expected a count >= 1 (leave the flag out for the default), got "0"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(tt.args, &out, &errOut)
			got := errOut.String()
			if code != ExitUsage || !strings.HasPrefix(got, tt.want+"\n") {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, got, ExitUsage, tt.want)
			}
			for _, leak := range []string{"strconv.", "time: ", "invalid argument"} {
				if strings.Contains(got, leak) {
					t.Errorf("stderr %q: says %q, pflag's words", got, leak)
				}
			}
		})
	}
}
