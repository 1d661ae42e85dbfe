package gpumodel

import "testing"

// TestTypeIsAFixedPoint: a type read again is itself, so that a job
// file's GPU type survives a round trip (FuzzParse found "A0!0", which
// read as "a0-0" and then as "a0").
func TestTypeIsAFixedPoint(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a model name", "NVIDIA H100 80GB HBM3", "h100"},
		{"a short type", "a100", "a100"},
		{"odd punctuation", "A0!0", "a0"},
		{"no model word", "Custom Board!x", "custom-board-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Type(tt.in)
			if got != tt.want || Type(got) != got {
				t.Errorf("Type(%q) = %q (again %q), want %q, a fixed point", tt.in, got, Type(got), tt.want)
			}
		})
	}
}
