package cli

import (
	"strings"
	"testing"
)

// TestParseSeconds: durations for --until and --ttl read as --since
// reads them: whole seconds, Go durations and whole days.
func TestParseSeconds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
		err  string
	}{
		{"seconds", "3600", 3600, ""},
		{"go duration", "90m", 5400, ""},
		{"days", "1d", 86400, ""},
		{"a week", "7d", 7 * 86400, ""},
		{"negative", "-5", 0, "expected a duration >= 0"},
		{"fraction of a second", "1.5s", 0, "expected whole seconds or a duration such as 90m or 7d"},
		{"days not whole", "1.5d", 0, "expected whole seconds"},
		{"garbage", "soon", 0, `got "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSeconds("until", tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "--until") {
					t.Fatalf("parseSeconds(%q) = %d, %v; want an error naming --until and %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseSeconds(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestSimPolicyCurrent: allot sim --policy current replays the workload's
// own settings, as sim compare's current does; an unknown policy is still
// an error.
func TestSimPolicyCurrent(t *testing.T) {
	set, err := settingsFor("current", "")
	if err != nil || set.Name != "current" {
		t.Fatalf("settingsFor(current) = %+v, %v", set, err)
	}
	if _, err := settingsFor("nonsense", ""); err == nil {
		t.Fatal("an unknown policy was accepted")
	}
}
