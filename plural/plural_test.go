package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		n    int
		noun string
		want string
	}{
		{"one", 1, "slot", "1 slot"},
		{"zero", 0, "slot", "0 slots"},
		{"many", 2, "slot", "2 slots"},
		{"minus one", -1, "slot", "-1 slot"},
		{"acronym", 8, "GPU", "8 GPUs"},
		{"two words", 1, "h100 slot", "1 h100 slot"},
		{"two words plural", 3, "h100 slot", "3 h100 slots"},
		{"ch", 2, "switch", "2 switches"},
		{"consonant y", 2, "policy", "2 policies"},
		{"vowel y", 2, "key", "2 keys"},
		{"s", 2, "alias", "2 aliases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Count(tt.n, tt.noun); got != tt.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
			}
		})
	}
}

func TestBe(t *testing.T) {
	for n, want := range map[int][2]string{0: {"are", "were"}, 1: {"is", "was"}, 2: {"are", "were"}} {
		if got := [2]string{Be(n), Was(n)}; got != want {
			t.Errorf("Be, Was(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTimes(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 times"}, {1, "once"}, {2, "twice"}, {3, "3 times"}} {
		t.Run(c.want, func(t *testing.T) {
			if got := Times(c.n); got != c.want {
				t.Errorf("Times(%d) = %q, want %q", c.n, got, c.want)
			}
		})
	}
}
