package config

import "testing"

// TestMaxPriorityClassAnyCase: max_priority_class takes a class in any
// case, as a job file's priority_class does, and keeps it canonical.
func TestMaxPriorityClassAnyCase(t *testing.T) {
	for _, tc := range []struct{ name, given, want string }{
		{"canonical", "HIGH", "HIGH"},
		{"lower case", "high", "HIGH"},
		{"mixed case", "Normal", "NORMAL"},
		{"low", "low", "LOW"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, "default_project: a\nprojects:\n  - {name: a, max_priority_class: "+tc.given+"}\n")
			if got := c.Projects[0].MaxPriorityClass; got != tc.want {
				t.Errorf("max_priority_class %q, want %q", got, tc.want)
			}
		})
	}
}
