package spec

import (
	"slices"
	"testing"
)

func TestQOSChanges(t *testing.T) {
	normal := QOS{Name: "normal", Priority: 10, Line: 4}
	emergency := QOS{Name: "emergency", Priority: 100, Preempt: true, Line: 5}
	tests := []struct {
		name     string
		was, now []QOS
		want     []string
	}{
		{"only lines moved", []QOS{normal, emergency},
			[]QOS{{Name: "normal", Priority: 10, Line: 9}, {Name: "emergency", Priority: 100, Preempt: true, Line: 10}}, nil},
		{"priority and preempt", []QOS{normal, emergency},
			[]QOS{normal, {Name: "emergency", Priority: 50}},
			[]string{"qos emergency: priority 100 → 50, preempt true → false"}},
		{"added and removed", []QOS{normal, emergency}, []QOS{normal, {Name: "urgent", Priority: 60, Preempt: true}},
			[]string{"qos urgent added (priority 60, preempt true)", "qos emergency removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QOSChanges(tt.was, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("QOSChanges = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultQOSChanges(t *testing.T) {
	tests := []struct {
		name, was, now string
		want           []string
	}{
		{"same", "normal", "normal", nil},
		{"changed (trial 29h H2)", "normal", "emergency", []string{"default_qos: normal → emergency"}},
		{"to none", "normal", "", []string{"default_qos: normal → none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultQOSChanges(tt.was, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("DefaultQOSChanges = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecayChanges(t *testing.T) {
	tests := []struct {
		name     string
		was, now Decay
		want     []string
	}{
		{"same but the line", DefaultDecay, Decay{Period: 86400, HalfLife: 7 * 86400, Line: 12}, nil},
		{"half-life", DefaultDecay, Decay{Period: 86400, HalfLife: 86400},
			[]string{"decay: half_life 168h → 24h"}},
		{"half-life to a factor", DefaultDecay, Decay{Period: 3600, PerPeriod: 0.5},
			[]string{"decay: period 24h → 1h, per_period none → 0.5, half_life 168h → none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecayChanges(tt.was, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("DecayChanges = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDone(t *testing.T) {
	tests := []struct{ line, want string }{
		{"pool hpc: reservations easy → conservative", "changed pool hpc: reservations easy → conservative"},
		{"qos emergency removed", "removed qos emergency"},
		{"qos high added (priority 70)", "added qos high (priority 70)"},
		{"pool x added (policy fifo)", "added pool x (policy fifo)"},
		{"license matlab: total 2 → 1", "changed license matlab: total 2 → 1"},
		{"default_qos: normal → emergency", "changed default_qos: normal → emergency"},
		{"decay: half_life 168h → 24h", "changed decay: half_life 168h → 24h"},
		{"project removed: quota 1 → 2", "changed project removed: quota 1 → 2"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			if got := Done(tt.line); got != tt.want {
				t.Errorf("Done(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}
