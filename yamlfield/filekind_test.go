package yamlfield

import (
	"strings"
	"testing"
)

// TestWrongKind: a file is named for another kind only when it has that
// kind's keys and none of its own, at the key's line rather than its
// value's (trial 2026-11-29h H4).
func TestWrongKind(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      string // "" for no error
	}{
		{"a config", "pools: []\ndefault_pool: p\n", "f:2: default_pool: this looks like the master's configuration file (it has default_pool)"},
		{"a job file, at the key's line", "entrypoint:\n  # the command\n  x\n", "f:1: entrypoint: this looks like a job file (it has entrypoint)"},
		{"a scenario with a stray config key", "jobs: []\ndefault_qos: high\n", ""},
		{"a scenario with a stray job file key", "events: []\nentrypoint: x\n", ""},
		{"neither", "pools: []\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := New("f", colons)
			f, ok := p.Fields(node(t, tt.src), "")
			if !ok {
				t.Fatal(messages(p))
			}
			got := WrongKind(f, ScenarioFile, "allot sim reads a scenario", ConfigFile, JobFile)
			msg := messages(p)
			if got != (tt.want != "") || !strings.Contains(msg, tt.want) || (tt.want == "" && msg != "") {
				t.Errorf("WrongKind = %v, errors %q; want %q", got, msg, tt.want)
			}
		})
	}
}
