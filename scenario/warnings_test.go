package scenario

import (
	"slices"
	"testing"
)

// TestWarnings: a job event before its job's submission is told, with
// the event's time and the submission's (trial 2026-11-29g G4); one at
// or after it, a node's event and a trace's jobs are not. A decay whose
// half-life is shorter than its period is told (trial 29i I25).
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

// TestDecayWarning: a scenario's decay whose half-life is shorter than
// its period is told, at the decay's line, as the master's configuration
// check tells it (trial 29i I25).
func TestDecayWarning(t *testing.T) {
	const head = "pools:\n  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: fair_tree}, nodes: [{name: n, slots: 4}]}\n" +
		"accounts: [{name: jack}]\njobs: [{name: j, account: jack}]\n"
	tests := []struct {
		name, decay string
		want        []string
	}{
		{"half_life shorter than the default period", "decay: {half_life: 10m}\n",
			[]string{"s.yaml:5: decay: half_life 10m is shorter than the period, 24h (the default): usage decays only at each " +
				"period's end (00:00 UTC), all at once, and counts in full until then; set period: 10m for decay every 10m"}},
		{"half_life shorter than a set period", "decay: {half_life: 3h, period: 12h}\n",
			[]string{"s.yaml:5: decay: half_life 3h is shorter than the period, 12h: usage decays only at each " +
				"period's end, all at once, and counts in full until then; set period: 1h for hourly decay"}},
		// Written out, the day's period is not "the default" (trial 29j J6).
		{"half_life shorter than a period of a day written out", "decay: {half_life: 10m, period: 24h}\n",
			[]string{"s.yaml:5: decay: half_life 10m is shorter than the period, 24h: usage decays only at each " +
				"period's end (00:00 UTC), all at once, and counts in full until then; set period: 10m for decay every 10m"}},
		{"half_life longer than the period", "decay: {half_life: 2h, period: 1h}\n", nil},
		{"per_period", "decay: {per_period: 0.5, period: 1h}\n", nil},
		{"the default", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(head+tt.decay))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Warnings(); !slices.Equal(got, tt.want) {
				t.Errorf("Warnings() = %q, want %q", got, tt.want)
			}
		})
	}
}
