package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSubmitPriorityClass (trial 2026-11-29c C9): --priority-class sets
// the job's class over the file's, for a file and --wrap alike; a job
// that names none is sent without a priority, so that the master can
// give it its project's cap, and one that names one is sent with it.
func TestSubmitPriorityClass(t *testing.T) {
	plain := writeTestFile(t, "plain.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 1\n")
	high := writeTestFile(t, "high.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 1\n  priority_class: HIGH\n")
	ten := writeTestFile(t, "ten.yaml", "name: x\nentrypoint: y\nresources: {priority: 10}\n")
	tests := []struct {
		name  string
		args  []string
		class string // resources.priority_class sent; "": none sent
		prio  float64
		err   string
	}{
		{"a file naming none: none sent", []string{"submit", plain}, "", 0, ""},
		{"--wrap naming none: none sent", []string{"submit", "--wrap", "x"}, "", 0, ""},
		{"--wrap LOW", []string{"submit", "--priority-class", "LOW", "--wrap", "x"}, "LOW", 80, ""},
		{"lower case, over a file's HIGH", []string{"submit", "--priority-class", "low", high}, "LOW", 80, ""},
		{"a file's class, as written", []string{"submit", high}, "HIGH", 10, ""},
		{"a file's number", []string{"submit", ten}, "HIGH", 10, ""},
		{"an unknown class", []string{"submit", "--priority-class", "urgent", plain}, "", 0,
			`--priority-class: expected one of HIGH, NORMAL, LOW, got "urgent"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			_, _, err := runAt(t, f, tt.args...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Resources map[string]any `json:"resources"`
			}
			for i, r := range f.requests {
				if r == "POST /api/v1/jobs" {
					if err := json.Unmarshal([]byte(f.bodies[i]), &body); err != nil {
						t.Fatal(err)
					}
				}
			}
			class, _ := body.Resources["priority_class"].(string)
			prio, _ := body.Resources["priority"].(float64)
			if class != tt.class || prio != tt.prio {
				t.Errorf("sent priority_class %q priority %v, want %q %v (resources %v)", class, prio, tt.class, tt.prio, body.Resources)
			}
		})
	}
}
