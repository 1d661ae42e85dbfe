package spec

import "testing"

// TestDecayWords: how users are told the decay, when it next applies, and
// the warning of a half-life shorter than the period (trial 29i I14, I25).
func TestDecayWords(t *testing.T) {
	tests := []struct {
		name         string
		d            Decay
		words, warns string
	}{
		{"the default", DefaultDecay, "usage halves every 168h, applied at each 24h period's end", ""},
		{"hourly", Decay{Period: 3600, HalfLife: 3600}, "usage halves every 1h, applied at each 1h period's end", ""},
		{"half-life below the period", Decay{Period: 86400, HalfLife: 3600}, "usage halves every 1h, applied at each 24h period's end",
			"decay: half_life 1h is shorter than the period, 24h (the default): usage decays only at each period's end (00:00 UTC), " +
				"all at once, and counts in full until then; set period: 1h for hourly decay"},
		{"seed 003", Decay{Period: 86400, PerPeriod: 0.7}, "usage is multiplied by 0.7 at each 24h period's end", ""},
		{"never", Decay{Period: 7200, PerPeriod: 1}, "usage never decays (counted per 2h period)", ""},
		{"invalid", Decay{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Words(); got != tt.words {
				t.Errorf("Words() = %q, want %q", got, tt.words)
			}
			if got := tt.d.WarningOf(false); got != tt.warns {
				t.Errorf("WarningOf(false) = %q, want %q", got, tt.warns)
			}
		})
	}
	// The same decay with period: 24h in the file (trial 2026-11-29j J6).
	set := Decay{Period: 86400, HalfLife: 3600}.WarningOf(true)
	if want := "decay: half_life 1h is shorter than the period, 24h: usage decays only at each period's end (00:00 UTC), " +
		"all at once, and counts in full until then; set period: 1h for hourly decay"; set != want {
		t.Errorf("WarningOf(true) = %q, want %q", set, want)
	}
	for _, tt := range []struct{ now, want int64 }{{0, 86400}, {86399, 1}, {86400, 86400}, {86400 + 3600, 82800}} {
		if got := DefaultDecay.NextDecay(tt.now); got != tt.want {
			t.Errorf("NextDecay(%d) = %d, want %d", tt.now, got, tt.want)
		}
	}
}
