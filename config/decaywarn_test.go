package config

import (
	"strings"
	"testing"
)

// TestDecayWarning: a half-life shorter than the period is told with the
// decay's line, where a pool weighs fair share (trial 29i I25); with no
// file named, the line alone.
func TestDecayWarning(t *testing.T) {
	const mf = "pools:\n  - {name: default, policy: multifactor}\n"
	const want = "decay: half_life 30m is shorter than the period, 24h (the default): usage decays only at each period's end " +
		"(00:00 UTC), all at once, and counts in full until then; set period: 30m for decay every 30m"
	tests := []struct {
		name, path, src, want string
	}{
		{"named file", "c.yaml", mf + "decay: {half_life: 30m}\n", "c.yaml:3: " + want},
		{"no file named", "", mf + "decay: {half_life: 30m}\n", "line 3: " + want},
		// A period the file sets is not "the default" (trial 2026-11-29j J6).
		{"period set to the default's", "c.yaml", mf + "decay: {period: 24h, half_life: 30m}\n",
			"c.yaml:3: " + strings.Replace(want, "24h (the default)", "24h", 1)},
		{"period no longer than the half-life", "c.yaml", mf + "decay: {half_life: 30m, period: 30m}\n", ""},
		{"no pool weighs fair share", "c.yaml", "pools:\n  - {name: default, policy: multifactor, multifactor: {fair_share: 0, age: 1}}\n" +
			"decay: {half_life: 30m}\n", ""},
		{"no decay section", "c.yaml", mf, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("c.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := DecayWarning(tt.path, c); got != tt.want {
				t.Errorf("DecayWarning = %q, want %q", got, tt.want)
			}
		})
	}
	if got := DecayWarning("c.yaml", nil); got != "" {
		t.Errorf("DecayWarning(nil) = %q", got)
	}
}
