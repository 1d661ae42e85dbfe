package cli

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// TestLogFlagsShared: the master and the agent take the same log flags,
// --log-format text|json, and the master's old --log-json as a deprecated
// alias of --log-format json, hidden from the help.
func TestLogFlagsShared(t *testing.T) {
	cmds := map[string]func() *cobra.Command{"master": newMasterCmd, "agent": newAgentCmd}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"default", nil, "text"},
		{"format json", []string{"--log-format", "json"}, "json"},
		{"format text", []string{"--log-format=text"}, "text"},
		{"old spelling", []string{"--log-json"}, "json"},
	}
	for name, mk := range cmds {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				cmd := mk()
				fl := cmd.Flags()
				if err := fl.Parse(tc.args); err != nil {
					t.Fatal(err)
				}
				format, _ := fl.GetString("log-format")
				asJSON, _ := fl.GetBool("log-json")
				if got := logFormatOf(format, asJSON); got != tc.want {
					t.Fatalf("%v: log format %q, want %q", tc.args, got, tc.want)
				}
				if f := fl.Lookup("log-json"); f == nil || !f.Hidden || f.Deprecated == "" {
					t.Fatalf("--log-json is not a hidden, deprecated alias: %+v", f)
				}
			})
		}
	}
	t.Run("bad format", func(t *testing.T) {
		var ue *usageError
		if _, err := newLogger(nil, "info", logFormatOf("xml", false)); !errors.As(err, &ue) {
			t.Fatalf("--log-format xml: %v, want a usage error", err)
		}
	})
}
