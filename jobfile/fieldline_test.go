package jobfile

import "testing"

func TestFieldLine(t *testing.T) {
	const file = `name: sweep
entrypoint: python train.py
pool: research
defaults: &res
  gpu: h100
resources:
  <<: *res
  slots: 2
hyperparameters:
  "a.b":
    values: [1, 2]
  lr:
    values:
      - 0.1
      - 0.01
environment: {MODE: fast}
`
	tests := []struct {
		path string
		line int
	}{
		{"pool", 3},
		{"resources.slots", 8},
		{"resources.gpu", 5},          // given by the merged anchor
		{"resources.min_slots", 6},    // not in the file: resources
		{`hyperparameters."a.b"`, 10}, // a quoted key
		{`hyperparameters."a.b".values`, 11},
		{"hyperparameters.lr.values[1]", 15},
		{"hyperparameters.lr.values[7]", 13}, // no such item: the list
		{"environment.MODE", 16},
		{"project", 0}, // left to the master's default
		{"", 0},
		{`hyperparameters."a.b`, 9}, // read as far as it can be
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := FieldLine([]byte(file), tt.path); got != tt.line {
				t.Errorf("FieldLine(%q) = %d, want %d", tt.path, got, tt.line)
			}
		})
	}
	for _, data := range []string{"", "- a\n- b\n", "a: [\n"} {
		if got := FieldLine([]byte(data), "pool"); got != 0 {
			t.Errorf("FieldLine of %q = %d, want 0", data, got)
		}
	}
}
