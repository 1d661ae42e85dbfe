package scenario

import (
	"slices"
	"testing"
)

// TestWarnings: a job event before its job's submission is told, with
// the event's time and the submission's (trial 2026-11-29g G4); one at
// or after it, a node's event and a trace's jobs are not.
func TestWarnings(t *testing.T) {
	const head = "pools:\n  - {name: p, policy: priority, nodes: [{name: n, slots: 4}]}\n" +
		"jobs:\n  - {name: a, submit: 2h, slots: 1, duration: 1h}\n  - {name: b, submit: 10m, slots: 1, duration: 1h}\nevents:\n"
	tests := []struct {
		name, events string
		want         []string
	}{
		{"kill before submission", "  - {at: 1h, kill: a}\n",
			[]string{`s.yaml:7: events[0]: kill at 1h comes before job "a" is submitted (at 2h); the simulator applies it at the submission`}},
		{"set_priority before, and a kill after", "  - {at: 5m, set_priority: {job: b, priority: 5}}\n  - {at: 3h, kill: a}\n",
			[]string{`s.yaml:7: events[0]: set_priority at 5m comes before job "b" is submitted (at 10m); the simulator applies it at the submission`}},
		{"at the submission", "  - {at: 2h, kill: a}\n", nil},
		{"a node's event", "  - {at: 0s, node_down: n}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(head+tt.events))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Warnings(); !slices.Equal(got, tt.want) {
				t.Errorf("Warnings() = %q, want %q", got, tt.want)
			}
		})
	}
}
