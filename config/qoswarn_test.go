package config

import (
	"strings"
	"testing"
)

// TestQOSWarning: a qos section of one level without default_qos is
// told, naming the level, its line and default_qos (trial 2026-11-29j
// J9); several levels, the built-ins, or default_qos set say nothing.
func TestQOSWarning(t *testing.T) {
	tests := []struct {
		name, path, src, want string
	}{
		{"one level", "c.yaml", "qos:\n  - {name: high, priority: 100}\n",
			"c.yaml:2: qos: high is the only level, so it is every job's QOS"},
		{"no file named", "", "qos: [{name: high, priority: 100}]\n", "line 1: qos: high is the only level"},
		{"default_qos set", "c.yaml", "qos: [{name: high, priority: 100}]\ndefault_qos: high\n", ""},
		{"two levels", "c.yaml", "qos: [{name: normal}, {name: high, priority: 100}]\n", ""},
		{"the built-ins", "c.yaml", "{}\n", ""},
		{"none", "c.yaml", "qos: []\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("c.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			got := QOSWarning(tt.path, c)
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("QOSWarning = %q, want it to start %q", got, tt.want)
			}
			if tt.want != "" && !strings.Contains(got, "default_qos: high") {
				t.Errorf("QOSWarning = %q, want it to name default_qos", got)
			}
		})
	}
}
